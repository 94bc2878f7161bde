"""Where the keyboard goes: typing at launch lands in the message box, never in the list of
views (which used to jump to Memories on "M" and to Facts on "F")."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop.main_window import MainWindow


def shown_window(qtbot, ctx) -> MainWindow:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitActive(window)
    return window


def test_at_launch_typing_goes_into_the_message_box(qtbot, ctx) -> None:
    window = shown_window(qtbot, ctx)  # the assistant is still starting
    chat = window.pages["chat"]
    qtbot.waitUntil(lambda: QApplication.focusWidget() is chat.composer.edit, timeout=2000)
    qtbot.keyClicks(QApplication.focusWidget(), "My sister Priya lives in Lisbon")
    assert window.current_page() is chat
    assert chat.composer.edit.toPlainText() == "My sister Priya lives in Lisbon"


def test_letters_typed_in_the_list_of_views_do_not_switch_views(qtbot, ctx) -> None:
    window = shown_window(qtbot, ctx)
    sidebar = window.findChild(type(window._sidebar), "sidebar")
    sidebar.setFocus()
    qtbot.keyClicks(sidebar, "My Facts")
    assert window.current_page() is window.pages["chat"]
    qtbot.keyClick(sidebar, Qt.Key.Key_Down)  # the arrow keys still move between views
    assert window.current_page() is window.pages["today"]


def test_back_to_chat_and_new_chat_put_the_focus_in_the_message_box(qtbot, ctx) -> None:
    window = shown_window(qtbot, ctx)
    window.show_page("facts")
    window.pages["facts"].setFocus()
    window.show_page("chat")
    edit = window.pages["chat"].composer.edit
    qtbot.waitUntil(lambda: QApplication.focusWidget() is edit, timeout=2000)
