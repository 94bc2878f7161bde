"""How the chat marks a failure: one accent colour, readable on light and dark themes."""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import QLabel

FAILURE_COLOUR = "#e5534b"
"""A semantic accent for failures that reads on light and dark backgrounds."""


def paint_failure(label: QLabel) -> None:
    """Show a label's text in the failure accent."""
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, QColor(FAILURE_COLOUR))
    label.setPalette(palette)
    label.setForegroundRole(QPalette.ColorRole.WindowText)
