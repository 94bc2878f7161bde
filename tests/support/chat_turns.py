"""Chat turns in the window's tests, for what learning does with them: a model that says
"Noted." to everything (so what is learned comes from the user's words), the Chat page
with its assistant started, a message sent and answered, and the learning note under a
reply."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt

from core.app import Hearth
from desktop.chat.learning_note import LearningNote
from desktop.chat.page import ChatPage
from desktop.chat.transcript import ReplyMessage
from desktop.context import AppContext
from support.qt_waits import wait_idle
from support.scripted_llm import ScriptedLLM


def chatty() -> Callable[[], ScriptedLLM]:
    """Replies "Noted." to every message; the model's own extraction finds nothing, so
    whatever is learned comes from the user's words."""
    def answer(kind: str, _messages: Any, extra: dict[str, Any]) -> str:
        if kind == "structured":
            return json.dumps({name: [] for name in extra["schema"].get("properties", {})})
        return "Noted."
    return lambda: ScriptedLLM(answer)


def open_page(qtbot, ctx: AppContext) -> ChatPage:
    """The page on screen, its assistant started, its chat list loaded."""
    page = ChatPage(ctx)
    qtbot.addWidget(page)
    page.resize(1100, 700)
    page.show()
    qtbot.waitExposed(page)
    with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
        ctx.start_assistant()
    wait_idle(qtbot, ctx)
    return page


def say(qtbot, page: ChatPage, text: str) -> ReplyMessage:
    page.composer.edit.setPlainText(text)
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: not page.busy, timeout=60_000)
    reply = page.transcript.messages[-1]
    assert isinstance(reply, ReplyMessage)
    return reply


def note_lines(reply: ReplyMessage) -> list[str]:
    note = reply.findChild(LearningNote)
    return note.lines if note is not None and note.isVisible() else []


def facts(hearth: Hearth) -> dict[str, str]:
    return {fact.key: fact.value for fact in hearth.facts.list()}
