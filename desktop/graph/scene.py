"""The drawing: a pyqtgraph plot of the memory graph that stays interactive at 5,000 nodes.

What keeps a frame cheap: every node is one spot of a single ``ScatterPlotItem`` (drawn
from a cached symbol atlas: sizes are rounded to whole pixels and colours come from a
handful of brushes, so the atlas stays small), and edges are a few ``PlotCurveItem``s with
``connect="pairs"``, one per (kind, weight band), each a single polyline of all its
segments. The number of items never grows with the graph: the edge kinds (three today:
``knn``, ``dream``, ``summary_of``) by three bands. Lines are 1 px and not antialiased,
which Qt draws fastest.

The most important memories carry a short text label (``placed_labels``): without them a
few hundred linked dots are a tangle nobody can read. Labels are text items of a fixed
pixel size, so they stay readable at any zoom; which ones fit is decided in pixels, on the
plot as it is drawn now (again after every zoom, pan or resize), so no label runs into
another or past the plot's edge, whatever the window's size: placing them by the graph's
own extent let labels overlap on a small window and cut off at the edges. A label near an
edge is moved to start or end at its memory instead of being centred over it. A click on a
label opens the memory it names, and a click on dots drawn over each other opens the one
nearest the pointer (the first in the list was often a neighbour).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import SupportsInt

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QBrush, QColor, QFontMetricsF, QPalette
from PySide6.QtWidgets import QWidget

from core.operations.memories import GraphSnapshot
from desktop.graph import style
from desktop.plot_menus import own_plot_menu
from desktop.words import spoken

WEIGHT_BANDS = (0.25, 0.45, 0.7)
"""Opacity of an edge's weight band within its kind (weakest third to strongest)."""
MIN_NODE_PX, NODE_PX_PER_IMPORTANCE = 3, 8
"""Small enough that 5,000 nodes leave the edges between them visible at the fitted zoom."""
INVALID_ALPHA = 70
NEIGHBOURHOOD = 0.2
"""Half the width shown around a node the view jumps to, as a share of the graph's extent."""
SELECTED_COLOUR = "#ff5a1f"
"""The clicked node's ring: a semantic accent that reads on light and dark backgrounds."""
LABELLED = 12
"""Memories named on the plot: the most important that fit."""
LABEL_CHARS = 30
LABEL_CANDIDATES = 20 * LABELLED
"""Only the most important few hundred compete for a label: the loop stays short on the UI
thread even when every node sits in one clump."""
LABEL_FILL_ALPHA = 200
LABEL_LIFT = 1.2
"""A label's bottom sits this many of its heights above its node's centre (a fifth of a
line of air): the TextItem anchor's y."""
LABEL_GAP_PX = 4
LABEL_PADDING_PX = 4
"""Around a TextItem's text (its document margin), on each side."""
ANCHORS_X = (0.5, 0.0, 1.0)
"""Centred over the node, else starting at it (near the left edge), else ending at it."""
RELABEL_MS = 40
"""Labels are placed again this long after the view stops moving (zoom, pan, resize)."""

Rect = tuple[float, float, float, float]
"""left, top, width, height, in pixels of the plot."""


def _overlap(a: Rect, b: Rect, gap: float) -> bool:
    return not (a[0] + a[2] + gap <= b[0] or b[0] + b[2] + gap <= a[0]
                or a[1] + a[3] + gap <= b[1] or b[1] + b[3] + gap <= a[1])


def placed_labels(points: np.ndarray, sizes: list[tuple[float, float]], area: Rect,
                  limit: int = LABELLED, gap: float = LABEL_GAP_PX
                  ) -> list[tuple[int, float, Rect]]:
    """Which labels to draw, given each candidate's node in pixels (``points``, most
    important first) and its label's size: (candidate index, anchor x, rectangle) of up to
    ``limit`` labels, each above its node, inside ``area`` and clear of the others by
    ``gap``; one that fits nowhere is left out."""
    left, top, width, height = area
    chosen: list[tuple[int, float, Rect]] = []
    for index, ((x, y), (w, h)) in enumerate(zip(points, sizes, strict=True)):
        for anchor in ANCHORS_X:
            rect = (float(x) - anchor * w, float(y) - LABEL_LIFT * h, w, h)
            inside = (rect[0] >= left and rect[1] >= top and rect[0] + w <= left + width
                      and rect[1] + h <= top + height)
            if inside and not any(_overlap(rect, other, gap) for _i, _a, other in chosen):
                chosen.append((index, anchor, rect))
                break
        if len(chosen) == limit:
            break
    return chosen


class NodeLabel(pg.TextItem):
    """A memory's label; a click on it opens that memory (not a dot drawn under it)."""

    def __init__(self, text: str, position: int, clicked: Callable[[int], None],
                 **options: object) -> None:
        super().__init__(text, **options)
        self.position = position
        self._clicked = clicked

    def mouseClickEvent(self, event: object) -> None:  # noqa: N802 (pyqtgraph's name)
        if getattr(event, "button", lambda: None)() == Qt.MouseButton.LeftButton:
            event.accept()  # type: ignore[attr-defined]
            self._clicked(self.position)


def node_text(snapshot: GraphSnapshot, position: int) -> str:
    """A node's memory as its label reads: an imported turn in plain words."""
    return spoken(snapshot.labels[position], snapshot.speakers[position])


def short_label(text: str, chars: int = LABEL_CHARS) -> str:
    """The start of a memory's text, cut at a word, for a label on the plot."""
    if len(text) <= chars:
        return text
    cut = text[:chars + 1].rsplit(" ", 1)[0]  # a word that ends at the limit is kept
    if not cut or len(cut) > chars:  # one long word: cut it
        cut = text[:chars]
    return cut.rstrip(" ,.;:") + "…"


def node_sizes(importance: np.ndarray) -> np.ndarray:
    """Pixel diameter of each node from its importance, rounded so the symbol atlas (one
    pixmap per size and brush) stays small."""
    return np.round(MIN_NODE_PX + NODE_PX_PER_IMPORTANCE * np.clip(importance, 0, 1))


def weight_bands(weight: np.ndarray) -> np.ndarray:
    """0, 1 or 2: the third of the weight range an edge falls in (within its own kind,
    since kNN cosines and dream weights live on different scales)."""
    if weight.size == 0:
        return np.zeros(0, dtype=np.int8)
    low, high = float(weight.min()), float(weight.max())
    if high - low < 1e-9:
        return np.full(weight.size, len(WEIGHT_BANDS) - 1, dtype=np.int8)
    scaled = (weight - low) / (high - low) * len(WEIGHT_BANDS)
    return np.minimum(scaled, len(WEIGHT_BANDS) - 1).astype(np.int8)


class GraphView(pg.PlotWidget):
    """Nodes and edges of one snapshot at given positions; pan with the mouse, zoom with
    the wheel, hover for a label, click for ``node_clicked(position)``."""

    node_clicked = Signal(int)
    _ready = False
    """False until ``__init__`` is done (pyqtgraph's constructor already changes the palette)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        own_plot_menu(self)
        self.setMenuEnabled(False)
        self.hideAxis("left")
        self.hideAxis("bottom")
        self.setAspectLocked(True)
        self.hideButtons()
        self._snapshot: GraphSnapshot | None = None
        self._positions = np.zeros((0, 2), dtype=np.float32)
        self._node_mask = np.zeros(0, dtype=bool)
        self._edge_mask = np.zeros(0, dtype=bool)
        self._edge_items: list[pg.PlotCurveItem] = []
        self._label_items: list[pg.TextItem] = []
        self._colour_mode = "tier"
        self._label_of: Callable[[int], str] = str
        self._nodes = pg.ScatterPlotItem(
            pxMode=True, hoverable=True, tip=self._tip, name="nodes")
        self._nodes.setZValue(10)
        self._nodes.sigClicked.connect(self._clicked)
        self._matches = pg.ScatterPlotItem(pxMode=True, brush=None, name="matches")
        self._matches.setZValue(11)
        self._selected = pg.ScatterPlotItem(pxMode=True, brush=None, name="selected")
        self._selected.setZValue(12)
        for item in (self._nodes, self._matches, self._selected):
            self.addItem(item)
        self._match_positions = np.zeros(0, dtype=np.int64)
        self._selected_position: int | None = None
        self._relabel = QTimer(self, singleShot=True, interval=RELABEL_MS)
        self._relabel.timeout.connect(self._draw_labels)
        self.getViewBox().sigRangeChanged.connect(lambda *_: self._relabel.start())
        self._ready = True
        self._apply_palette()

    # --- what is drawn -------------------------------------------------------------------

    def set_graph(self, snapshot: GraphSnapshot, positions: np.ndarray, mode: str,
                  node_mask: np.ndarray, edge_mask: np.ndarray) -> None:
        """Show a new snapshot coloured by ``mode`` with these nodes and edges visible
        (nothing ringed), drawn once, and fit it in the view."""
        self._snapshot, self._positions, self._colour_mode = snapshot, positions, mode
        self._node_mask, self._edge_mask = node_mask, edge_mask
        self._match_positions = np.zeros(0, dtype=np.int64)
        self._selected_position = None
        self._redraw()
        self.fit()

    def set_colour_mode(self, mode: str) -> None:
        """Colour nodes by ``"tier"`` or ``"category"``."""
        self._colour_mode = mode
        self._draw_nodes()

    def set_visible(self, node_mask: np.ndarray, edge_mask: np.ndarray) -> None:
        """Draw only these nodes and edges (boolean masks over the snapshot); only the
        layer whose mask changed is rebuilt."""
        nodes_changed = not np.array_equal(node_mask, self._node_mask)
        edges_changed = not np.array_equal(edge_mask, self._edge_mask)
        self._node_mask, self._edge_mask = node_mask, edge_mask
        if edges_changed:
            self._draw_edges()
        if nodes_changed:
            self._draw_nodes()
            self._draw_marks()
            self._draw_labels()

    def set_matches(self, positions: np.ndarray) -> None:
        """Ring these nodes (search results)."""
        self._match_positions = np.asarray(positions, dtype=np.int64)
        self._draw_marks()

    def set_selected(self, position: int | None) -> None:
        self._selected_position = position
        self._draw_marks()

    def set_label_source(self, label_of: Callable[[int], str]) -> None:
        """What the hover tip says for a node position."""
        self._label_of = label_of

    def centre_on(self, position: int) -> None:
        """Bring a node to the middle, zooming in to its neighbourhood (a fifth of the graph
        either side) unless the view is already closer."""
        x, y = (float(v) for v in self._positions[position])
        view = self.getViewBox()
        (x0, x1), (y0, y1) = view.viewRange()
        extent = np.ptp(self._positions, axis=0) if len(self._positions) > 1 else np.ones(2)
        half_x = min((x1 - x0) / 2, NEIGHBOURHOOD * float(extent.max()))
        half_y = half_x * (y1 - y0) / max(x1 - x0, 1e-9)
        view.setRange(xRange=(x - half_x, x + half_x), yRange=(y - half_y, y + half_y),
                      padding=0)

    def fit(self) -> None:
        self.getViewBox().autoRange(padding=0.04)
        self._draw_labels()  # at once, for the fitted view (the timer would wait)

    @property
    def positions(self) -> np.ndarray:
        """Where each node of the current snapshot is drawn (the layout)."""
        return self._positions

    @property
    def match_positions(self) -> np.ndarray:
        """Node positions ringed by the last search (drawn or not)."""
        return self._match_positions

    @property
    def selected_position(self) -> int | None:
        return self._selected_position

    def is_drawn(self, position: int) -> bool:
        """Whether the filters let this node through."""
        return bool(self._node_mask[position])

    @property
    def drawn_node_count(self) -> int:
        return int(self._node_mask.sum())

    def drawn_edge_counts(self) -> dict[str, int]:
        """Edges drawn per kind (what the plot shows, after filters)."""
        if self._snapshot is None:
            return {}
        kinds = self._snapshot.kinds
        drawn = kinds.codes[self._edge_mask]
        return {name: int((drawn == code).sum()) for code, name in enumerate(kinds.names)}

    def edge_items(self) -> list[pg.PlotCurveItem]:
        return list(self._edge_items)

    def labels(self) -> dict[int, str]:
        """The node positions named on the plot and what their labels say."""
        return {item.position: item.textItem.toPlainText() for item in self._label_items}

    @property
    def relabelling(self) -> bool:
        """The view moved and its labels are about to be placed again."""
        return self._relabel.isActive()

    def label_rects(self) -> dict[int, QRect]:
        """Where each label is drawn, in viewport pixels."""
        return {item.position: self.mapFromScene(item.sceneBoundingRect()).boundingRect()
                for item in self._label_items}

    def plot_rect(self) -> QRect:
        """The part of the viewport the plot draws in, in pixels."""
        return self.mapFromScene(self.getViewBox().sceneBoundingRect()).boundingRect()

    def node_screen_position(self, position: int) -> QPoint:
        """Where a node is drawn, in viewport coordinates (where a click on it lands)."""
        x, y = self._positions[position]
        scene_point = self.getViewBox().mapViewToScene(QPointF(float(x), float(y)))
        return self.mapFromScene(scene_point)

    # --- drawing -------------------------------------------------------------------------

    def _redraw(self) -> None:
        self._draw_edges()
        self._draw_nodes()
        self._draw_marks()
        self._draw_labels()

    def _draw_nodes(self) -> None:
        if self._snapshot is None:
            return
        snapshot, shown = self._snapshot, np.flatnonzero(self._node_mask)
        codes = snapshot.tiers if self._colour_mode == "tier" else snapshot.categories
        # One QBrush per (colour, validity), shared by every spot that uses it.
        brushes = {}
        for code, name in enumerate(codes.names):
            colour = style.node_colour(self._colour_mode, name, codes.names)
            faded = QColor(colour)
            faded.setAlpha(INVALID_ALPHA)
            brushes[(code, True)], brushes[(code, False)] = QBrush(colour), QBrush(faded)
        node_codes, valid = codes.codes[shown], snapshot.valid[shown]
        self._nodes.setData(
            pos=self._positions[shown], size=node_sizes(snapshot.importance[shown]),
            brush=[brushes[(int(c), bool(v))] for c, v in zip(node_codes, valid, strict=True)],
            pen=None, data=shown)

    def _draw_edges(self) -> None:
        for item in self._edge_items:
            self.removeItem(item)
        self._edge_items = []
        if self._snapshot is None:
            return
        snapshot = self._snapshot
        for code, kind in enumerate(snapshot.kinds.names):
            in_kind = snapshot.kinds.codes == code
            bands = weight_bands(snapshot.weight[in_kind])
            chosen = np.flatnonzero(in_kind)
            for band, alpha in enumerate(WEIGHT_BANDS):
                edges = chosen[(bands == band) & self._edge_mask[chosen]]
                if edges.size:
                    self._edge_items.append(self._edge_item(kind, edges, alpha))

    def _edge_item(self, kind: str, edges: np.ndarray, alpha: float) -> pg.PlotCurveItem:
        snapshot = self._snapshot
        assert snapshot is not None
        ends = np.empty((edges.size * 2, 2), dtype=np.float32)
        ends[0::2] = self._positions[snapshot.source[edges]]
        ends[1::2] = self._positions[snapshot.target[edges]]
        colour = style.edge_colour(kind, self.palette())
        colour.setAlphaF(alpha)
        pen = pg.mkPen(colour, width=1, style=style.edge_style(kind).dash)  # cosmetic: 1 px
        # Contiguous x and y: pyqtgraph's line-segment fast path reads the raw buffers.
        item = pg.PlotCurveItem(np.ascontiguousarray(ends[:, 0]),
                                np.ascontiguousarray(ends[:, 1]), connect="pairs", pen=pen,
                                antialias=False, name=kind)
        item.setZValue(1 + alpha)
        self.addItem(item)
        return item

    def _draw_labels(self) -> None:
        """Label the most important drawn memories that fit on the plot as it is now
        (``placed_labels``, in pixels)."""
        for item in self._label_items:
            self.removeItem(item)
        self._label_items = []
        snapshot = self._snapshot
        shown = np.flatnonzero(self._node_mask) if snapshot is not None else np.zeros(0)
        if snapshot is None or not shown.size:
            return
        best = shown[np.argsort(-snapshot.importance[shown], kind="stable")][:LABEL_CANDIDATES]
        texts = [short_label(node_text(snapshot, int(position))) for position in best]
        metrics = QFontMetricsF(self.font())
        pad = 2 * LABEL_PADDING_PX
        sizes = [(metrics.horizontalAdvance(text) + pad, metrics.height() + pad)
                 for text in texts]
        points = np.array([self._pixel(int(position)) for position in best], dtype=float)
        plot = self.plot_rect()
        area = (float(plot.left()), float(plot.top()), float(plot.width()),
                float(plot.height()))
        ink = self.palette().color(QPalette.ColorRole.Text)
        fill = QColor(style.background(self.palette()))
        fill.setAlpha(LABEL_FILL_ALPHA)
        for index, anchor, _rect in placed_labels(points, sizes, area):
            position = int(best[index])
            item = NodeLabel(texts[index], position, self.node_clicked.emit, color=ink,
                             fill=pg.mkBrush(fill), anchor=(anchor, LABEL_LIFT))
            item.setPos(*(float(v) for v in self._positions[position]))
            item.setZValue(20)  # above nodes and rings
            self.addItem(item)
            self._label_items.append(item)

    def _pixel(self, position: int) -> tuple[float, float]:
        point = self.node_screen_position(position)
        return float(point.x()), float(point.y())

    def _draw_marks(self) -> None:
        # Search rings in the text colour: the most contrast on either background, and no
        # node is filled with it. Pens are cosmetic: symbols are drawn scaled to their size.
        ring = pg.mkPen(self.palette().color(QPalette.ColorRole.WindowText), width=2)
        shown = self._match_positions[self._node_mask[self._match_positions]] \
            if self._match_positions.size else self._match_positions
        self._matches.setData(pos=self._positions[shown], size=16, pen=ring, brush=None,
                              symbol="o")
        chosen = self._selected_position
        if chosen is None or not self._node_mask.size or not self._node_mask[chosen]:
            self._selected.setData(pos=np.zeros((0, 2)))
            return
        bold = pg.mkPen(SELECTED_COLOUR, width=3)
        self._selected.setData(pos=self._positions[[chosen]], size=24, pen=bold, brush=None,
                               symbol="o")

    # --- events --------------------------------------------------------------------------

    def _tip(self, x: float, y: float, data: SupportsInt) -> str:
        return self._label_of(int(data))

    def _clicked(self, _item: pg.ScatterPlotItem, points: list, event: object) -> None:
        """The dot nearest the pointer among those under it (big dots overlap their
        neighbours: the first listed was not always the one clicked)."""
        if not len(points):
            return
        where = event.pos()  # type: ignore[attr-defined]  # in the plot's coordinates
        nearest = min(points, key=lambda point: (point.pos().x() - where.x()) ** 2
                      + (point.pos().y() - where.y()) ** 2)
        self.node_clicked.emit(int(nearest.data()))

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802 (Qt's name)
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange and self._ready:
            self._apply_palette()
            self._redraw()

    def _apply_palette(self) -> None:
        self.setBackground(style.background(self.palette()))
