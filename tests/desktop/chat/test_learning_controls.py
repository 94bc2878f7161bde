"""Control over learning from the window: the "Learn from my chats" switch in Settings
(the same setting as Memory → Pause learning) and a chat's own "Learn from this chat".
Each is proved by turns after which facts, events, memories and notes are unchanged,
against a control chat that does learn. The model is scripted; the rest is real."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from sqlalchemy import func, select
from support.chat_turns import chatty, facts, note_lines, open_page, say
from support.qt_waits import wait_idle

from core.app import Hearth
from core.storage.orm import ChatSession, ContextEvent, Memory, Note, UserFact
from desktop.chat.learning_switch import INCOGNITO, OFF, PAUSED
from desktop.chat.page import ChatPage
from desktop.context import AppContext
from desktop.dialogs.settings import SettingsDialog
from desktop.dialogs.settings_privacy_page import PrivacySection


def learned(hearth: Hearth) -> dict[str, int]:
    with hearth.storage.read() as session:
        return {table.__tablename__: session.scalar(select(func.count()).select_from(table))
                for table in (UserFact, ContextEvent, Memory, Note)}


def learning_done(ctx: AppContext) -> None:
    assert ctx.assistant is not None and ctx.assistant.learning.drain(timeout=60)


def test_memory_off_in_settings_stops_all_learning(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=chatty())
    page = open_page(qtbot, ctx)
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    wait_idle(qtbot, ctx)
    privacy = dialog.section("Privacy")
    assert isinstance(privacy, PrivacySection) and privacy.learn.isChecked()
    privacy.learn.setChecked(False)
    assert dialog.apply()
    assert ctx.settings.learning_paused
    stored = json.loads(ctx.hearth.paths.settings_file.read_text())
    assert stored["learning_paused"] is True
    qtbot.waitUntil(lambda: page.learning_switch.state.text() == PAUSED, timeout=1_000)
    assert not page.learning_switch.box.isEnabled()

    before = learned(ctx.hearth)
    reply = say(qtbot, page, "My sister Priya lives in Lisbon")
    say(qtbot, page, "I work at Acme Robotics")
    learning_done(ctx)
    wait_idle(qtbot, ctx)
    assert learned(ctx.hearth) == before
    assert note_lines(reply) == []

    privacy.learn.setChecked(True)  # back on: the next message is learned from
    assert dialog.apply() and not ctx.settings.learning_paused
    later = say(qtbot, page, "My brother Tom works at Google")
    qtbot.waitUntil(lambda: len(note_lines(later)) == 2, timeout=60_000)
    assert facts(ctx.hearth) == {"brother_name": "Tom", "brother_employer": "Google"}


def test_a_chat_set_not_to_learn_teaches_nothing(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=chatty())
    page: ChatPage = open_page(qtbot, ctx)
    say(qtbot, page, "Hello there")
    switch = page.learning_switch
    qtbot.waitUntil(switch.box.isEnabled, timeout=30_000)
    assert switch.box.isChecked()
    qtbot.mouseClick(switch.box, Qt.MouseButton.LeftButton)
    wait_idle(qtbot, ctx)
    assert switch.state.text() == OFF
    private = page.current_session
    with ctx.hearth.storage.read() as session:
        assert session.get(ChatSession, private).learn_from is False

    before = learned(ctx.hearth)
    reply = say(qtbot, page, "My sister Priya lives in Lisbon")
    learning_done(ctx)
    ctx.assistant.learning.session_ended(private)  # closing it writes no summary either
    learning_done(ctx)
    wait_idle(qtbot, ctx)
    assert learned(ctx.hearth) == before
    assert note_lines(reply) == []

    page.new_conversation()  # the control: another chat learns as usual
    qtbot.waitUntil(lambda: page.current_session != private, timeout=30_000)
    wait_idle(qtbot, ctx)
    assert switch.box.isChecked() and switch.state.text() == ""
    other = say(qtbot, page, "My sister Priya lives in Lisbon")
    qtbot.waitUntil(lambda: len(note_lines(other)) == 2, timeout=60_000)

    page.open_session(private)  # the choice is the chat's own, and stays
    qtbot.waitUntil(lambda: switch.state.text() == OFF, timeout=30_000)
    assert not switch.box.isChecked()


def test_an_incognito_chat_is_marked_teaches_nothing_and_goes_when_left(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=chatty())
    page: ChatPage = open_page(qtbot, ctx)
    say(qtbot, page, "Hello there")  # an ordinary chat, kept
    kept = page.current_session
    page.new_incognito_chat()
    qtbot.waitUntil(lambda: page.current_session != kept, timeout=30_000)
    wait_idle(qtbot, ctx)
    private = page.current_session
    switch = page.learning_switch
    assert switch.state.text() == INCOGNITO and switch.state.font().bold()
    assert not switch.box.isChecked() and not switch.box.isEnabled()

    before = learned(ctx.hearth)
    reply = say(qtbot, page, "My sister Priya lives in Lisbon")
    learning_done(ctx)
    wait_idle(qtbot, ctx)
    assert learned(ctx.hearth) == before and note_lines(reply) == []
    assert switch.state.text() == INCOGNITO  # still marked once the list has read it back

    page.open_session(kept)  # leaving it deletes it, messages and all
    wait_idle(qtbot, ctx)
    with ctx.hearth.storage.read() as session:
        assert session.get(ChatSession, private) is None
        assert session.get(ChatSession, kept) is not None
    assert [page.list_model.session(row).id
            for row in range(page.list_model.rowCount())] == [kept]
    assert switch.state.text() == "" and switch.box.isChecked()
    assert learned(ctx.hearth) == before
