"""The side panel for the clicked memory: its text, tier, category, importance, strength,
and every edge it has (kind, weight, the memory at the other end). Activating an edge
(double-click or Enter) asks the page to jump to that neighbour."""

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

from core.views.graph import Neighbour, NodeDetails
from desktop.graph import style

Index = QModelIndex | QPersistentModelIndex


class NeighbourModel(QAbstractTableModel):
    """A memory's edges as rows: kind, weight, direction and the other memory's label."""

    HEADERS = ("Kind", "Weight", "Memory")

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
            arrow = "→" if row.outgoing else "←"
            return (f"{arrow} {row.kind}", f"{row.weight:.2f}", row.label)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{style.edge_style(row.kind).label}, weight {row.weight:.3f}\n{row.label}"
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
        self.heading = QLabel("Click a node to see the memory.")
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
            lambda index: self.neighbour_activated.emit(self.model.neighbour(index.row()).memory_id))
        self.edges.setToolTip("Enter or double-click jumps to that memory.")
        self.edges.setMinimumHeight(100)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.content)
        layout.addWidget(self.facts)
        layout.addWidget(self.edges, 1)
        layout.addStretch(0)
        self.clear()

    def clear(self, message: str = "Click a node to see the memory.") -> None:
        self.heading.setText(message)
        self.content.clear()
        self.facts.clear()
        self.model.set_rows(())
        for widget in (self.content, self.facts, self.edges):
            widget.setVisible(False)

    def show_details(self, details: NodeDetails) -> None:
        status = ("valid" if details.valid
                  else f"invalid ({escape(details.invalid_reason or 'no reason given')})")
        self.heading.setText(f"<b>Memory {details.id}</b> · {status}")
        self.heading.setToolTip(details.invalid_reason or "")
        for widget in (self.content, self.facts, self.edges):
            widget.setVisible(True)
        self.content.setPlainText(details.content)
        edges = len(details.neighbours)
        self.facts.setText(
            f"Tier <b>{escape(details.tier)}</b> · category <b>{escape(details.category)}</b>"
            f" · {escape(details.memory_type)}<br>"
            f"Namespace {escape(details.namespace)}<br>"
            f"Importance {details.importance:.2f} · strength {details.strength:.2f}<br>"
            f"Created {details.created_at:%Y-%m-%d %H:%M} UTC · "
            f"{edges} edge{'s' if edges != 1 else ''}")
        self.model.set_rows(details.neighbours)
