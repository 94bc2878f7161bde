"""Colours and line styles of the graph: one place, so the plot and its legend agree.

Node colours are semantic accents chosen to read on both a light and a dark background
(mid lightness, full saturation); everything else (background, kNN edges) comes from the
palette, so the view follows the system's theme.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette

TIER_COLOURS = {
    "core": "#e5a00d",      # amber: pinned, always loaded
    "recall": "#3d8fe0",    # blue: fresh captures
    "archival": "#2ea66b",  # green: consolidated summaries
    "source": "#8c8c9a",    # grey: originals kept under a summary
}
QUALITATIVE = ("#3d8fe0", "#e5700d", "#2ea66b", "#d64545", "#9467bd", "#b07a4f", "#d65fae",
               "#7f8c8d", "#b5b515", "#17a3b8")
"""Ten distinguishable hues (after the Tableau 10 set) for categories, cycled."""
FALLBACK = "#8c8c9a"


def node_colour(mode: str, name: str, names: tuple[str, ...]) -> QColor:
    """The colour of a tier or category ``name`` (``mode`` "tier" or "category")."""
    if mode == "tier":
        return QColor(TIER_COLOURS.get(name, FALLBACK))
    return QColor(QUALITATIVE[names.index(name) % len(QUALITATIVE)])


@dataclass(frozen=True)
class EdgeStyle:
    """How one kind of edge is drawn; ``colour`` None means the palette's text colour."""

    label: str
    colour: str | None
    dash: Qt.PenStyle


EDGE_STYLES = {
    "knn": EdgeStyle("similar", None, Qt.PenStyle.SolidLine),
    "dream": EdgeStyle("found overnight", "#c04fd6", Qt.PenStyle.DashLine),
    "summary_of": EdgeStyle("summary", "#2ea66b", Qt.PenStyle.DotLine),
}
"""Labels in words; ``EDGE_INTERNALS`` says what each is inside Hearth (a tooltip away)."""
EDGE_INTERNALS = {
    "knn": "kNN link from the dream cycle's link stage (weight: cosine similarity)",
    "dream": "association from the dream cycle's REM stage (weight at most 0.27)",
    "summary_of": "from a summary to a memory it merged (the merge stage)",
}
OTHER_EDGE = EdgeStyle("other", "#8c8c9a", Qt.PenStyle.DashDotLine)


def edge_style(kind: str) -> EdgeStyle:
    return EDGE_STYLES.get(kind, EdgeStyle(kind, OTHER_EDGE.colour, OTHER_EDGE.dash))


def edge_colour(kind: str, palette: QPalette) -> QColor:
    style = edge_style(kind)
    if style.colour is None:
        return QColor(palette.color(QPalette.ColorRole.WindowText))
    return QColor(style.colour)


def background(palette: QPalette) -> QColor:
    return palette.color(QPalette.ColorRole.Base)

