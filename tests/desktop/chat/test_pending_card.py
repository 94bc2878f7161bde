"""The approval card in the chat, headless: a model's tool call (the real ``ollama`` client
against the fake server) shows a card under the reply; Confirm creates the row and says
"Done", Cancel creates nothing, Edit opens the task's own form (or, for a request without
one, cancels and puts the original message back in the composer), one Tab from the message
box reaches Confirm and the keyboard comes back after an answer, and a card whose 30
minutes are up says "Expired" and its Confirm is refused."""

from __future__ import annotations

import json
from datetime import timedelta

from support.chat_turns import open_page, say
from test_chat_page import ollama  # noqa: F401 (the fake Ollama server fixture)
from support.fake_ollama import FakeReply
from support.qt_waits import wait_idle
from support.scripted_llm import ScriptedLLM
from PySide6.QtCore import Qt, QTime
from PySide6.QtWidgets import QDialogButtonBox

from core import clock
from core.daily import when
from core.operations import pending
from desktop.chat.held_forms import HeldTaskDialog
from desktop.chat.pending_card import PendingCard
from desktop.chat.transcript import ReplyMessage


def held_task(ollama, title: str = "Renew passport") -> None:  # noqa: F811
    due = (when.today() + timedelta(days=3)).isoformat()
    ollama.replies.extend([
        FakeReply(text="Let me add that.", tool_calls=[
            {"name": "create_task", "arguments": {"title": title, "due_date": due}}]),
        FakeReply(text="It is waiting for your confirmation below.")])


def chat_turns(ollama) -> int:  # noqa: F811
    """Chat requests the model got (learning's structured ones left out)."""
    return sum(1 for body in ollama.server.chat_requests() if body.get("format") is None)


def card_under(qtbot, reply: ReplyMessage) -> PendingCard:
    qtbot.waitUntil(lambda: reply.findChild(PendingCard) is not None, timeout=30_000)
    card = reply.findChild(PendingCard)
    assert card is not None
    qtbot.waitUntil(card.isVisible)  # a widget laid out is shown on the next loop turn
    return card


def test_confirm_on_the_card_creates_the_task_and_says_done(qtbot, make_ctx, ollama) -> None:  # noqa: F811
    held_task(ollama)
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)

    reply = say(qtbot, page, "add a task to renew my passport")
    card = card_under(qtbot, reply)

    assert card.preview.text().startswith("Add the task “Renew passport”, due ")
    assert ctx.hearth.tasks.list() == []  # the call alone did nothing
    # the tool it used, in words; what was recorded is behind the tooltip (Details)
    assert reply.activity.text() == "Prepared a task: it waits for your Confirm below"
    assert "create_task: held pending action" in reply.activity.toolTip()
    assert card.confirm_button.isVisible() and card.confirm_button.focusPolicy() \
        & Qt.FocusPolicy.TabFocus
    card.confirm_button.setFocus()
    qtbot.keyClick(card.confirm_button, Qt.Key.Key_Space)  # reachable from the keyboard
    qtbot.waitUntil(lambda: card.outcome.isVisible(), timeout=30_000)
    wait_idle(qtbot, ctx)

    (task,) = ctx.hearth.tasks.list()
    assert task.title == "Renew passport"
    assert card.outcome.text() == f"Done: Added task {task.id} “Renew passport”."
    assert not card.confirm_button.isVisible()


def test_cancel_creates_nothing_and_reopening_the_chat_shows_the_outcome(
        qtbot, make_ctx, ollama) -> None:  # noqa: F811
    held_task(ollama)
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)
    card = card_under(qtbot, say(qtbot, page, "add a task to renew my passport"))

    qtbot.mouseClick(card.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: card.outcome.text() == "Cancelled", timeout=30_000)
    wait_idle(qtbot, ctx)
    assert ctx.hearth.tasks.list() == []

    session_id = page.current_session
    assert session_id is not None
    page._show_chat(None)
    page.open_session(session_id)
    qtbot.waitUntil(lambda: len(page.transcript.cards) == 1, timeout=30_000)
    (shown,) = page.transcript.cards.values()
    assert shown.outcome.text() == "Cancelled" and not shown.confirm_button.isVisible()
    assert isinstance(shown.parent(), ReplyMessage)


def test_edit_opens_the_tasks_own_form_and_adds_it_as_changed(qtbot, make_ctx,
                                                               ollama) -> None:  # noqa: F811
    held_task(ollama)
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)
    card = card_under(qtbot, say(qtbot, page, "add a task to renew my passport"))
    asked = chat_turns(ollama)

    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(page.findChildren(HeldTaskDialog)), timeout=10_000)
    (form,) = page.findChildren(HeldTaskDialog)
    assert form.isVisible()
    assert form.fields.title.text() == "Renew passport"  # the task's own fields, filled
    assert form.fields.due_date == when.today() + timedelta(days=3)
    form.fields.title.setText("Renew passport and ID card")
    form.fields.has_time.setChecked(True)
    form.fields.time.setTime(QTime(10, 30))
    form.buttons.button(QDialogButtonBox.StandardButton.Save).click()
    qtbot.waitUntil(lambda: card.outcome.isVisible(), timeout=30_000)
    wait_idle(qtbot, ctx)

    (task,) = ctx.hearth.tasks.list()
    assert (task.title, task.due_time) == ("Renew passport and ID card", "10:30")
    assert card.outcome.text() == f"Done: Added task {task.id} “Renew passport and ID card”."
    assert "Renew passport and ID card" in card.preview.text()
    assert page.composer.edit.toPlainText() == ""  # nothing to re-phrase
    assert chat_turns(ollama) == asked  # nothing was asked of the model again


def test_edit_on_a_request_without_a_form_puts_the_message_back(qtbot, make_ctx,
                                                                ollama) -> None:  # noqa: F811
    ollama.replies.extend([
        FakeReply(text="Saving it.", tool_calls=[
            {"name": "save_note", "arguments": {"content": "The wifi code is on the router"}}]),
        FakeReply(text="It is waiting for your confirmation below.")])
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)
    message = "note that the wifi code is on the router"
    card = card_under(qtbot, say(qtbot, page, message))

    qtbot.mouseClick(card.edit_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: card.outcome.isVisible(), timeout=30_000)
    wait_idle(qtbot, ctx)
    assert page.composer.edit.toPlainText() == message
    assert card.outcome.text().startswith("Cancelled")
    assert ctx.hearth.pending.get(card.item.id).status == "cancelled"


def test_one_tab_from_the_message_box_reaches_confirm_and_the_keys_come_back(
        qtbot, make_ctx, ollama) -> None:  # noqa: F811
    held_task(ollama)
    held_task(ollama, "Book the MOT")
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)
    page.window().activateWindow()
    first = card_under(qtbot, say(qtbot, page, "add a task to renew my passport"))
    card = card_under(qtbot, say(qtbot, page, "add a task to book the MOT"))
    assert first is not card
    edit = page.composer.edit
    edit.setFocus()
    qtbot.waitUntil(edit.hasFocus)
    qtbot.keyClick(edit, Qt.Key.Key_Tab)  # not a walk through every message's buttons
    assert card.confirm_button.hasFocus()
    qtbot.keyClick(card.confirm_button, Qt.Key.Key_Space)
    qtbot.waitUntil(lambda: card.outcome.isVisible(), timeout=30_000)
    wait_idle(qtbot, ctx)
    assert edit.hasFocus()  # back where the next message is typed
    qtbot.keyClick(edit, Qt.Key.Key_Tab)  # the other card waits: Tab reaches it now
    assert first.confirm_button.hasFocus()
    edit.setFocus()
    qtbot.mouseClick(first.cancel_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: first.outcome.text() == "Cancelled", timeout=30_000)
    assert edit.hasFocus()  # a click leaves the keyboard in the message box
    qtbot.keyClick(edit, Qt.Key.Key_Tab)
    assert page.composer.send_button.hasFocus()


def test_an_expired_card_says_so_and_its_confirm_is_refused(qtbot, make_ctx, ollama) -> None:  # noqa: F811
    held_task(ollama)
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)
    card = card_under(qtbot, say(qtbot, page, "add a task to renew my passport"))

    with clock.shifted(timedelta(minutes=31)):
        card.confirm_button.click()  # clicked before the card's own timer noticed
        qtbot.waitUntil(lambda: card.outcome.text().startswith("Expired"), timeout=30_000)
        wait_idle(qtbot, ctx)
        assert pending.list_pending(ctx.hearth) == ()
    assert ctx.hearth.tasks.list() == []
    assert not card.confirm_button.isVisible()


def test_without_tools_the_rules_card_confirms_a_reminder(qtbot, make_ctx) -> None:
    def answer(kind: str, _messages: object, extra: dict) -> str:
        if kind == "structured":
            return json.dumps({name: [] for name in extra["schema"].get("properties", {})})
        return "Done! Your reminder is set."  # what a small model said before the click

    ctx = make_ctx(provider_factory=lambda: ScriptedLLM(answer, supports_tools=False))
    page = open_page(qtbot, ctx)
    reply = say(qtbot, page, "remind me tomorrow at 9 to call the dentist")
    card = card_under(qtbot, reply)

    assert card.preview.text().startswith("Remind you “call the dentist” on ")
    assert "It is not done yet: press Confirm" in reply.body.toPlainText()
    assert "Done!" not in reply.body.toPlainText()
    reply.why_button.click()
    qtbot.waitUntil(lambda: "the model was not asked" in page.why_panel.summary.text(),
                    timeout=30_000)
    assert ctx.hearth.reminders.list() == []
    qtbot.mouseClick(card.confirm_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: card.outcome.text().startswith("Done: Set reminder"),
                    timeout=30_000)
    wait_idle(qtbot, ctx)
    (reminder,) = ctx.hearth.reminders.list()
    assert reminder.message == "call the dentist"


def test_a_request_answered_in_the_terminal_shows_when_hearth_is_active_again(
        qtbot, make_ctx, ollama, capsys) -> None:  # noqa: F811
    from PySide6.QtGui import QGuiApplication

    from cli.main import run

    held_task(ollama, "Renew passport")
    held_task(ollama, "Book the dentist")
    ctx = make_ctx(provider_factory=ollama.provider_factory())
    page = open_page(qtbot, ctx)
    first = card_under(qtbot, say(qtbot, page, "add a task to renew my passport"))
    second = card_under(qtbot, say(qtbot, page, "add a task to book the dentist"))
    home = str(ctx.hearth.paths.home)

    assert run(["--home", home, "pending", "confirm", str(first.item.id)]) == 0
    capsys.readouterr()
    assert first.waiting  # nothing told the window yet
    app = QGuiApplication.instance()
    app.applicationStateChanged.emit(Qt.ApplicationState.ApplicationActive)  # back from it
    qtbot.waitUntil(lambda: not first.waiting, timeout=30_000)
    (task,) = ctx.hearth.tasks.list()
    assert first.outcome.text() == f"Done: Added task {task.id} “Renew passport”."
    assert second.waiting and second.confirm_button.isVisible()  # still pending: still asks

    assert run(["--home", home, "pending", "cancel", str(second.item.id)]) == 0
    capsys.readouterr()
    page.activate()  # coming back to the Chat view from another one reads them too
    qtbot.waitUntil(lambda: not second.waiting, timeout=30_000)
    assert second.outcome.text() == "Cancelled"
    wait_idle(qtbot, ctx)
    assert [t.title for t in ctx.hearth.tasks.list()] == ["Renew passport"]
