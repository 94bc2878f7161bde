"""A Qt table model over a list of core records (facts, habits, versions, …), described by
columns, plus the proxy, the delegate and the view set-up the inspector's tables share.

Why one generic model: every inspector table shows detached ORM rows or dataclasses that a
background job loaded; only the columns differ. Editing does not write anything here (the
model lives on the UI thread, writing is a job for a worker): an edit is announced with
``edit_requested`` and shown as pending until the page reloads the saved rows.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from PySide6.QtCore import (
    QAbstractItemModel,
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHeaderView,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QWidget,
)

T = TypeVar("T")
Index = QModelIndex | QPersistentModelIndex
SORT_ROLE = Qt.ItemDataRole.UserRole + 1
"""The role a column's sort key is read under (numbers for times and counts)."""
MAX_COLUMN_WIDTH = 380
"""Columns sized to their contents stop here (a long context must not push the rest away)."""
TOOLTIP_CHARS = 30
"""Cells longer than this show their whole text as a tooltip (the cell may be elided)."""


@dataclass(frozen=True)
class Column(Generic[T]):
    """One column: its title, the text a record shows in it, how it sorts, and, for an
    editable column, the field name an edit is announced under."""

    title: str
    text: Callable[[T], str]
    sort_key: Callable[[T], Any] | None = None
    field: str | None = None


class RowModel(QAbstractTableModel, Generic[T]):
    """Records as rows. ``identity`` names a record across reloads (its id), so a page can
    keep the selection when the rows are replaced."""

    edit_requested = Signal(object, str, str)  # (record, field, new text)

    def __init__(self, columns: Sequence[Column[T]], identity: Callable[[T], Hashable],
                 parent: Any = None) -> None:
        super().__init__(parent)
        self._columns = tuple(columns)
        self._identity = identity
        self._rows: list[T] = []
        self._pending: dict[tuple[Hashable, int], str] = {}

    # --- contents ------------------------------------------------------------------------

    def set_rows(self, rows: Sequence[T]) -> None:
        """Replace every record (after a reload); pending edits are now saved or failed."""
        self.beginResetModel()
        self._rows = list(rows)
        self._pending.clear()
        self.endResetModel()

    def append_rows(self, rows: Sequence[T]) -> None:
        """Add records after the last one (a further page) without resetting the view."""
        if not rows:
            return
        first = len(self._rows)
        self.beginInsertRows(QModelIndex(), first, first + len(rows) - 1)
        self._rows.extend(rows)
        self.endInsertRows()

    def record(self, row: int) -> T:
        return self._rows[row]

    def records(self) -> list[T]:
        return list(self._rows)

    def identity(self, record: T) -> Hashable:
        return self._identity(record)

    def row_of(self, identity: Hashable) -> int | None:
        """The row of the record named ``identity``, or None if it is not shown."""
        for row, record in enumerate(self._rows):
            if self._identity(record) == identity:
                return row
        return None

    # --- QAbstractTableModel -------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._columns)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self._columns[section].title
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        record, column = self._rows[index.row()], self._columns[index.column()]
        if role in (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.EditRole):
            return self._text(record, index.column())
        if role == Qt.ItemDataRole.ToolTipRole:
            text = self._text(record, index.column())
            return text if len(text) > TOOLTIP_CHARS else None
        if role == SORT_ROLE:
            return (column.sort_key or column.text)(record)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        flags = super().flags(index)
        if index.isValid() and self._columns[index.column()].field is not None:
            flags |= Qt.ItemFlag.ItemIsEditable
        return flags

    def setData(self, index: Index, value: Any,  # noqa: N802
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        field = self._columns[index.column()].field if index.isValid() else None
        if field is None or role != Qt.ItemDataRole.EditRole:
            return False
        record, text = self._rows[index.row()], str(value)
        if text == self._text(record, index.column()):
            return False
        self._pending[(self._identity(record), index.column())] = text
        self.dataChanged.emit(index, index)
        self.edit_requested.emit(record, field, text)
        return True

    def _text(self, record: T, column: int) -> str:
        pending = self._pending.get((self._identity(record), column))
        return pending if pending is not None else self._columns[column].text(record)


class FilterProxy(QSortFilterProxyModel):
    """Sorts by each column's sort key and filters on any column's text, ignoring case."""

    def __init__(self, source: QAbstractItemModel, parent: Any = None) -> None:
        super().__init__(parent)
        self.setSourceModel(source)
        self.setSortRole(SORT_ROLE)
        self.setFilterKeyColumn(-1)
        self.setFilterCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        self.setSortCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)


class ChoiceDelegate(QStyledItemDelegate):
    """Edits a cell by picking one of a fixed set of values (a fact's category)."""

    def __init__(self, choices: Sequence[str], parent: Any = None) -> None:
        super().__init__(parent)
        self._choices = tuple(choices)

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,  # noqa: N802
                     index: Index) -> QWidget:
        editor = QComboBox(parent)
        editor.addItems(self._choices)
        return editor

    def setEditorData(self, editor: QWidget, index: Index) -> None:  # noqa: N802
        assert isinstance(editor, QComboBox)
        editor.setCurrentText(str(index.data(Qt.ItemDataRole.EditRole)))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel,  # noqa: N802
                     index: Index) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentText(), Qt.ItemDataRole.EditRole)


def make_table_view(model: QAbstractItemModel, stretch_column: int, *,
                    fit_to_contents: bool = True) -> QTableView:
    """A read-only table of whole-row selection, compact rows, and one column taking the
    width the others leave. The others are sized to their contents, or, with
    ``fit_to_contents=False``, left for the user to size: fitting measures every row, too
    much for a long or paged table (memories, the event queue, runs)."""
    view = QTableView()
    view.setModel(model)
    view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    view.setAlternatingRowColors(True)
    view.setWordWrap(False)
    view.setTabKeyNavigation(False)  # Tab leaves the table, to the next control
    rows = view.verticalHeader()
    rows.hide()
    rows.setDefaultSectionSize(view.fontMetrics().height() + 10)
    header = view.horizontalHeader()
    header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents if fit_to_contents
                                else QHeaderView.ResizeMode.Interactive)
    header.setSectionResizeMode(stretch_column, QHeaderView.ResizeMode.Stretch)
    header.setMaximumSectionSize(MAX_COLUMN_WIDTH)
    header.setHighlightSections(False)
    return view


def edit_row(view: QAbstractItemView) -> None:
    """Edit the current cell, or its row's first editable cell when the current one cannot
    be edited (a fact's key, a list item's index), so F2 on a selected row always edits."""
    current = view.currentIndex()
    if not current.isValid():
        return
    for column in (current.column(), *range(view.model().columnCount(current.parent()))):
        index = current.siblingAtColumn(column)
        if index.flags() & Qt.ItemFlag.ItemIsEditable:
            view.setCurrentIndex(index)
            view.edit(index)
            return
