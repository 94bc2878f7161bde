"""The window on a small laptop screen (1366×768, less the desktop's panels): it can be
made as small as 1000×640, and at that size no view, table, chart or settings page is
given less room than it needs (its minimum size hint), whatever the desktop's font size.
Panels too tall for such a screen scroll instead (``desktop.scrolling``).

On a 1366×768 and a 1024×640 screen the window opens with its frame inside the screen, and
stays inside with every panel open: the Why? panel with an item chosen, each view's detail
pane with a row selected, notifications waiting (a reminder, a program asking for access)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import QMargins, QPoint, QRect, QSize
from PySide6.QtGui import QFont
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QLabel,
    QLayout,
    QSizePolicy,
    QSplitter,
    QWidget,
)
from support.qt_waits import wait_idle
from test_chat_page import scripted, type_and_send, wait_reply

from core.agents.tools import AccessDenied, AgentTools
from core.daily.when import today
from core.scheduling import DELIVERY
from desktop.dialogs.settings import SettingsDialog
from desktop.main_window import MainWindow
from desktop.placement import fitted

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
            chain, up = [], widget.parentWidget()
            while up is not None and up is not root:
                chain.append(type(up).__name__)
                up = up.parentWidget()
            found.append(f"{'/'.join(chain)} {type(widget).__name__} {widget.objectName()!r} "
                         f"{widget.text() if hasattr(widget, 'text') else ''!r}: "
                         f"{got.width()}×{got.height()} < {need.width()}×{need.height()}")
    return found


def needed(widget: QWidget) -> QSize:
    """The least room a layout gives the widget: its minimum size where one is set,
    otherwise its minimum size hint (for a word-wrapped label, the height its text takes
    at the width it got), nothing where its size policy says to ignore it."""
    hint, policy = widget.minimumSizeHint(), widget.sizePolicy()
    width = widget.minimumWidth() or max(hint.width(), 0)
    height = widget.minimumHeight() or max(hint.height(), 0)
    if isinstance(widget, QLabel) and widget.wordWrap() and not widget.minimumHeight():
        height = max(widget.heightForWidth(widget.width()), 0)
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


TITLE_BAR = QMargins(1, 20, 1, 5)
"""The frame a window manager puts around the window (openbox's, measured under Xvfb)."""


def test_the_frame_of_the_window_opens_inside_what_the_screen_leaves_free() -> None:
    """Sized by its inside to the free height, the window's title bar pushed its status bar
    below the screen: the frame must fit, not the inside."""
    laptop = QRect(0, 0, 1366, 768)
    placed = fitted(QRect(0, 0, 1202, 793), TITLE_BAR, laptop, QSize(900, 500))
    assert laptop.contains(placed) and placed.size() == QSize(1202, 768)
    small = QRect(0, 0, 1024, 640)
    placed = fitted(QRect(300, 200, 1202, 805), TITLE_BAR, small, QSize(900, 500))
    assert placed == small  # moved in from where the window manager put it
    big = QRect(0, 0, 1920, 1050)
    assert fitted(QRect(40, 30, 400, 300), TITLE_BAR, big, QSize(900, 500)).size() == \
        QSize(1202, 805)  # 1200×780 inside: no larger than it likes to be


SCREENS = {"1366×768": QSize(1366, 768), "1024×640": QSize(1024, 640)}


@pytest.fixture(params=list(SCREENS))
def screen(request, monkeypatch) -> QRect:
    """The screen's free area the window is given (the offscreen screen is 800×800)."""
    area = QRect(QPoint(0, 0), SCREENS[request.param])
    monkeypatch.setattr(MainWindow, "available_area", lambda _window: area)
    return area


def select_first_rows(page: QWidget) -> None:
    """Choose the first row of every list, table and tree of a view: its detail pane opens."""
    for view in page.findChildren(QAbstractItemView):
        model = view.model()
        if view.isVisibleTo(page) and model is not None and model.rowCount() > 0:
            view.setCurrentIndex(model.index(0, 0))


def test_with_every_panel_open_the_window_stays_on_the_screen(
        qtbot, make_ctx, screen) -> None:
    """The window at the laptop font, on each screen: its frame inside the free area, the
    status bar on it, and no panel (Why? with an item chosen, a view's detail, a waiting
    notification) makes it grow past the screen's edge or squeezes a widget."""
    qapp_font = QApplication.font()
    laptop = QFont(qapp_font)
    laptop.setPointSizeF(11.0)
    QApplication.setFont(laptop)
    try:
        ctx = make_ctx(provider_factory=scripted("Your bees are on the roof, in Lisbon."))
        ctx.hearth.facts.remember("home_city", "Lisbon", category="location")
        ctx.hearth.memories.add("The user keeps bees on the roof of their building.")
        ctx.hearth.tasks.create("Renew passport", due_date=today())
        window = MainWindow(ctx)
        qtbot.addWidget(window)
        window.show()
        qtbot.waitExposed(window)
        assert screen.contains(window.frameGeometry()), window.frameGeometry()
        assert screen.contains(window.statusBar().geometry().translated(window.pos()))
        with qtbot.waitSignal(ctx.hub.assistant_ready, timeout=30_000):
            ctx.start_assistant()
        ctx.start_scheduler()
        qtbot.waitUntil(lambda: ctx.scheduler is not None, timeout=30_000)
        ctx.scheduler.run_job(DELIVERY)
        qtbot.waitUntil(lambda: bool(window.notices.open))
        with pytest.raises(AccessDenied):  # a program asks for access: the tallest card
            AgentTools(ctx.hearth.agent_services(), "notes-bot").call("list_facts", {})
        window.agent_requests.check()
        qtbot.waitUntil(lambda: bool(window.agent_requests.cards), timeout=10_000)
        chat = window.show_page("chat")
        type_and_send(qtbot, chat, "Where do I keep my bees?")
        wait_reply(qtbot, chat).why_button.click()
        panel = chat.why_panel
        qtbot.waitUntil(lambda: bool(panel.items), timeout=10_000)
        panel.tree.setCurrentIndex(panel.model.item(0).child(0, 0).index())
        assert panel.selected is not None and panel.fix_button.isEnabled()
        panel.details_button.click()
        fits(qtbot, window, screen, "chat with Why?")
        assert chat.why_panel.isVisible() and chat.composer.isVisible()
        for key in window.pages:
            page = window.show_page(key)
            wait_idle(qtbot, ctx)
            select_first_rows(page)
            wait_idle(qtbot, ctx)
            fits(qtbot, window, screen, key)
        window.show_page("chat")
        panel.close_button.click()
        assert chat.chats_panel.isVisible()  # the list of chats is back
    finally:
        QApplication.setFont(qapp_font)


def fits(qtbot, window: MainWindow, screen: QRect, where: str) -> None:
    try:
        qtbot.waitUntil(lambda: squeezed(window) == [], timeout=2000)
    except Exception:
        raise AssertionError((where, squeezed(window))) from None
    assert window.width() <= screen.width() and window.height() <= screen.height(), \
        (where, window.size())
    assert window.minimumSizeHint().width() <= screen.width(), (where, window.minimumSizeHint())
