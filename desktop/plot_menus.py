"""pyqtgraph's plot menu, owned by its plot.

``PlotItem`` makes its "Plot Options" menu (and the submenus below it) as a window without a
parent that only Python holds; it outlives the plot widget until the garbage collector
finds the plot item, and in the meantime it is a stray top-level window of the
application. Giving the menu to the widget lets Qt delete it with the widget.
"""

from __future__ import annotations

import pyqtgraph as pg


def own_plot_menu(plot: pg.PlotWidget) -> None:
    """Make ``plot`` the parent of its plot item's context menu (a popup still)."""
    menu = plot.getPlotItem().ctrlMenu
    menu.setParent(plot, menu.windowFlags())
