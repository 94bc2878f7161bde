"""Stats: four plots of what memory looks like. Growth over time (every memory stored, and
those still valid), facts by category, and the distributions of strength and freshness
(what decay has done).

Plots take their colours from the palette (background from ``Base``, axes and text from
``Text``, data in ``Highlight``), and are redrawn in the new colours when the palette
changes between light and dark; pyqtgraph's own black default is never shown.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, time, timezone

import numpy as np
import pyqtgraph as pg
from PySide6.QtCore import QEvent
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QGridLayout, QLabel, QVBoxLayout, QWidget

from core.operations import memories
from core.operations.changes import Domain
from core.operations.memories import Histogram, Stats
from desktop.context import AppContext
from desktop.inspector.base import InspectorPage
from desktop.plot_menus import own_plot_menu
from desktop.scrolling import ShrinkingScrollArea
from desktop.words import count

DAY_SECONDS = 86_400
VALID_ALPHA = 110
"""The "still valid" area under the growth line is a translucent version of the line."""


def _day_seconds(days: list) -> np.ndarray:
    """Midnight UTC of each day as epoch seconds (the date axis's unit)."""
    return np.array([datetime.combine(day, time(), timezone.utc).timestamp() for day in days],
                    dtype=float)


class CountAxis(pg.AxisItem):
    """An axis of counts: ticks on whole numbers only (no "1.5 facts")."""

    def tickSpacing(self, minVal: float, maxVal: float, size: float  # noqa: N802, N803
                    ) -> list[tuple[float, float]]:
        whole = [(spacing, offset) for spacing, offset
                 in super().tickSpacing(minVal, maxVal, size) if spacing >= 1]
        return whole or [(1.0, 0.0)]


def _plot(**axes: pg.AxisItem) -> pg.PlotWidget:
    plot = pg.PlotWidget(axisItems={"left": CountAxis("left"), **axes})
    own_plot_menu(plot)
    return plot


class StatsPage(InspectorPage):
    key = "stats"
    title = "Stats"
    about = "Charts of how Hearth's memory of you grows, and what fades."
    icon_name = "stats"
    domains = frozenset({Domain.FACTS, Domain.MEMORIES})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.growth_plot = _plot(bottom=pg.DateAxisItem())
        self.categories_plot = _plot()
        self.strength_plot = _plot()
        self.freshness_plot = _plot()
        self.growth_legend = self.growth_plot.addLegend(offset=(10, 10))
        self.total_curve = self.growth_plot.plot(name="stored", symbol="o", symbolSize=5)
        self.valid_curve = self.growth_plot.plot(name="still valid")
        self.category_bars = pg.BarGraphItem(x=[], height=[], width=0.7)
        self.categories_plot.addItem(self.category_bars)
        self.strength_bars = self._histogram_item(self.strength_plot)
        self.freshness_bars = self._histogram_item(self.freshness_plot)
        self.summary = QLabel()
        self._titles = {self.growth_plot: "Memory growth",
                        self.categories_plot: "Facts by category",
                        self.strength_plot: "Strength of valid memories",
                        self.freshness_plot: "Freshness of valid memories"}
        for plot, left, bottom in (
                (self.growth_plot, "memories", "day"),
                (self.categories_plot, "facts", ""),
                (self.strength_plot, "memories", "strength (1 = just used)"),
                (self.freshness_plot, "memories", "freshness (1 = new)")):
            plot.setLabel("left", left)
            plot.setLabel("bottom", bottom)
            plot.setMenuEnabled(False)
            plot.showGrid(x=False, y=True, alpha=0.25)
            plot.setMinimumSize(260, 200)
            # counts are whole things: never "memories (x0.001)" on an empty plot
            plot.getAxis("left").enableAutoSIPrefix(False)
        for plot in (self.categories_plot, self.strength_plot, self.freshness_plot):
            plot.setMouseEnabled(x=False, y=False)
        charts = QWidget()
        grid = QGridLayout(charts)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.addWidget(self.growth_plot, 0, 0)
        grid.addWidget(self.categories_plot, 0, 1)
        grid.addWidget(self.strength_plot, 1, 0)
        grid.addWidget(self.freshness_plot, 1, 1)
        grid.addWidget(self.summary, 2, 0, 1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(ShrinkingScrollArea(charts), 1)  # scrolls on a small screen
        self.apply_palette()
        ctx.hub.run_finished.connect(lambda _kind, _report: self.refresh())

    @staticmethod
    def _histogram_item(plot: pg.PlotWidget) -> pg.PlotDataItem:
        item = plot.plot(stepMode="center", fillLevel=0)
        plot.setXRange(0, 1, padding=0.02)
        return item

    # --- loading -------------------------------------------------------------------------------

    def loader(self) -> Callable[[], Stats]:
        hearth = self.ctx.hearth
        return lambda: memories.memory_stats(hearth)

    def show_loaded(self, result: Stats) -> None:
        growth = result.growth
        x = _day_seconds(growth.days)
        span = f" ({growth.days[0]:%d %b %Y} – {growth.days[-1]:%d %b %Y})" \
            if growth.days else ""
        self.growth_plot.setLabel("bottom", f"day{span}", color=self._text_colour())
        self.total_curve.setData(x, growth.total.astype(float))
        self.valid_curve.setData(x, growth.valid.astype(float))
        if not growth.days:  # the last week, not seconds after 1970 ("00.250")
            today = _day_seconds([datetime.now(UTC).date()])[0]
            self.growth_plot.setXRange(today - 6 * DAY_SECONDS, today + DAY_SECONDS)
        names = [name for name, _count in result.facts_by_category]
        heights = np.array([amount for _name, amount in result.facts_by_category], dtype=float)
        self.category_bars.setOpts(x=np.arange(len(names), dtype=float), height=heights)
        self.categories_plot.getAxis("bottom").setTicks([list(enumerate(names))])
        self.categories_plot.setXRange(-0.6, max(len(names), 1) - 0.4, padding=0)
        self._show_histogram(self.strength_bars, result.strength)
        self._show_histogram(self.freshness_bars, result.freshness)
        for plot, empty in ((self.growth_plot, not growth.days),
                            (self.categories_plot, not names),
                            (self.strength_plot, not result.strength.counts.any()),
                            (self.freshness_plot, not result.freshness.counts.any())):
            self._set_title(plot, self._titles[plot] + (" (nothing yet)" if empty else ""))
            if empty:  # an axis from 0 up, not one around 0
                plot.setYRange(0, 1, padding=0)
        stored = int(growth.total[-1]) if growth.total.size else 0
        valid = int(growth.valid[-1]) if growth.valid.size else 0
        facts = int(heights.sum())
        self.summary.setText(f"{count(stored, 'memory', 'memories')} stored, {valid:,} of "
                             f"them valid; {count(facts, 'fact')}. Days are UTC.")

    @staticmethod
    def _show_histogram(item: pg.PlotDataItem, histogram: Histogram) -> None:
        item.setData(histogram.edges, histogram.counts.astype(float))

    # --- colours -------------------------------------------------------------------------------

    def changeEvent(self, event: QEvent) -> None:  # noqa: N802
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self.apply_palette()

    def _set_title(self, plot: pg.PlotWidget, title: str) -> None:
        plot.setTitle(title, color=self._text_colour())

    def _text_colour(self) -> str:
        return self.palette().color(QPalette.ColorRole.Text).name()

    def apply_palette(self) -> None:
        """Background, axes, titles and data in the palette's colours."""
        palette = self.palette()
        base = palette.color(QPalette.ColorRole.Base)
        text = palette.color(QPalette.ColorRole.Text)
        accent = palette.color(QPalette.ColorRole.Highlight)
        muted = QColor(accent)
        muted.setAlpha(VALID_ALPHA)
        for plot in (self.growth_plot, self.categories_plot, self.strength_plot,
                     self.freshness_plot):
            plot.setBackground(base)
            self._set_title(plot, plot.getPlotItem().titleLabel.text or self._titles[plot])
            for name in ("left", "bottom"):
                axis = plot.getAxis(name)
                axis.setPen(pg.mkPen(text))
                axis.setTextPen(pg.mkPen(text))
                axis.setLabel(axis.labelText, color=text.name())
        self.total_curve.setPen(pg.mkPen(accent, width=2))
        self.total_curve.setSymbolBrush(pg.mkBrush(accent))
        self.total_curve.setSymbolPen(pg.mkPen(accent))
        self.valid_curve.setPen(pg.mkPen(muted, width=2))
        self.valid_curve.setFillLevel(0)
        self.valid_curve.setBrush(pg.mkBrush(muted))
        self.category_bars.setOpts(brush=pg.mkBrush(accent), pen=pg.mkPen(text, width=0.5))
        for bars in (self.strength_bars, self.freshness_bars):
            bars.setPen(pg.mkPen(text, width=0.5))
            bars.setBrush(pg.mkBrush(accent))
        self.growth_legend.setLabelTextColor(text)
        for _sample, label in self.growth_legend.items:  # redraw the labels already there
            label.setText(label.text)
