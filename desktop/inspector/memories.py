"""Memories: search what Hearth remembers (hybrid recall, with each result's score and the
signals behind it) or browse it newest first, under filters; inspect one memory's
provenance, edges and supersede chain; invalidate, restore or pin it.

Keyboard: Ctrl+F searches, Escape clears the search, Enter searches at once; in the list,
Delete invalidates the selected memory (after asking why). Links in the detail pane (edges,
the chain) are followed with Enter or a click.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.errors import InvalidInputError
from core.storage.orm import MemoryTier
from core.views import memory_browse, memory_detail
from core.views.memory_browse import Cursor, MemoryFilter, MemoryRow
from core.views.memory_detail import MemoryDetail
from desktop.context import AppContext
from desktop.inspector.base import InspectorPage
from desktop.inspector.memory_detail import MemoryDetailPane
from desktop.inspector.memory_filters import MemoryFilterBar
from desktop.inspector.memory_table import FIT_TO_CONTENTS, SEARCH_ONLY, MemoryTableModel
from desktop.inspector.table import make_table_view
from desktop.workers import Task

RELOAD_DELAY_MS = 300
"""Typing or changing filters must pause this long before the list reloads."""
SEARCH_RESULTS = 50


@dataclass(frozen=True)
class Listing:
    """What one load found: the rows, where the next page starts (browsing), how many match
    in all (browsing) and the namespaces in use (for the filter)."""

    query: str
    memory_filter: MemoryFilter
    rows: list[MemoryRow]
    next_page: Cursor | None
    total: int | None
    namespaces: list[str]


class MemoriesPage(InspectorPage):
    key = "memories"
    title = "Memories"
    about = "Everything Hearth remembers from your chats; search it as the assistant does."
    icon_name = "memories"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self._detail_generation = 0
        self._list_generation = 0
        self._filter_refused = False
        self._shown_filter = MemoryFilter()
        """The filter of the rows shown: further pages are read under it, not under
        controls the user may be changing."""
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search memories by words and meaning (Ctrl+F); "
                                           "empty lists the newest first")
        self.search_box.setClearButtonEnabled(True)
        self.filters = MemoryFilterBar()
        self.summary = QLabel()
        self.model = MemoryTableModel(self)
        self.view = self._make_view()
        self.detail_pane = MemoryDetailPane()
        self._reload_timer = QTimer(self, singleShot=True, interval=RELOAD_DELAY_MS)

        top = QHBoxLayout()
        top.addWidget(self.search_box, 1)
        top.addWidget(self.summary)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setChildrenCollapsible(False)
        body.addWidget(self.view)
        body.addWidget(self.detail_pane)
        body.setStretchFactor(0, 3)
        body.setStretchFactor(1, 2)
        body.setSizes([650, 380])
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.filters)
        layout.addWidget(self.notice)
        layout.addWidget(body, 1)

        self.search_box.textChanged.connect(self._reload_timer.start)
        self.search_box.returnPressed.connect(self.reload)
        self.filters.changed.connect(self._reload_timer.start)
        self._reload_timer.timeout.connect(self.reload)
        self.model.more_wanted.connect(self._fetch_more)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.detail_pane.jump.connect(self.show_memory)
        self.detail_pane.invalidate_requested.connect(self.invalidate)
        self.detail_pane.restore_requested.connect(self.restore)
        self.detail_pane.pin_requested.connect(self.pin)
        ctx.hub.run_finished.connect(lambda _kind, _report: self.refresh())
        QShortcut(QKeySequence.StandardKey.Find, self, self._focus_search,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search_box, self.search_box.clear,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence.StandardKey.Delete, self.view, self._invalidate_selected,
                  context=Qt.ShortcutContext.WidgetShortcut)

    # --- loading the list ----------------------------------------------------------------------

    def reload(self) -> Task | None:
        """Load the first page or the search results under the current filter; a filter
        the user got wrong (a backwards date range) is explained and nothing is loaded."""
        self._reload_timer.stop()
        try:
            self.filters.current()
        except InvalidInputError as exc:
            self.notice.show_error(exc.message, exc.hint or "")
            self._filter_refused = True
            return None
        if self._filter_refused:  # the notice explained the filter; it is fixed now
            self.notice.clear()
            self._filter_refused = False
        return super().reload()

    def loader(self) -> Callable[[], Listing]:
        query = self.search_box.text().strip()
        memory_filter = self.filters.current()
        hearth = self.ctx.hearth

        def load() -> Listing:
            namespaces = memory_browse.namespaces(hearth.storage)
            if query:
                rows = memory_browse.search(hearth.storage, hearth.recall, query,
                                            memory_filter, SEARCH_RESULTS)
                return Listing(query, memory_filter, rows, None, None, namespaces)
            page = memory_browse.browse(hearth.storage, memory_filter)
            total = memory_browse.count(hearth.storage, memory_filter)
            return Listing(query, memory_filter, page.rows, page.next, total, namespaces)

        return load

    def show_loaded(self, result: Listing) -> None:
        self._list_generation += 1
        self._shown_filter = result.memory_filter
        keep = self.selected()
        self.filters.set_namespaces(result.namespaces)
        self.model.show(result.rows, result.next_page)
        for column in SEARCH_ONLY:
            self.view.setColumnHidden(column, not result.query)
        for column in FIT_TO_CONTENTS:
            self.view.resizeColumnToContents(column)
        if result.query:
            found = len(result.rows)
            self.summary.setText(f"{found} result{'s' * (found != 1)}")
        else:
            self.summary.setText(f"{result.total:,} memor{'y' if result.total == 1 else 'ies'}")
        if keep is not None and self.select(keep.id):
            return
        if self.detail_pane.detail is not None:  # still shown: show its new state
            self._load_detail(self.detail_pane.detail.id)

    def _fetch_more(self, after: Cursor) -> None:
        generation, memory_filter = self._list_generation, self._shown_filter
        storage = self.ctx.hearth.storage

        def appended(page: memory_browse.Page) -> None:
            if generation == self._list_generation:
                self.model.append_page(page.rows, page.next)

        def failed(message: str, hint: str) -> None:
            self.model.fetching = False  # scrolling down again tries again
            self.show_error(message, hint)

        self.ctx.workers.start(
            "Loading more memories",
            lambda _task: memory_browse.browse(storage, memory_filter, after),
            on_done=appended, on_failed=failed)

    # --- the selection and the detail pane -----------------------------------------------------

    def selected(self) -> MemoryRow | None:
        index = self.view.selectionModel().currentIndex()
        return self.model.record(index.row()) if index.isValid() else None

    def select(self, memory_id: int) -> bool:
        """Select the memory's row if it is listed (its detail then loads)."""
        row = self.model.row_of(memory_id)
        if row is None:
            return False
        index = self.model.index(row, 1)
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)
        return True

    def show_memory(self, memory_id: int) -> None:
        """Jump to a memory (an edge or a chain link): select it if listed, else show its
        detail alone (it may be filtered out, e.g. a superseded one)."""
        if not self.select(memory_id):
            self.view.selectionModel().clearSelection()
            self._load_detail(memory_id)

    def _current_changed(self, current, _previous) -> None:  # noqa: ANN001
        if current.isValid():
            self._load_detail(self.model.record(current.row()).id)

    def _load_detail(self, memory_id: int) -> None:
        self._detail_generation += 1
        generation = self._detail_generation
        storage = self.ctx.hearth.storage
        row_number = self.model.row_of(memory_id)
        row = self.model.record(row_number) if row_number is not None else None

        def shown(detail: MemoryDetail) -> None:
            if generation == self._detail_generation:
                self.detail_pane.show_detail(detail, row)

        self.run("Loading a memory",
                 lambda _task: memory_detail.memory_detail(storage, memory_id), shown)

    # --- actions -------------------------------------------------------------------------------

    def invalidate(self, memory_id: int) -> None:
        reason, accepted = QInputDialog.getText(
            self, "Invalidate memory",
            f"Why is memory #{memory_id} wrong or obsolete? It is kept, but no longer "
            "recalled; you can restore it later.")
        if not accepted:
            return
        if not reason.strip():
            self.notice.show_error("A memory is only invalidated with a reason.",
                                   "Say briefly why it is wrong, then try again.")
            return
        memories = self.ctx.hearth.memories
        self.change("Invalidating a memory",
                    lambda: memories.invalidate(memory_id, reason.strip()),
                    lambda _m: f"Memory #{memory_id} invalidated.")

    def restore(self, memory_id: int) -> None:
        memories = self.ctx.hearth.memories
        self.change("Restoring a memory", lambda: memories.restore(memory_id),
                    lambda _m: f"Memory #{memory_id} is valid again.")

    def pin(self, memory_id: int) -> None:
        memories = self.ctx.hearth.memories
        self.change("Pinning a memory",
                    lambda: memories.set_tier(memory_id, MemoryTier.CORE.value),
                    lambda _m: f"Memory #{memory_id} is now always kept in mind.")

    def _invalidate_selected(self) -> None:
        row = self.selected()
        if row is not None and row.state == memory_browse.Validity.VALID.value:
            self.invalidate(row.id)

    # --- widgets -------------------------------------------------------------------------------

    def _make_view(self) -> QTableView:
        view = make_table_view(self.model, 1, fit_to_contents=False)
        for column in SEARCH_ONLY:
            view.setColumnHidden(column, True)
        return view

    def _focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()
