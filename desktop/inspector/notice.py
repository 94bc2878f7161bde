"""A line above a view's buttons that says why the last change was refused ("A fact needs a
value. Say what the fact is…"), until the next change succeeds. The status bar says it too,
but it fades; a refused edit must stay explained next to the thing that was refused."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QWidget

WARNING = "#d0453b"
"""A red that reads on light and dark backgrounds (a semantic accent, not a theme colour)."""


class Notice(QLabel):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWordWrap(True)
        self.setStyleSheet(f"color: {WARNING};")
        self.hide()

    def show_error(self, message: str, hint: str = "") -> None:
        self.setText(f"{message} {hint}".strip())
        self.show()

    def clear(self) -> None:
        super().clear()
        self.hide()
