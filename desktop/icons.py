"""Icons from ``resources/icons/*.svg``, tinted for the current palette.

The SVGs are drawn in one ink colour (``#000000``); it is swapped for the palette's text
colour when an icon is loaded, so the same files read well in light and dark themes and stay
sharp at any device-pixel ratio (SVG, rendered by Qt at the size asked for).
"""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QByteArray, QSize, Qt
from PySide6.QtGui import QIcon, QImage, QPainter, QPalette, QPixmap
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QApplication

from core.config import PROJECT_ROOT

ICONS = PROJECT_ROOT / "resources" / "icons"
INK = "#000000"
APP_ICON = "hearth"
"""The application's own icon keeps its colours (it is not tinted)."""


def icon(name: str) -> QIcon:
    """The named icon in the palette's text colour (the app icon in its own colours)."""
    colour = (QApplication.palette().color(QPalette.ColorRole.WindowText).name()
              if QApplication.instance() else INK)
    return _tinted(name, INK if name == APP_ICON else colour)


@lru_cache(maxsize=256)
def _tinted(name: str, colour: str) -> QIcon:
    path = ICONS / f"{name}.svg"
    svg = path.read_text(encoding="utf-8").replace(INK, colour)
    renderer = QSvgRenderer(QByteArray(svg.encode("utf-8")))
    result = QIcon()
    for side in (16, 24, 32, 48, 64, 128, 256):
        image = QImage(QSize(side, side), QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        renderer.render(painter)
        painter.end()
        result.addPixmap(QPixmap.fromImage(image))
    return result


def clear_cache() -> None:
    """Forget tinted icons (after the palette changes between light and dark)."""
    _tinted.cache_clear()
