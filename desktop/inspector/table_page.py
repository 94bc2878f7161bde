"""An inspector view built around one table: a search box, an optional filter, buttons for
the selected record, the table, and an optional detail pane beside it.

Keyboard: Ctrl+F focuses the search box, Delete asks to delete the selected record, F2 edits
the current cell (or the row's first editable one), Escape in the search box clears it.

Search happens in the table (the proxy filters the loaded rows as the user types) unless a
view sets ``search_in_core``: then the text goes to core's own search in the next load
(debounced), because core matches more cleverly than a substring of the cells would.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, ClassVar

from PySide6.QtCore import QItemSelectionModel, Qt, QTimer
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop.context import AppContext
from desktop.icons import icon
from desktop.inspector.base import InspectorPage
from desktop.inspector.table import Column, FilterProxy, RowModel, edit_row, make_table_view
from desktop.workers import Task

SEARCH_DELAY_MS = 250
"""How long typing must pause before a core search runs (one query per pause, not per key)."""

Choice = tuple[str, str | None]
"""A filter entry: its label and the value ``load`` receives (None: no filter)."""


class TablePage(InspectorPage):
    """Subclasses give ``columns()``, ``load_records(query, choice)`` and, if they like,
    ``filter_choices``, buttons (``add_button``), a detail pane (``detail_widget`` /
    ``show_detail``) and ``delete_selected``."""

    filter_choices: ClassVar[tuple[Choice, ...]] = ()
    search_in_core: ClassVar[bool] = False
    search_hint: ClassVar[str] = "Search"
    stretch_column: ClassVar[int] = 1
    """The column that takes the width left over (the long text: a value, a rule)."""
    sort_column: ClassVar[int] = 0
    """The column the table is sorted by until the user clicks another header."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.model: RowModel[Any] = RowModel(self.columns(), self.identity, self)
        self.proxy = FilterProxy(self.model, self)
        self.view = make_table_view(self.proxy, self.stretch_column)
        self.view.setSortingEnabled(True)
        self.view.sortByColumn(self.sort_column, Qt.SortOrder.AscendingOrder)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked)
        self.search = QLineEdit()
        self.search.setPlaceholderText(f"{self.search_hint} (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.filter = QComboBox()
        for label, value in self.filter_choices:
            self.filter.addItem(label, value)
        self.filter.setVisible(bool(self.filter_choices))
        self._selection_buttons: list[QPushButton] = []
        self._search_timer = QTimer(self, singleShot=True, interval=SEARCH_DELAY_MS)

        self.buttons = QHBoxLayout()
        self.buttons.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.search, 1)
        top.addWidget(self.filter)
        top.addLayout(self.buttons)
        body = QSplitter(Qt.Orientation.Horizontal)
        body.setChildrenCollapsible(False)
        body.addWidget(self.view)
        detail = self.detail_widget()
        if detail is not None:
            body.addWidget(detail)
            body.setStretchFactor(0, 3)
            body.setStretchFactor(1, 2)
            body.setSizes([600, 400])  # a share, scaled to the width the view gets
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.notice)
        layout.addWidget(self.undo_bar)
        layout.addWidget(body, 1)

        self.search.textChanged.connect(self._search_timer.start)
        self._search_timer.timeout.connect(self._search_changed)
        self.filter.currentIndexChanged.connect(lambda _i: self.reload())
        self.view.selectionModel().selectionChanged.connect(self._selection_changed)
        self.watch_editors(self.view.itemDelegate())
        self.proxy.modelReset.connect(self._selection_changed)
        QShortcut(QKeySequence.StandardKey.Find, self, self._focus_search,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.StandardKey.Delete, self.view, self.delete_selected,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_F2), self.view, self.edit_current,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.search, self.search.clear,
                  context=Qt.ShortcutContext.WidgetShortcut)

    # --- for subclasses ----------------------------------------------------------------------

    def columns(self) -> Sequence[Column[Any]]:
        raise NotImplementedError

    def identity(self, record: Any) -> Hashable:
        """What names a record across reloads (to keep it selected)."""
        return record.id

    def load_records(self, query: str, choice: str | None) -> Sequence[Any]:
        """The records to show (on a worker). ``query`` is the search text when
        ``search_in_core`` is set, else empty; ``choice`` is the filter's value."""
        raise NotImplementedError

    def detail_widget(self) -> QWidget | None:
        """A pane beside the table for the selected record (None: no pane)."""
        return None

    def show_detail(self, record: Any | None) -> None:
        """The selection moved to ``record`` (None: nothing selected)."""

    def delete_selected(self) -> None:
        """The Delete key was pressed in the table (default: nothing can be deleted)."""

    def add_button(self, text: str, icon_name: str | None, slot: Callable[[], None], *,
                   needs_selection: bool = True, tooltip: str = "") -> QPushButton:
        """A button in the top row; ``needs_selection`` ones are enabled only while a
        record is selected (``selection_allows`` may narrow that)."""
        button = QPushButton(text)
        if icon_name:
            button.setIcon(icon(icon_name))
        button.setToolTip(tooltip)
        button.clicked.connect(lambda _checked=False: slot())
        if needs_selection:
            button.setEnabled(False)
            self._selection_buttons.append(button)
        self.buttons.addWidget(button)
        return button

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        """Whether ``button`` applies to ``record`` (e.g. no Promote on an active rule)."""
        return True

    def edit_current(self) -> None:
        """F2: edit the current cell, or the row's first editable one."""
        edit_row(self.view)

    # --- the selection -----------------------------------------------------------------------

    def selected(self) -> Any | None:
        """The record of the current row, or None."""
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return None
        return self.model.record(self.proxy.mapToSource(rows[0]).row())

    def select(self, identity: Hashable) -> bool:
        """Select and show the record named ``identity``; False if it is not shown."""
        row = self.model.row_of(identity)
        if row is None:
            return False
        index = self.proxy.mapFromSource(self.model.index(row, 0))
        if not index.isValid():
            return False
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        self.view.scrollTo(index)
        return True

    def reveal(self, identity: Hashable) -> Task | None:
        """As ``InspectorPage.reveal``, first emptying the search box and the filter: the
        record asked for must not be hidden by what was typed here earlier."""
        self._search_timer.stop()
        for control in (self.search, self.filter):
            control.blockSignals(True)
        self.search.clear()
        self.filter.setCurrentIndex(0)
        for control in (self.search, self.filter):
            control.blockSignals(False)
        self.proxy.setFilterFixedString("")
        return super().reveal(identity)

    def select_record(self, identity: Hashable) -> None:
        self.select(identity)

    # --- loading -----------------------------------------------------------------------------

    def loader(self) -> Callable[[], Sequence[Any]]:
        query = self.search.text().strip() if self.search_in_core else ""
        choice = self.filter.currentData() if self.filter_choices else None
        load_records = self.load_records
        return lambda: load_records(query, choice)

    def show_loaded(self, result: Sequence[Any]) -> None:
        if self.view.state() == QAbstractItemView.State.EditingState:
            # replacing the rows would close the editor and lose what the user is typing
            self.postpone()
            return
        current = self.selected()
        keep = self.identity(current) if current is not None else None
        self.model.set_rows(result)  # the reset clears the selection and the detail pane
        if keep is not None:
            self.select(keep)

    # --- internals ---------------------------------------------------------------------------

    def _focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    def _search_changed(self) -> None:
        if self.search_in_core:
            self.reload()
        else:
            self.proxy.setFilterFixedString(self.search.text().strip())

    def _selection_changed(self, *_args: object) -> None:
        record = self.selected()
        for button in self._selection_buttons:
            button.setEnabled(record is not None and self.selection_allows(button, record))
        self.show_detail(record)
