"""Memories: search what Hearth remembers (hybrid recall, with each result's score and the
signals behind it) or browse it newest first, under filters; inspect one memory's
provenance, edges and supersede chain; invalidate, restore or pin it; delete memories (with
an undo) or erase them everywhere (several at once: the list selects with Shift and Ctrl).

The list shows the memory's text, and, for a search, how it was found; the columns with
the internals (type, tier, namespace, strength) are hidden until asked for from the
header's context menu, so the text has the room. The detail pane follows the list: when the
memory it shows leaves the list (another search, another filter) or nothing is selected any
more, it clears and its buttons go grey.

Filtered to one import run (the filter row, or File → Import history… → Show memories), the
view says so above the list and offers "Remove this import…": the same removal as the
history's and ``hearth imports undo``, after asking.

Delete removes the selected memories alone, asking nothing: the bar above the list says
where their words still are (an imported chat keeps the message a memory was made of) and
offers Undo, and Erase everywhere… for the other act, which lists each place first.

Keyboard: Ctrl+F searches, Escape clears the search, Enter searches at once; in the list,
Delete deletes the selected memories. Links in the detail pane (related
memories, the chain, "Details") are followed with Enter or a click.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPoint, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QSplitter,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.errors import InvalidInputError
from core.operations import imports, memories
from core.operations.changes import Domain
from core.operations.imports import ImportUndone
from core.operations.memories import (
    Cursor,
    DeletedMemories,
    ImportRunInfo,
    Listing,
    MemoriesDeleted,
    MemoriesPreview,
    MemoryDetail,
    MemoryFilter,
    MemoryRow,
    Page,
)
from desktop.context import AppContext
from desktop import confirm
from desktop.inspector.base import InspectorPage
from desktop.inspector.erase_dialog import EraseDialog, places_headline
from desktop.inspector.forget_dialog import ForgetResultDialog
from desktop.inspector.memory_detail import MemoryDetailPane
from desktop.inspector.memory_filters import MemoryFilterBar, run_description
from desktop.inspector.memory_table import (
    COLUMNS,
    FIT_TO_CONTENTS,
    HIDDEN_AT_FIRST,
    SEARCH_ONLY,
    MemoryTableModel,
)
from desktop.inspector.table import make_table_view
from desktop.words import count
from desktop.workers import Task

RELOAD_DELAY_MS = 300
"""Typing or changing filters must pause this long before the list reloads."""
SEARCH_RESULTS = 50


class MemoriesPage(InspectorPage):
    key = "memories"
    title = "Memories"
    about = "Everything Hearth remembers from your chats; search it as the assistant does."
    icon_name = "memories"
    domains = frozenset({Domain.MEMORIES})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self._detail_generation = 0
        self._list_generation = 0
        self._filter_refused = False
        self._shown_filter = MemoryFilter()
        """The filter of the rows shown: further pages are read under it, not under
        controls the user may be changing."""
        self._shown_query: str | None = None
        self._searching = False
        self._hidden_columns = set(HIDDEN_AT_FIRST)
        """Columns the user has not asked for (the header's context menu)."""
        self.delete_result: ForgetResultDialog | None = None
        """The last erase's offer to clean the backups, while it is shown (it holds the
        erased texts until closed)."""
        self.erase_dialog: EraseDialog | None = None
        """The last choice of places to erase from."""
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search memories by words and meaning (Ctrl+F); "
                                           "empty lists the newest first")
        self.search_box.setClearButtonEnabled(True)
        self.filters = MemoryFilterBar()
        self.summary = QLabel()
        self.run_bar = QWidget()
        self.run_text = QLabel()
        self.remove_run = QPushButton("Remove this import…")
        self.remove_run.setToolTip("Delete for good what this import added; importing the "
                                   "same file again leaves it out")
        self.remove_run.clicked.connect(self.remove_import)
        self._shown_run: ImportRunInfo | None = None
        """The import run the list is filtered to, as last read (None: not filtered)."""
        self.model = MemoryTableModel(self)
        self.view = self._make_view()
        self.detail_pane = MemoryDetailPane()
        self._reload_timer = QTimer(self, singleShot=True, interval=RELOAD_DELAY_MS)

        top = QHBoxLayout()
        top.addWidget(self.search_box, 1)
        top.addWidget(self.filters.import_run)
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
        run_row = QHBoxLayout(self.run_bar)
        run_row.setContentsMargins(0, 0, 0, 0)
        run_row.addWidget(self.run_text, 1)
        run_row.addWidget(self.remove_run)
        self.run_bar.hide()
        layout.addWidget(self.run_bar)
        layout.addWidget(self.notice)
        layout.addWidget(self.undo_bar)
        layout.addWidget(body, 1)

        self.search_box.textChanged.connect(self._reload_timer.start)
        self.search_box.returnPressed.connect(self.reload)
        self.filters.changed.connect(self._reload_timer.start)
        self._reload_timer.timeout.connect(self.reload)
        self.model.more_wanted.connect(self._fetch_more)
        self.view.selectionModel().currentRowChanged.connect(self._current_changed)
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.view.horizontalHeader().customContextMenuRequested.connect(self._column_menu)
        self.detail_pane.jump.connect(self.show_memory)
        self.detail_pane.invalidate_requested.connect(self.invalidate)
        self.detail_pane.restore_requested.connect(self.restore)
        self.detail_pane.pin_requested.connect(self.pin)
        self.detail_pane.delete_requested.connect(self.delete_selected)
        self.detail_pane.erase_requested.connect(self.erase_selected)
        ctx.hub.run_finished.connect(lambda _kind, _report: self.refresh())
        QShortcut(QKeySequence.StandardKey.Find, self, self._focus_search,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search_box, self.search_box.clear,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence.StandardKey.Delete, self.view, self.delete_selected,
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
        return lambda: memories.list_memories(hearth, query, memory_filter, SEARCH_RESULTS)

    def show_loaded(self, result: Listing) -> None:
        self._list_generation += 1
        another_list = (result.query, result.memory_filter) != (self._shown_query,
                                                                self._shown_filter)
        self._shown_filter, self._shown_query = result.memory_filter, result.query
        self._searching = bool(result.query)
        keep = self.selected()
        self.filters.set_namespaces(result.namespaces)
        self.filters.set_import_runs(result.import_runs)
        self._show_run(result)
        self.model.show(result.rows, result.next_page)
        self._show_columns()
        for column in FIT_TO_CONTENTS:
            self.view.resizeColumnToContents(column)
        if result.query:
            found = len(result.rows)
            self.summary.setText(f"{found} result{'s' * (found != 1)}")
        else:
            self.summary.setText(f"{result.total:,} memor{'y' if result.total == 1 else 'ies'}")
        if keep is not None and self.select(keep.id):
            return
        if self.detail_pane.detail is None:
            return
        if another_list:  # the user looked for something else: it is no longer asked for
            self._clear_detail()
        else:  # the same list after a change (invalidated, say): show its new state
            self._load_detail(self.detail_pane.detail.id)

    def _show_run(self, result: Listing) -> None:
        """Above the list: which import run it is filtered to, and its removal."""
        batch = result.memory_filter.import_batch
        self.run_bar.setVisible(batch is not None)
        if batch is None:
            self._shown_run = None
            return
        run = next((r for r in result.import_runs if r.id == batch), None)
        self._shown_run = run
        if run is None:
            self.run_text.setText(f"Import #{batch}: nothing it added is kept.")
        else:
            self.run_text.setText(f"What {run_description(run)} added: "
                                  f"{count(run.present, 'memory', 'memories')} kept.")
        self.remove_run.setEnabled(run is not None and run.present > 0)

    def show_import_run(self, batch: int) -> Task | None:
        """List what the import run ``batch`` added (in any state), from the newest."""
        self.search_box.blockSignals(True)
        self.search_box.clear()
        self.search_box.blockSignals(False)
        self.filters.show_import_run(batch)
        return self.reload()

    def remove_import(self) -> Task | None:
        """Ask, then delete what the shown import run added (``undo_import``: audited, and
        recorded so that importing the same file again leaves it out)."""
        run = self._shown_run
        if run is None or not confirm.ask(
                self, "Remove this import",
                f"Delete for good the {count(run.present, 'memory', 'memories')} that "
                f"{run_description(run)} added? Importing the same file again will leave "
                "them out.",
                "Remove"):
            return None
        self.remove_run.setEnabled(False)
        self._clear_detail()
        hearth, batch = self.ctx.hearth, run.id
        return self.change("Removing an import", lambda: imports.undo_import(hearth, batch),
                           _removed)

    def _fetch_more(self, after: Cursor) -> None:
        generation, memory_filter = self._list_generation, self._shown_filter
        hearth = self.ctx.hearth

        def appended(page: Page) -> None:
            if generation == self._list_generation:
                self.model.append_page(page.rows, page.next)

        def failed(message: str, hint: str) -> None:
            self.model.fetching = False  # scrolling down again tries again
            self.show_error(message, hint)

        self.ctx.workers.start(
            "Loading more memories",
            lambda _task: memories.more_memories(hearth, memory_filter, after),
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
            # no current row either: a reload would otherwise select it again and show
            # it in place of the memory asked for
            self.view.selectionModel().clear()
            self._load_detail(memory_id)

    def select_record(self, identity: Hashable) -> None:
        if isinstance(identity, int):
            self.show_memory(identity)

    def selected_ids(self) -> list[int]:
        """The memories Delete acts on: the selected rows, else the one shown alone."""
        rows = sorted(index.row() for index in self.view.selectionModel().selectedRows())
        if rows:
            return [self.model.record(row).id for row in rows]
        return [self.detail_pane.detail.id] if self.detail_pane.detail is not None else []

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self._load_detail(self.model.record(current.row()).id)

    def _selection_changed(self, *_args: object) -> None:
        if not self.view.selectionModel().hasSelection():
            shown = self.detail_pane.detail
            if shown is not None and self.model.row_of(shown.id) is not None:
                self._clear_detail()  # the selection went: so does what it showed
        self.detail_pane.set_delete_count(len(self.selected_ids()))

    def _clear_detail(self) -> None:
        self._detail_generation += 1  # a detail still loading is not shown either
        self.detail_pane.show_detail(None)

    def _load_detail(self, memory_id: int) -> None:
        self._detail_generation += 1
        generation = self._detail_generation
        hearth = self.ctx.hearth
        row_number = self.model.row_of(memory_id)
        row = self.model.record(row_number) if row_number is not None else None

        def shown(detail: MemoryDetail) -> None:
            if generation == self._detail_generation:
                self.detail_pane.show_detail(detail, row)
                self.detail_pane.set_delete_count(len(self.selected_ids()))

        self.run("Loading a memory",
                 lambda _task: memories.read_memory(hearth, memory_id), shown)

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
        hearth = self.ctx.hearth
        self.change("Invalidating a memory",
                    lambda: memories.invalidate(hearth, memory_id, reason.strip()),
                    lambda _m: f"Memory #{memory_id} invalidated.")

    def restore(self, memory_id: int) -> None:
        hearth = self.ctx.hearth
        self.change("Restoring a memory", lambda: memories.restore(hearth, memory_id),
                    lambda _m: f"Memory #{memory_id} is valid again.")

    def pin(self, memory_id: int) -> None:
        hearth = self.ctx.hearth
        self.change("Pinning a memory", lambda: memories.pin(hearth, memory_id),
                    lambda _m: f"Memory #{memory_id} is now always kept in mind.")

    def delete_selected(self) -> Task | None:
        """Delete the selected memories alone, asking nothing: the bar above the list says
        where their words still are and offers Undo (and Erase everywhere…); the pane
        clears at once if it showed one of them."""
        ids = self.selected_ids()
        if not ids:
            return None
        if self.detail_pane.detail is not None and self.detail_pane.detail.id in ids:
            self._clear_detail()
        hearth = self.ctx.hearth

        def deleted(done: DeletedMemories) -> str:
            what = "it" if done.item.count == 1 else "them"
            return self.offer_undo(done.item, said=memories.words_left(done.words_left, what),
                                   erase=lambda _item: self.erase(ids))

        return self.change("Deleting memories", lambda: memories.delete(hearth, ids), deleted)

    def erase_selected(self) -> None:
        ids = self.selected_ids()
        if ids:
            self.erase(ids)

    def erase(self, ids: list[int]) -> None:
        """Erase the memories ``ids`` everywhere, after listing each other place their words
        are (also for memories just deleted, until their undo ends)."""
        hearth = self.ctx.hearth
        self.run("Looking for their words everywhere",
                 lambda _task: memories.preview_erase(hearth, ids),
                 lambda preview: self._choose_places(ids, preview))

    def _choose_places(self, ids: list[int], preview: MemoriesPreview) -> None:
        whose = ("The words of this memory are" if len(ids) == 1
                 else f"The words of these {len(ids)} memories are")
        dialog = EraseDialog("Erase everywhere",
                             places_headline(whose, preview.places,
                                             "the memory itself" if len(ids) == 1
                                             else "the memories themselves"),
                             preview.places, self)
        self.erase_dialog = dialog
        hearth = self.ctx.hearth

        def chosen() -> None:
            skip, include = dialog.choice()
            self.undo_bar.dismiss()
            if self.detail_pane.detail is not None and self.detail_pane.detail.id in ids:
                self._clear_detail()
            self.change("Erasing memories",
                        lambda: memories.erase(hearth, ids, skip, include), self._erased)

        dialog.accepted.connect(chosen)
        dialog.open()

    def _erased(self, erased: MemoriesDeleted) -> str:
        """Say what went and what was left, with the offer to remove it from the backups
        that still hold it (the dialog keeps the texts until it is closed)."""
        self.delete_result = ForgetResultDialog.deleted(erased, self.ctx.workers, self,
                                                        erased=True)
        self.delete_result.open()
        return " ".join(memories.memories_deleted(erased.report, erased=True))

    # --- widgets -------------------------------------------------------------------------------

    def _make_view(self) -> QTableView:
        view = make_table_view(self.model, 1, fit_to_contents=False)
        view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        view.horizontalHeader().setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        for column in (*SEARCH_ONLY, *HIDDEN_AT_FIRST):
            view.setColumnHidden(column, True)
        return view

    def _show_columns(self) -> None:
        for column in range(len(COLUMNS)):
            hidden = ((column in SEARCH_ONLY and not self._searching)
                      or column in self._hidden_columns)
            self.view.setColumnHidden(column, hidden)

    def _column_menu(self, position: QPoint) -> None:
        """Show or hide the columns with the internals (the text column always shows)."""
        menu = QMenu(self)
        for column, spec in enumerate(COLUMNS):
            if column == 1 or (column in SEARCH_ONLY and not self._searching):
                continue
            action = menu.addAction(spec.title)
            action.setCheckable(True)
            action.setChecked(column not in self._hidden_columns)
            action.toggled.connect(lambda on, c=column: self.set_column_shown(c, on))
        menu.popup(self.view.horizontalHeader().mapToGlobal(position))

    def set_column_shown(self, column: int, shown: bool) -> None:
        (self._hidden_columns.discard if shown else self._hidden_columns.add)(column)
        self._show_columns()
        if shown:
            self.view.resizeColumnToContents(column)

    def _focus_search(self) -> None:
        self.search_box.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search_box.selectAll()


def _removed(undone: ImportUndone) -> str:
    text = f"Removed {count(undone.removed, 'memory', 'memories')}"
    if undone.chats:
        text += f" and {count(undone.chats, 'imported chat')}"
    return text + "."


