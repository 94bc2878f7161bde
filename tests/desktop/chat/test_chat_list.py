"""The list of chats: when each was last active, searching across chats, and imported
conversations shown read-only with where they came from."""

from __future__ import annotations

import threading
from datetime import UTC, date, datetime, timedelta

from PySide6.QtCore import Qt
from support.qt_waits import wait_idle
from test_chat_page import open_page, scripted, type_and_send, wait_reply

from core.conversation.sessions import SessionInfo
from core.transfer.transcript import import_transcript
from desktop.chat.conversation_list import day_label, source_details, source_note
from desktop.chat.transcript import SpokenTurn

TRANSCRIPT = {
    "conversation_id": "maya-and-sam", "participants": ["Maya", "Sam"],
    "sessions": [{"session_id": "s1", "started_at": "2024-03-02T18:30:00+01:00",
                  "turns": [{"turn_id": "t1", "speaker": "Maya",
                             "text": "I moved to Porto last week."},
                            {"turn_id": "t2", "speaker": "Sam",
                             "text": "How do you like it so far?"}]}]}


def rows(page) -> list[str]:
    model = page.list_model
    return [model.index(row).data() for row in range(model.rowCount())]


def test_day_labels_read_today_yesterday_or_the_date() -> None:
    today = date(2026, 5, 14)
    noon = datetime(2026, 5, 14, 12, tzinfo=UTC).astimezone()
    local_today = noon.date()
    assert day_label(noon, local_today) == "Today"
    assert day_label(noon - timedelta(days=1), local_today) == "Yesterday"
    assert day_label(datetime(2026, 3, 3, 12, tzinfo=UTC), today) == "3 Mar"
    assert day_label(datetime(2025, 3, 3, 12, tzinfo=UTC), today) == "3 Mar 2025"


def test_an_export_is_named_by_its_service_with_its_own_id_behind_details() -> None:
    """"Imported from a ChatGPT export", not "Imported from “chatgpt:873d…”"."""
    base = {"id": "s", "title": "ChatGPT: Trip", "started_at": datetime(2026, 5, 1, tzinfo=UTC),
            "last_message_at": None, "exchanges": 3, "closed": True, "source": "import"}
    from_chatgpt = SessionInfo(**base, conversation_id="chatgpt:873d0b2e-5a1f")
    assert source_note(from_chatgpt) == "Imported from a ChatGPT export"
    assert source_details(from_chatgpt) == ("Details: its id in a ChatGPT export is "
                                            "873d0b2e-5a1f")
    from_file = SessionInfo(**base, conversation_id="maya-and-sam")
    assert source_note(from_file) == "Imported from “maya-and-sam”"
    assert source_details(from_file) == ""


def test_the_list_shows_dates_and_imported_conversations_open_read_only(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Hello!"))
    import_transcript(TRANSCRIPT, ctx.hearth.storage, ctx.hearth.memories)
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Hi there")
    wait_reply(qtbot, page)
    wait_idle(qtbot, ctx)

    assert rows(page) == ["Hi there\nToday", "maya-and-sam / s1\nImported · 2 Mar 2024"]
    imported: SessionInfo = page.list_model.session(1)
    assert "Imported from “maya-and-sam”" in page.list_model.index(1).data(
        Qt.ItemDataRole.ToolTipRole)
    assert "2 turns" in page.list_model.index(1).data(Qt.ItemDataRole.ToolTipRole)

    page.list_view.setCurrentIndex(page.list_model.index(1))
    qtbot.waitUntil(lambda: len(page.transcript.messages) == 2, timeout=10_000)
    turns = page.transcript.messages
    assert all(isinstance(t, SpokenTurn) for t in turns)
    assert [t.text for t in turns] == ["I moved to Porto last week.",
                                       "How do you like it so far?"]
    assert page.current_session == imported.id
    assert page.composer.isHidden() and page.read_only_note.isVisible()
    assert "Imported from “maya-and-sam”" in page.read_only_note.text()
    assert "read-only" in page.read_only_note.text()

    page.list_view.setCurrentIndex(page.list_model.index(0))  # back to a chat: it talks
    qtbot.waitUntil(lambda: len(page.transcript.messages) == 2, timeout=10_000)
    assert page.composer.isVisible() and page.read_only_note.isHidden()


def test_search_finds_chats_by_words_in_messages_and_titles(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Try aubergine.", "Ten weeks.", "Sure."))
    import_transcript(TRANSCRIPT, ctx.hearth.storage, ctx.hearth.memories)
    page = open_page(qtbot, ctx)
    for text in ("What should I cook tonight?", "Marathon plan", "Hello"):
        page.new_conversation()
        wait_idle(qtbot, ctx)
        type_and_send(qtbot, page, text)
        wait_reply(qtbot, page)
    wait_idle(qtbot, ctx)
    assert page.list_model.rowCount() == 4
    shown = ctx.hub.status_message

    page.search.setFocus()
    qtbot.keyClicks(page.search, "aubergine")  # in a reply only
    qtbot.waitUntil(lambda: page.list_model.rowCount() == 1, timeout=10_000)
    assert rows(page)[0].startswith("What should I cook tonight?")
    page.search.setText('porto" OR NEAR(')  # FTS syntax is only words here
    qtbot.waitUntil(lambda: rows(page)[:1] == ["maya-and-sam / s1\nImported · 2 Mar 2024"],
                    timeout=10_000)
    with qtbot.waitSignal(shown, timeout=10_000) as said:
        page.search.setText("zebra")
    assert said.args == ["No chat mentions “zebra”."] and page.list_model.rowCount() == 0
    page.search.clear()  # all chats again
    qtbot.waitUntil(lambda: page.list_model.rowCount() == 4, timeout=10_000)


def test_a_list_read_that_answers_late_does_not_close_the_chat_just_started(
        qtbot, make_ctx, monkeypatch) -> None:
    """The list read before a chat was started answers after it: the new chat stays open."""
    ctx = make_ctx(provider_factory=scripted("Hello!"))
    page = open_page(qtbot, ctx)
    sessions = page.assistant.conversation.sessions
    read = sessions.recent_sessions
    gate, calls = threading.Event(), []

    def slow_first_read(*args, **kwargs):
        calls.append(1)
        sessions = read(*args, **kwargs)
        if len(calls) == 1:
            gate.wait(30)
        return sessions

    monkeypatch.setattr(sessions, "recent_sessions", slow_first_read)
    page.reload_list()  # read before the chat exists, held back
    page.new_conversation()
    qtbot.waitUntil(lambda: page.current_session is not None
                    and page.list_model.row_of(page.current_session) is not None,
                    timeout=10_000)
    started = page.current_session
    gate.set()
    wait_idle(qtbot, ctx)
    assert page.current_session == started
    assert page.list_model.rowCount() == 1
