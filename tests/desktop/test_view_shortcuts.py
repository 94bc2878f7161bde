"""Every view in the sidebar is reachable by its own key, pressed on the window as a user
presses it; the key is in the view's tooltip, the View menu and Help › Keyboard shortcuts."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QListWidget

from desktop.dialogs.shortcuts import ShortcutsDialog
from desktop.main_window import MainWindow
from desktop.registry import PAGES, view_shortcut

MODIFIERS = {"Ctrl": Qt.KeyboardModifier.ControlModifier,
             "Alt": Qt.KeyboardModifier.AltModifier}


def test_the_keys_cover_every_view_ten_by_ten() -> None:
    keys = [view_shortcut(position) for position in range(len(PAGES))]
    assert None not in keys and len(set(keys)) == len(keys)
    assert keys[:10] == [f"Ctrl+{n % 10}" for n in range(1, 11)]
    assert keys[10:] == [f"Alt+{n % 10}" for n in range(1, len(PAGES) - 9)]
    assert view_shortcut(20) is None


def test_each_view_comes_up_by_its_key(qtbot, ctx) -> None:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    window.activateWindow()
    qtbot.waitUntil(lambda: QApplication.focusWidget() is not None, timeout=5_000)
    keys = list(window.pages)
    assert len(keys) == len(PAGES) > 10
    for position in reversed(range(len(keys))):  # from the last: each press moves the view
        modifier, digit = str(view_shortcut(position)).split("+")
        focused = QApplication.focusWidget() or window._sidebar  # wherever the keyboard is
        qtbot.keyClick(focused, getattr(Qt.Key, f"Key_{digit}"), MODIFIERS[modifier])
        current = window.current_page()
        assert current is not None and current.key == keys[position], view_shortcut(position)


def test_the_key_is_shown_in_the_tooltip_the_view_menu_and_the_help(qtbot, ctx) -> None:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    sidebar = window.findChild(QListWidget, "sidebar")
    titles = [page.title for page in window.pages.values()]
    for row, title in enumerate(titles):
        assert sidebar.item(row).toolTip().endswith(f"({view_shortcut(row)})"), title
    view = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert [(a.text(), a.shortcut().toString()) for a in view.actions()] == [
        (title, view_shortcut(row)) for row, title in enumerate(titles)]

    dialog = ShortcutsDialog(window.shortcuts(), window)
    qtbot.addWidget(dialog)
    shown = dict(dialog.rows())
    assert shown["Show Memory map"] == view_shortcut(titles.index("Memory map"))
    assert shown["Show Schedule"] == view_shortcut(titles.index("Schedule"))
    assert shown["Reflect now"] == "Ctrl+Shift+R" and shown["Keyboard shortcuts…"] == "F1"
    assert shown["Search or filter the view"] == "Ctrl+F"
    assert list(shown)[0] == "Show Chat"
