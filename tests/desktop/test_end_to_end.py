"""The whole window, as a user goes through it: say something in Chat (the real ``ollama``
client against the fake Ollama server) → the fact it states appears in Facts → correct it
there → the next reply's system prompt carries the correction → delete it → the next prompt
and recall no longer know it."""

from __future__ import annotations

from support.qt_waits import wait_idle
from PySide6.QtCore import Qt
from test_chat_page import ChatServer, ollama, type_and_send, wait_reply  # noqa: F401
from test_inspector_pages import answers, edit_cell, key_id  # noqa: F401

from core.recall import RecallQuery
from core.storage.port import IndexedKind
from desktop.chat.page import ChatPage
from desktop.inspector.facts import FactsPage
from desktop.main_window import MainWindow
from support.fake_ollama import FakeReply


def system_prompt_of_last_turn(server: ChatServer) -> str:
    chats = [request for request in server.server.chat_requests()
             if not isinstance(request.get("format"), dict)]
    return chats[-1]["messages"][0]["content"]


def say(qtbot, window: MainWindow, server: ChatServer, text: str) -> None:
    server.replies.append(FakeReply("Noted."))
    chat = window.show_page("chat")
    assert isinstance(chat, ChatPage)
    type_and_send(qtbot, chat, text)
    wait_reply(qtbot, chat)
    learning = window.ctx.assistant.learning  # type: ignore[union-attr]
    qtbot.waitUntil(lambda: learning.drain(timeout=0), timeout=60_000)  # learning caught up
    wait_idle(qtbot, window.ctx)  # and the views reloaded what it stored


def test_a_fact_said_in_chat_is_shown_corrected_and_forgotten(
        qtbot, make_ctx, ollama, answers) -> None:  # noqa: F811
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
        ctx.start_assistant()
    wait_idle(qtbot, ctx)

    say(qtbot, window, ollama, "Remember that my locker code is 4471.")
    facts = window.show_page("facts")
    assert isinstance(facts, FactsPage)
    wait_idle(qtbot, ctx)
    assert facts.select(key_id(facts, "locker_code"))

    edit_cell(facts, "locker_code", 1, "5582")
    wait_idle(qtbot, ctx)
    assert ctx.hearth.facts.get("locker_code").value == "5582"
    say(qtbot, window, ollama, "What should I pack for the gym?")
    prompt = system_prompt_of_last_turn(ollama)
    assert "locker_code: 5582" in prompt and "4471" not in prompt

    facts = window.show_page("facts")
    wait_idle(qtbot, ctx)
    assert facts.select(key_id(facts, "locker_code"))
    facts.view.setFocus()
    qtbot.keyClick(facts.view, Qt.Key.Key_Delete)
    wait_idle(qtbot, ctx)
    assert ctx.hearth.facts.get("locker_code") is None
    hits = ctx.hearth.recall.recall(RecallQuery(text="locker code",
                                                kinds=(IndexedKind.FACT,)))
    assert hits == []
    say(qtbot, window, ollama, "Anything else?")
    assert "locker_code" not in system_prompt_of_last_turn(ollama)
