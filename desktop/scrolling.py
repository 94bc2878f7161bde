"""A scroll area for a panel that should be shown whole when there is room, and scroll
when there is not, so a small screen (1366×768, or 1000×640 for the window itself) never
forces a minimum height the window cannot have."""

from __future__ import annotations

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class ShrinkingScrollArea(QScrollArea):
    """Asks for the whole size of its panel, but can be made as small as a few lines: then
    the panel scrolls vertically instead of being cut off (never horizontally: the panel's
    minimum width is kept)."""

    def __init__(self, panel: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidget(panel)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """The panel's own size hint (QScrollArea caps it at 24 lines of text)."""
        panel = self.widget()
        assert panel is not None  # set in __init__
        hint = panel.sizeHint()
        return QSize(self.minimumSizeHint().width(), hint.height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """As wide as the panel and its scroll bar must be; a few lines high."""
        panel = self.widget()
        assert panel is not None  # set in __init__
        width = (panel.minimumSizeHint().width()
                 + self.verticalScrollBar().sizeHint().width())
        return QSize(width, 4 * self.fontMetrics().height())
