"""The memory list's model: search results or a browsable list that grows a page at a time.

Qt asks ``canFetchMore`` when the user scrolls near the end; the model then asks its page
(``more_wanted``) to read the next page in the background and ``append_page`` adds it. So a
folder with 100k memories shows its first 200 at once and the rest only as far as anyone
scrolls.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette

from core.operations.memories import Cursor, MemoryRow, Validity
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.memory_signals import summarise
from desktop.inspector.notice import WARNING
from desktop.inspector.table import Column, RowModel
from desktop.words import spoken

PREVIEW_CHARS = 160


def _preview(row: MemoryRow) -> str:
    """The memory's beginning, or, for a long one found by a later part, that part; an
    imported note without its Markdown marks (``MemoryRow.shown``)."""
    flat = " ".join((row.shown if row.excerpt else spoken(row.shown, row.speaker)).split())
    shown = flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS - 1] + "…"
    return f"… {shown}" if row.excerpt else shown


COLUMNS: tuple[Column[MemoryRow], ...] = (
    Column("Score", lambda r: "" if r.score is None else f"{r.score:.3f}",
           lambda r: r.score or 0.0),
    Column("Memory", _preview),
    Column("Found by", lambda r: summarise(r.signals)),
    Column("Type", lambda r: r.memory_type),
    Column("Tier", lambda r: r.tier),
    Column("Namespace", lambda r: r.namespace),
    Column("State", lambda r: r.state),
    Column("Strength", lambda r: f"{r.strength:.2f}", lambda r: r.strength),
    Column("Created", lambda r: local_time(r.created_at), lambda r: time_key(r.created_at)),
)
SEARCH_ONLY = (0, 2)
"""Columns shown for search results only (score and signals)."""
NUMERIC = (0, 7)
HIDDEN_AT_FIRST = (3, 4, 5, 7)
"""Type, tier, namespace and strength: internals the detail pane's "Details" also shows;
the list gives their room to the text until the user asks for them (header menu)."""
FIT_TO_CONTENTS = (0, 3, 4, 6, 7, 8)
"""Short columns sized to what a load brought (once per load, not per row added)."""


def _state_colour(state: str) -> QColor | None:
    """Invalidated memories in the warning colour, superseded ones muted; valid ones in
    the palette's own text colour."""
    if state == Validity.INVALID.value:
        return QColor(WARNING)
    if state == Validity.SUPERSEDED.value:
        return QGuiApplication.palette().color(QPalette.ColorRole.PlaceholderText)
    return None


class MemoryTableModel(RowModel[MemoryRow]):
    """Rows of ``MemoryRow``; in browse mode, ``next_page`` says where to read on."""

    more_wanted = Signal(object)  # the Cursor to read after

    def __init__(self, parent: object = None) -> None:
        super().__init__(COLUMNS, lambda row: row.id, parent)
        self.next_page: Cursor | None = None
        self.fetching = False

    def show(self, rows: Sequence[MemoryRow], next_page: Cursor | None) -> None:
        """Replace the rows (a new search or filter); ``next_page`` None: nothing more."""
        self.next_page, self.fetching = next_page, False
        self.set_rows(rows)

    def append_page(self, rows: Sequence[MemoryRow], next_page: Cursor | None) -> None:
        """Add the page read after the last row."""
        self.fetching = False
        self.next_page = next_page
        self.append_rows(rows)

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in NUMERIC:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and index.isValid():
            return _state_colour(self.record(index.row()).state)
        return super().data(index, role)

    def canFetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()  # noqa: B008, N802
                     ) -> bool:
        return not parent.isValid() and self.next_page is not None and not self.fetching

    def fetchMore(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()  # noqa: B008, N802
                  ) -> None:
        if self.canFetchMore(parent):
            self.fetching = True
            self.more_wanted.emit(self.next_page)
