"""The memory detail pane's links to other memories (related ones, near-duplicate twins
linked both ways, the supersede chain) open that memory when clicked with the mouse or
followed with Tab and Enter: the real events a person sends, not a signal emitted."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QTextCursor
from support.qt_waits import wait_idle
from test_graph_snapshot import add_edges
from test_memories_activity_stats import shown

from desktop.context import AppContext
from desktop.inspector.memories import MemoriesPage
from desktop.inspector.memory_detail import LINK_SCHEME


def link_point(page: MemoriesPage, memory_id: int) -> QPoint:
    """Where the pane shows the link to ``memory_id``, in its viewport's coordinates."""
    browser = page.detail_pane.browser
    document = browser.document()
    block = document.begin()
    while block.isValid():
        fragments = block.begin()
        while not fragments.atEnd():
            fragment = fragments.fragment()
            if fragment.charFormat().anchorHref() == f"{LINK_SCHEME}:{memory_id}":
                cursor = QTextCursor(document)
                cursor.setPosition(fragment.position() + 1)
                browser.setTextCursor(cursor)
                browser.ensureCursorVisible()
                return browser.cursorRect(cursor).center()
            fragments += 1
        block = block.next()
    raise AssertionError(f"no link to memory {memory_id} in the pane")


def twins(ctx: AppContext) -> tuple[int, int, int]:
    memories = ctx.hearth.memories
    first = memories.add("My sister Priya lives in Lisbon.").id
    twin = memories.add("Priya, my sister, lives in Lisbon now.").id
    hidden = memories.add("Priya moved to Lisbon from Porto.").id
    memories.invalidate(hidden, "said twice")  # not in the list of valid memories
    add_edges(ctx.hearth.storage, [(first, twin, "knn", 0.93), (twin, first, "knn", 0.93),
                                   (first, hidden, "dream", 0.4)])
    return first, twin, hidden


def test_a_click_on_a_linked_memory_opens_it(qtbot, ctx: AppContext) -> None:
    first, twin, hidden = twins(ctx)
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(first)
    wait_idle(qtbot, ctx)
    assert "Related memories (2)" in page.detail_pane.browser.toPlainText()  # twin once

    viewport = page.detail_pane.browser.viewport()
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=link_point(page, twin))
    qtbot.waitUntil(lambda: page.detail_pane.detail is not None
                    and page.detail_pane.detail.id == twin, timeout=10_000)
    assert page.selected() is not None and page.selected().id == twin
    assert "Priya, my sister" in page.detail_pane.browser.toPlainText()

    page.select(first)  # a link to a memory the list does not show opens it alone
    wait_idle(qtbot, ctx)
    qtbot.mouseClick(viewport, Qt.MouseButton.LeftButton, pos=link_point(page, hidden))
    qtbot.waitUntil(lambda: page.detail_pane.detail is not None
                    and page.detail_pane.detail.id == hidden, timeout=10_000)
    assert page.selected() is None and "moved to Lisbon" in page.detail_pane.browser.toPlainText()
    page.reload()  # memory changed elsewhere: the memory asked for stays shown
    wait_idle(qtbot, ctx)
    assert page.detail_pane.detail is not None and page.detail_pane.detail.id == hidden


def test_tab_and_enter_follow_a_link(qtbot, ctx: AppContext) -> None:
    first, twin, _hidden = twins(ctx)
    page = shown(qtbot, ctx, MemoriesPage)
    page.select(twin)
    wait_idle(qtbot, ctx)
    browser = page.detail_pane.browser
    browser.setFocus()
    browser.moveCursor(QTextCursor.MoveOperation.Start)
    qtbot.keyClick(browser, Qt.Key.Key_Tab)
    assert browser.textCursor().selectedText() == f"#{first}"  # the first link: the twin
    qtbot.keyClick(browser, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.detail_pane.detail is not None
                    and page.detail_pane.detail.id == first, timeout=10_000)
