"""The window on a small laptop screen (1366×768, less the desktop's panels): it can be
made as small as 1000×640, and at that size no view, table, chart or settings page is
given less room than it needs (its minimum size hint), whatever the desktop's font size.
Panels too tall for such a screen scroll instead (``desktop.scrolling``)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QLayout,
    QSizePolicy,
    QSplitter,
    QWidget,
)
from support.qt_waits import wait_idle

from desktop.dialogs.settings import SettingsDialog
from desktop.main_window import MainWindow, opening_size

SMALLEST = QSize(1000, 640)


@pytest.fixture(params=[9.0, 11.0], ids=["small font", "laptop font"])
def font_size(request, qapp) -> Iterator[float]:
    """The desktop's font: Qt's default, and the larger one of a typical laptop desktop
    (at which the window used to need 744 pixels of height)."""
    font = qapp.font()
    was = font.pointSizeF()
    font.setPointSizeF(request.param)
    qapp.setFont(font)
    yield request.param
    font.setPointSizeF(was)
    qapp.setFont(font)


def nothing_squeezed(root: QWidget, where: str) -> None:
    """Once the layouts have caught up with the texts set meanwhile."""
    assert squeezed(root) == [], where


def squeezed(root: QWidget) -> list[str]:
    """The visible widgets under ``root`` that a layout or splitter gave less than their
    minimum size, except those inside a scroll area's viewport (they scroll, by design).
    Widgets a parent places by hand (a table's header) are the parent's business."""
    found = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root) or _scrolls(widget, root) or not _laid_out(widget):
            continue
        need, got = needed(widget), widget.size()
        if got.width() < need.width() or got.height() < need.height():
            found.append(f"{type(widget).__name__} {widget.objectName()!r} "
                         f"{widget.text() if hasattr(widget, 'text') else ''!r}: "
                         f"{got.width()}×{got.height()} < {need.width()}×{need.height()}")
    return found


def needed(widget: QWidget) -> QSize:
    """The least room a layout gives the widget: its minimum size where one is set,
    otherwise its minimum size hint, nothing where its size policy says to ignore it."""
    hint, policy = widget.minimumSizeHint(), widget.sizePolicy()
    width = widget.minimumWidth() or max(hint.width(), 0)
    height = widget.minimumHeight() or max(hint.height(), 0)
    if policy.horizontalPolicy() == QSizePolicy.Policy.Ignored:
        width = widget.minimumWidth()
    if policy.verticalPolicy() == QSizePolicy.Policy.Ignored:
        height = widget.minimumHeight()
    return QSize(width, height)


def _laid_out(widget: QWidget) -> bool:
    parent = widget.parentWidget()
    if isinstance(parent, QSplitter):
        return True
    return parent is not None and parent.layout() is not None \
        and _holds(parent.layout(), widget)


def _holds(layout: QLayout, widget: QWidget) -> bool:
    for index in range(layout.count()):
        item = layout.itemAt(index)
        if item.widget() is widget or (item.layout() is not None
                                       and _holds(item.layout(), widget)):
            return True
    return False


def _scrolls(widget: QWidget, root: QWidget) -> bool:
    parent = widget.parentWidget()
    while parent is not None and parent is not root:
        area = parent.parentWidget()
        if isinstance(area, QAbstractScrollArea) and parent is area.viewport():
            return True
        parent = area
    return False


def test_the_window_fits_a_small_laptop_and_no_view_is_squeezed(
        qtbot, ctx, font_size) -> None:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    hint = window.minimumSizeHint()
    assert hint.width() <= SMALLEST.width() and hint.height() <= SMALLEST.height(), hint
    window.resize(SMALLEST)
    window.show()
    qtbot.waitExposed(window)
    for key in window.pages:
        window.show_page(key)
        wait_idle(qtbot, ctx)
        qtbot.waitUntil(lambda key=key: nothing_squeezed(window, key), timeout=2000)
    window.show_page("chat").why_panel.setVisible(True)  # the widest the chat gets
    qtbot.waitUntil(lambda: nothing_squeezed(window, "chat with Why?"), timeout=2000)


def test_every_settings_page_fits_a_small_laptop(qtbot, ctx, font_size) -> None:
    dialog = SettingsDialog(ctx)
    qtbot.addWidget(dialog)
    hint = dialog.minimumSizeHint()
    assert hint.width() <= SMALLEST.width() and hint.height() <= SMALLEST.height(), hint
    dialog.resize(dialog.minimumSizeHint())
    dialog.show()
    qtbot.waitExposed(dialog)
    for index in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(index)
        qtbot.waitUntil(lambda index=index: nothing_squeezed(dialog, dialog.tabs.tabText(index)),
                        timeout=2000)


def test_the_window_opens_no_larger_than_the_screen_leaves_free() -> None:
    assert opening_size(QSize(1366, 740)) == QSize(1200, 740)  # a laptop with a panel
    assert opening_size(QSize(1920, 1050)) == QSize(1200, 780)
