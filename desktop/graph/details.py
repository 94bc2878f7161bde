"""The side panel for the clicked memory: its text, kind, topic, importance, strength, and
every link it has (what joins them, weight, the memory at the other end), each listed once
(``core.views.graph.Neighbour``). Activating a link (double-click or Enter) asks the page to
jump to that neighbour. The internal names (tier, namespace, edge kind) are in tooltips."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.operations.memories import Neighbour, NodeDetails
from desktop.graph import style
from desktop.words import MEMORY_TYPE_WORDS, count, spaced, spoken, tier_text

Index = QModelIndex | QPersistentModelIndex


def link_text(link: Neighbour) -> str:
    """What joins the two memories, read from the clicked one: "similar", "found
    overnight", or for a summary which side it is on."""
    if link.kind == "summary_of":
        return "summary of it" if link.outgoing else "summarised in"
    return style.edge_style(link.kind).label


class NeighbourModel(QAbstractTableModel):
    """A memory's links as rows: what joins them, weight and the other memory's label."""

    HEADERS = ("Link", "Weight", "Memory")

    def __init__(self) -> None:
        super().__init__()
        self._rows: tuple[Neighbour, ...] = ()

    def set_rows(self, rows: tuple[Neighbour, ...]) -> None:
        self.beginResetModel()
        self._rows = rows
        self.endResetModel()

    def neighbour(self, row: int) -> Neighbour:
        return self._rows[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008 (Qt's API)
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: N802, B008
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802
                   role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.HEADERS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> object:
        if not index.isValid():
            return None
        row, column = self._rows[index.row()], index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return (link_text(row), f"{row.weight:.2f}", spoken(row.label, row.speaker))[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            ways = {(True, True): "both ways", (True, False): "from this memory",
                    (False, True): "to this memory"}[(row.outgoing, row.incoming)]
            internal = style.EDGE_INTERNALS.get(row.kind, f"edge kind {row.kind}")
            return (f"{link_text(row)}, weight {row.weight:.3f} ({internal}; {ways})\n"
                    f"{spoken(row.label, row.speaker)}")
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None


class DetailsPanel(QWidget):
    """Shows one ``NodeDetails``; ``neighbour_activated(memory_id)`` on an edge's activation."""

    neighbour_activated = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # No word wrap in this panel: wrapped labels make the side column's layout trade
        # height for width and squeeze the legend above; the lines are short by design.
        self.heading = QLabel("Click a dot to see the memory.")
        self.content = QPlainTextEdit()
        self.content.setReadOnly(True)
        self.content.setMaximumHeight(68)
        self.facts = QLabel()
        self.facts.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.model = NeighbourModel()
        self.edges = QTableView()
        self.edges.setModel(self.model)
        self.edges.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.edges.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.edges.verticalHeader().hide()
        self.edges.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.edges.setWordWrap(False)
        header = self.edges.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.edges.activated.connect(
            lambda index: self.neighbour_activated.emit(
                self.model.neighbour(index.row()).memory_id))
        self.edges.setToolTip("Enter or double-click goes to that memory.")
        self.edges.setMinimumHeight(100)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.content)
        layout.addWidget(self.facts)
        layout.addWidget(self.edges, 1)
        layout.addStretch(0)
        self.clear()

    def clear(self, message: str = "Click a dot to see the memory.") -> None:
        self.heading.setText(message)
        self.content.clear()
        self.facts.clear()
        self.model.set_rows(())
        for widget in (self.content, self.facts, self.edges):
            widget.setVisible(False)

    def show_details(self, details: NodeDetails) -> None:
        status = ("current" if details.valid else "no longer used "
                  f"({escape(details.invalid_reason or 'replaced or marked wrong')})")
        self.heading.setText(f"<b>Memory {details.id}</b> · {status}")
        self.heading.setToolTip(details.invalid_reason or "")
        for widget in (self.content, self.facts, self.edges):
            widget.setVisible(True)
        self.content.setPlainText(spoken(details.content, details.speaker))
        kind = MEMORY_TYPE_WORDS.get(details.memory_type, details.memory_type)
        self.facts.setText(
            f"<b>{escape(tier_text(details.tier))}</b> · {escape(spaced(details.category))}"
            f" · {escape(kind)}<br>"
            f"Importance {details.importance:.2f} · strength {details.strength:.2f}<br>"
            f"Saved {details.created_at:%Y-%m-%d %H:%M} UTC · "
            f"{count(len(details.neighbours), 'link')}")
        self.facts.setToolTip(f"tier {details.tier} · category {details.category} · type "
                              f"{details.memory_type} · namespace {details.namespace}")
        self.model.set_rows(details.neighbours)
