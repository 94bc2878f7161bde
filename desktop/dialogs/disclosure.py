"""A "Details" button that shows or hides what most people never need to read (the steps
of a run with their counts and timings), so it stays one click away instead of filling the
first screen."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QToolButton, QVBoxLayout, QWidget


class Disclosure(QWidget):
    """A checkable "Details" toggle above ``body``; closed at first."""

    def __init__(self, body: QWidget, text: str = "Details",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.body = body
        self.toggle = QToolButton()
        self.toggle.setText(text)
        self.toggle.setCheckable(True)
        self.toggle.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.toggle.setAutoRaise(True)
        self.toggle.toggled.connect(self.set_open)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.toggle, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(body, 1)
        self.set_open(False)

    @property
    def is_open(self) -> bool:
        return self.toggle.isChecked()

    def set_open(self, shown: bool) -> None:
        if self.toggle.isChecked() != shown:
            self.toggle.setChecked(shown)  # calls back here through ``toggled``
            return
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if shown else Qt.ArrowType.RightArrow)
        self.body.setVisible(shown)
