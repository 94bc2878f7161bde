"""A forced dark scheme gives a dark palette even where the platform has no theme, and the
icons are re-tinted in the palette's text colour."""

from __future__ import annotations

from PySide6.QtGui import QPalette

from desktop.icons import icon
from desktop.theme import apply_scheme, is_dark


def ink_of(name: str) -> int:
    """The lightness of the darkest drawn pixel of an icon at 24 px."""
    image = icon(name).pixmap(24, 24).toImage()
    inked = [image.pixelColor(x, y) for x in range(24) for y in range(24)
             if image.pixelColor(x, y).alpha() > 200]
    return min(colour.lightness() for colour in inked)


def test_dark_then_light_switches_palette_and_icon_ink(qapp) -> None:
    try:
        apply_scheme(qapp, "dark")
        assert is_dark(qapp.palette())
        assert qapp.palette().color(QPalette.ColorRole.Text).lightness() > 200
        assert ink_of("facts") > 200  # light ink on the dark window
        apply_scheme(qapp, "light")
        assert not is_dark(qapp.palette())
        assert ink_of("facts") < 60
    finally:
        apply_scheme(qapp, "light")
