"""Light or dark: the window follows the system's colour scheme; ``--theme`` forces one.

Qt's Fusion style takes its palette from the platform theme (GNOME, KDE, Windows, macOS
report light or dark). Where the platform has no theme (a bare X session, offscreen
rendering), asking for dark changes nothing, so a forced dark scheme also installs a dark
Fusion palette. The colours are the palette's roles only; widgets never hard-code their own.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QApplication

from desktop import icons

_DARK_ROLES = {
    QPalette.ColorRole.Window: "#2b2d30",
    QPalette.ColorRole.WindowText: "#e3e3e3",
    QPalette.ColorRole.Base: "#1e1f22",
    QPalette.ColorRole.AlternateBase: "#26282b",
    QPalette.ColorRole.ToolTipBase: "#3c3f41",
    QPalette.ColorRole.ToolTipText: "#e3e3e3",
    QPalette.ColorRole.PlaceholderText: "#8c8f94",
    QPalette.ColorRole.Text: "#e3e3e3",
    QPalette.ColorRole.Button: "#35373a",
    QPalette.ColorRole.ButtonText: "#e3e3e3",
    QPalette.ColorRole.BrightText: "#ff6b6b",
    QPalette.ColorRole.Highlight: "#2f6fb5",
    QPalette.ColorRole.HighlightedText: "#ffffff",
    QPalette.ColorRole.Link: "#6ea8fe",
    QPalette.ColorRole.Light: "#45484c",
    QPalette.ColorRole.Midlight: "#3a3d40",
    QPalette.ColorRole.Mid: "#2f3134",
    QPalette.ColorRole.Dark: "#1a1b1d",
    QPalette.ColorRole.Shadow: "#101112",
}
_DISABLED_TEXT = "#7a7d82"


def dark_palette() -> QPalette:
    palette = QPalette()
    for role, colour in _DARK_ROLES.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.Text, QPalette.ColorRole.WindowText,
                 QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor(_DISABLED_TEXT))
    return palette


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


def apply_scheme(app: QApplication, scheme: str) -> None:
    """``system`` (the platform decides), ``light`` or ``dark``."""
    if scheme == "system":
        return
    wanted = Qt.ColorScheme.Dark if scheme == "dark" else Qt.ColorScheme.Light
    app.styleHints().setColorScheme(wanted)
    if scheme == "dark" and not is_dark(app.palette()):
        app.setPalette(dark_palette())
    elif scheme == "light" and is_dark(app.palette()):
        app.setPalette(app.style().standardPalette())
    icons.clear_cache()
