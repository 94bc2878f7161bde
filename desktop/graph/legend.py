"""The graph's legend, which is also its filter: one checkable list each for kinds of memory
(tiers), topics (categories) and links (edge kinds), each entry a swatch, a plain name and a
count, and the weakest link shown (the minimum edge weight).

A legend the user can click is the shortest way to "hide the originals" or "show only links
found overnight", and it cannot disagree with the colours because both come from ``style``.
Entries say what a thing is in words; their tooltips give the internal name.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPen, QPixmap, QStandardItem, \
    QStandardItemModel
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QListView,
    QVBoxLayout,
    QWidget,
)

from core.operations.memories import Codes, GraphSnapshot
from desktop.graph import style
from desktop.graph.filters import GraphFilter
from desktop.words import spaced, tier_text

SWATCH = QSize(22, 14)


def dot_icon(colour: QColor) -> QIcon:
    pixmap = QPixmap(SWATCH)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(colour)
    painter.drawEllipse(QPointF(SWATCH.width() / 2, SWATCH.height() / 2), 5, 5)
    painter.end()
    return QIcon(pixmap)


def blank_icon() -> QIcon:
    """A transparent swatch: uncoloured lists keep the same row height and text column."""
    pixmap = QPixmap(SWATCH)
    pixmap.fill(Qt.GlobalColor.transparent)
    return QIcon(pixmap)


def line_icon(colour: QColor, dash: Qt.PenStyle) -> QIcon:
    pixmap = QPixmap(SWATCH)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    pen = QPen(colour, 2)
    pen.setStyle(dash)
    painter.setPen(pen)
    painter.drawLine(1, SWATCH.height() // 2, SWATCH.width() - 1, SWATCH.height() // 2)
    painter.end()
    return QIcon(pixmap)


class CheckList(QListView):
    """Checkable names with a swatch and a count; ``chosen()`` is the checked names."""

    changed = Signal()

    def __init__(self, rows: int, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._model = QStandardItemModel(self)
        self.setModel(self._model)
        self.setIconSize(SWATCH)
        self.setEditTriggers(QListView.EditTrigger.NoEditTriggers)
        self.setUniformItemSizes(True)
        self._filling = False
        self._model.itemChanged.connect(self._item_changed)
        # A constant height (more entries scroll): the side panel's layout never has to
        # follow a list that grows after a load.
        row = max(self.fontMetrics().height(), SWATCH.height()) + 2
        self.setFixedHeight(rows * row + 2 * self.frameWidth() + 4)

    def fill(self, names: tuple[str, ...], counts: np.ndarray, icons: list[QIcon | None],
             words: Callable[[str], str] = str, internal: Callable[[str], str] = str) -> None:
        """Replace the entries (no ``changed``); names that were unchecked stay unchecked.
        Each shows ``words(name)``; ``internal(name)`` is in its tooltip."""
        hidden = {self._model.item(row).data() for row in range(self._model.rowCount())
                  if self._model.item(row).checkState() != Qt.CheckState.Checked}
        self._filling = True  # not blockSignals: the view must still hear of the new rows
        self._model.clear()
        for name, count, swatch in zip(names, counts, icons, strict=True):
            item = QStandardItem(f"{words(name)}  ({int(count):,})")
            item.setData(name)
            item.setCheckable(True)
            item.setCheckState(Qt.CheckState.Unchecked if name in hidden
                               else Qt.CheckState.Checked)
            item.setIcon(swatch if swatch is not None else blank_icon())
            item.setToolTip(f"{internal(name)}\nUncheck to hide; Space toggles the current "
                            "entry.")
            self._model.appendRow(item)
        self._filling = False

    def _item_changed(self, _item: QStandardItem) -> None:
        if not self._filling:
            self.changed.emit()

    def recolour(self, icons: list[QIcon | None]) -> None:
        self._filling = True
        for row, swatch in enumerate(icons):
            self._model.item(row).setIcon(swatch if swatch is not None else blank_icon())
        self._filling = False

    def chosen(self) -> frozenset[str]:
        return frozenset(self._model.item(row).data() for row in range(self._model.rowCount())
                         if self._model.item(row).checkState() == Qt.CheckState.Checked)

    def set_checked(self, name: str, checked: bool) -> None:
        for row in range(self._model.rowCount()):
            if self._model.item(row).data() == name:
                self._model.item(row).setCheckState(
                    Qt.CheckState.Checked if checked else Qt.CheckState.Unchecked)


class FilterPanel(QWidget):
    """Tiers, categories, edge kinds and minimum weight; ``changed`` on every edit."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tiers = CheckList(rows=4)  # recall, archival, source, core
        self.categories = CheckList(rows=7)  # a typical memory's topics, all in sight
        self.kinds = CheckList(rows=3)  # knn, dream, summary_of
        self.min_weight = QDoubleSpinBox()
        self.min_weight.setRange(0.0, 1.0)
        self.min_weight.setSingleStep(0.05)
        self.min_weight.setDecimals(2)
        self.min_weight.setToolTip("Hide links weaker than this. Similar memories are linked "
                                   "at 0.70 and up (kNN cosine); links found overnight (REM) "
                                   "weigh at most 0.27.")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for title, widget in (("Kind of memory", self.tiers), ("Topics", self.categories),
                              ("Links", self.kinds)):
            box = QGroupBox(title)
            inner = QVBoxLayout(box)
            inner.addWidget(widget)
            if widget is self.kinds:
                form = QFormLayout()
                form.addRow("Weakest link shown:", self.min_weight)
                inner.addLayout(form)
            layout.addWidget(box)
            widget.changed.connect(self.changed)
        self.min_weight.valueChanged.connect(lambda _value: self.changed.emit())
        self._snapshot: GraphSnapshot | None = None
        self._mode = "tier"

    def set_snapshot(self, snapshot: GraphSnapshot, mode: str) -> None:
        """New entries and counts (choices kept by name); ``changed`` is not emitted, the
        caller reads ``current()``."""
        self._snapshot, self._mode = snapshot, mode
        self.tiers.fill(snapshot.tiers.names, _counts(snapshot.tiers), self._icons("tier"),
                        tier_text, lambda tier: f"the {tier} tier")
        self.categories.fill(snapshot.categories.names, _counts(snapshot.categories),
                             self._icons("category"), spaced, lambda name: f"category {name}")
        self.kinds.fill(snapshot.kinds.names, _counts(snapshot.kinds, ~snapshot.twin),
                        [line_icon(style.edge_colour(kind, self.palette()),
                                   style.edge_style(kind).dash)
                         for kind in snapshot.kinds.names],
                        lambda kind: style.edge_style(kind).label,
                        lambda kind: style.EDGE_INTERNALS.get(kind, f"edge kind {kind}"))

    def set_colour_mode(self, mode: str) -> None:
        """Swatches only on the list the nodes are coloured by."""
        self._mode = mode
        if self._snapshot is not None:
            self.tiers.recolour(self._icons("tier"))
            self.categories.recolour(self._icons("category"))

    def current(self) -> GraphFilter:
        return GraphFilter(self.tiers.chosen(), self.categories.chosen(), self.kinds.chosen(),
                           float(self.min_weight.value()))

    def _icons(self, mode: str) -> list[QIcon | None]:
        assert self._snapshot is not None
        codes = self._snapshot.tiers if mode == "tier" else self._snapshot.categories
        if mode != self._mode:
            return [None] * len(codes.names)
        return [dot_icon(style.node_colour(mode, name, codes.names)) for name in codes.names]


def _counts(codes: Codes, keep: np.ndarray | None = None) -> np.ndarray:
    """Entries per name; ``keep`` (a mask) leaves some out (links stored twice)."""
    chosen = codes.codes if keep is None else codes.codes[keep]
    return np.bincount(chosen, minlength=len(codes.names))
