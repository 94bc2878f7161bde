"""The "why" of a reply: the facts, memories and summaries the model was given for it,
grouped, with their retrieval scores, token counts and where each came from.

The items come from ``core.views.reply_context`` (read in the background by the page); an
item deleted or edited since the reply says so, because the panel shows it as it is now."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QSplitter,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from core.views.reply_context import UsedItem, group_title, kinds_in
from desktop.words import count

ITEM_ROLE = Qt.ItemDataRole.UserRole
COLUMNS = ("Item", "Score", "Tokens")
PREVIEW_CHARS = 90


def _summary_line(item: UsedItem) -> str:
    if not item.exists:
        return "(deleted since)"
    flat = " ".join((item.passage or item.text).split())
    shown = flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS].rstrip() + "…"
    return f"… {shown}" if item.passage else shown


def _cell(text: str, *, right: bool = False) -> QStandardItem:
    cell = QStandardItem(text)
    cell.setEditable(False)
    if right:
        cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return cell


class WhyPanel(QWidget):
    """A tree of what a reply used (grouped by kind) over a detail pane for the selection."""

    closed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("why-panel")
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentRowChanged.connect(self._show_detail)
        self.title = QLabel("<b>Why this reply</b>")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Close this panel")
        close.clicked.connect(self._close)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setMargin(6)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(close)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(self.detail)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.items: list[UsedItem] = []

    def show_loading(self) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self.items = []
        self.summary.setText("Reading what this reply was given…")
        self.detail.clear()

    def show_items(self, items: list[UsedItem] | None) -> None:
        """Fill the tree; None means the reply has no record of its context."""
        self.model.removeRows(0, self.model.rowCount())
        self.items = list(items or [])
        self.detail.clear()
        if items is None:
            self.summary.setText("No record of what this reply was given: it failed before "
                                 "its prompt was built.")
            return
        tokens = sum(item.tokens for item in self.items)
        self.summary.setText(f"{count(len(self.items), 'item')}, about {tokens:,} tokens of the "
                             "prompt. Select one for where it came from."
                             if self.items else "This reply was given no stored memories.")
        for kind in kinds_in(self.items):
            group = [item for item in self.items if item.kind == kind]
            parent = _cell(f"{group_title(kind)} ({len(group)})")
            for item in group:
                score = "" if item.score is None else f"{item.score:.3f}"
                first = _cell(_summary_line(item))
                first.setData(item, ITEM_ROLE)
                first.setToolTip(item.text)
                parent.appendRow([first, _cell(score, right=True),
                                  _cell(str(item.tokens), right=True)])
            self.model.appendRow([parent, _cell(""), _cell("")])
        self.tree.expandAll()

    def _show_detail(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = current.siblingAtColumn(0).data(ITEM_ROLE)
        if not isinstance(item, UsedItem):
            self.detail.clear()
            return
        notes = [item.provenance]
        if item.changed:
            notes.append("Edited since this reply: the model saw an earlier version.")
        if item.score is not None:
            notes.append(f"Retrieval score {item.score:.3f}; {item.tokens} tokens.")
        else:
            notes.append(f"Always included; {item.tokens} tokens.")
        shown = [item.text or "(deleted since this reply)"]
        if item.passage is not None:  # what the model saw first: a long text is cut below
            cut = item.passage.endswith("…")  # already marked as cut short
            shown = [f"The model was given the part that matched:\n… {item.passage}"
                     f"{'' if cut else ' …'}",
                     f"From:\n{item.text}"]
        self.detail.setText("\n\n".join([*shown, *notes]))

    def _close(self) -> None:
        self.hide()
        self.closed.emit()
