"""What a person does with messages in the Chat page: copy a message or a code block,
regenerate the last reply, edit the last message and send it again, by mouse and keyboard."""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QGuiApplication
from test_chat_page import (
    history,
    open_page,
    scripted,
    type_and_send,
    wait_reply,
)

from desktop.chat.transcript import ReplyMessage, UserMessage


def test_copy_puts_the_message_and_the_reply_source_on_the_clipboard(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Run **slowly** at first."))
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "How do I start running?")
    reply = wait_reply(qtbot, page)
    user = page.transcript.messages[0]
    assert isinstance(user, UserMessage)

    user.message_actions.copy_button.click()
    assert QGuiApplication.clipboard().text() == "How do I start running?"
    assert user.message_actions.copy_button.text() == "Copied"
    reply.message_actions.copy_button.click()
    assert QGuiApplication.clipboard().text() == "Run **slowly** at first."


def test_each_code_block_has_a_copy_link_that_copies_only_that_code(qtbot, make_ctx) -> None:
    answer = ("First:\n\n```sh\npip install hearth\nhearth doctor\n```\n\nThen:\n\n"
              "```python\nprint('hi')\n```\n")
    ctx = make_ctx(provider_factory=scripted(answer))
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "How do I install it?")
    reply = wait_reply(qtbot, page)

    assert reply.text.count("Copy code") == 2  # one under each block, seen by the user
    assert reply.code_texts == ["pip install hearth\nhearth doctor", "print('hi')"]
    # the keyboard way: Tab reaches the first link in the reply, Enter follows it
    reply.body.setFocus()
    qtbot.keyClick(reply.body, Qt.Key.Key_Tab)
    assert reply.body.textCursor().selectedText() == "Copy code"
    qtbot.keyClick(reply.body, Qt.Key.Key_Return)
    assert QGuiApplication.clipboard().text() == "pip install hearth\nhearth doctor"
    reply.body.anchorClicked.emit(QUrl("copy-code:1"))
    assert QGuiApplication.clipboard().text() == "print('hi')"


def test_regenerate_replaces_the_last_reply_on_screen_and_in_the_chat(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("First answer.", "Second answer.",
                                             "Third answer."))
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Name a colour")
    first = wait_reply(qtbot, page)
    type_and_send(qtbot, page, "Another one")
    second = wait_reply(qtbot, page)
    assert not first.message_actions.again_button.isVisible()  # only the last exchange
    assert second.message_actions.again_button.isVisible()
    assert second.message_actions.again_button.text() == "Regenerate"

    second.message_actions.again_button.click()
    assert not any(m.message_actions.again_button.isVisible() for m in page.transcript.messages
                   if isinstance(m, (UserMessage, ReplyMessage)))  # not while it runs
    again = wait_reply(qtbot, page)

    assert again is not second and again.text == "Third answer."
    shown = [m.text for m in page.transcript.messages]
    assert shown == ["Name a colour", "First answer.", "Another one", "Third answer."]
    saved = history(ctx, page.current_session)
    assert [(e.user_message, e.agent_response) for e in saved] == [
        ("Name a colour", "First answer."), ("Another one", "Third answer.")]
    assert again.interaction_id == second.interaction_id
    assert again.message_actions.again_button.isVisible()


def test_edit_puts_the_last_message_in_the_composer_and_resends_it(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Lisbon is sunny.", "Porto is rainy."))
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Weather in Lisbon?")
    wait_reply(qtbot, page)
    user = page.transcript.messages[0]
    assert isinstance(user, UserMessage) and user.message_actions.again_button.text() == "Edit"

    # reached with the keyboard: the Edit button takes focus and Space presses it
    user.message_actions.again_button.setFocus()
    qtbot.keyClick(user.message_actions.again_button, Qt.Key.Key_Space)
    assert page.edit_bar.isVisible()
    assert page.composer.edit.toPlainText() == "Weather in Lisbon?"
    qtbot.keyClick(page.composer.edit, Qt.Key.Key_Escape)  # Esc leaves editing
    assert not page.edit_bar.isVisible() and page.composer.edit.toPlainText() == ""

    user.message_actions.again_button.click()
    type_and_send(qtbot, page, "Weather in Porto?")
    reply = wait_reply(qtbot, page)

    assert not page.edit_bar.isVisible()
    assert [m.text for m in page.transcript.messages] == ["Weather in Porto?",
                                                          "Porto is rainy."]
    (saved,) = history(ctx, page.current_session)
    assert (saved.user_message, saved.agent_response) == ("Weather in Porto?",
                                                          "Porto is rainy.")
    assert reply.interaction_id == saved.interaction_id


def offered(page) -> list[str]:
    """The texts of the messages that show Edit or Regenerate, in order."""
    return [m.text for m in page.transcript.messages
            if isinstance(m, (UserMessage, ReplyMessage))
            and not m.message_actions.again_button.isHidden()]


def test_only_the_last_exchange_offers_edit_and_regenerate(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=scripted("Red.", "Blue.", "Green."))
    page = open_page(qtbot, ctx)
    type_and_send(qtbot, page, "Name a colour")
    wait_reply(qtbot, page)
    assert offered(page) == ["Name a colour", "Red."]

    type_and_send(qtbot, page, "Another one")
    assert offered(page) == []  # gone from the previous exchange as soon as one is sent
    wait_reply(qtbot, page)
    assert offered(page) == ["Another one", "Blue."]
    type_and_send(qtbot, page, "And one more")
    wait_reply(qtbot, page)
    assert offered(page) == ["And one more", "Green."]

    chat = page.current_session  # opened again from the list: still the last one only
    page.new_conversation()
    qtbot.waitUntil(lambda: page.transcript.messages == [], timeout=10_000)
    page.open_session(chat)
    qtbot.waitUntil(lambda: len(page.transcript.messages) == 6, timeout=10_000)
    qtbot.waitUntil(lambda: offered(page) == ["And one more", "Green."], timeout=10_000)
