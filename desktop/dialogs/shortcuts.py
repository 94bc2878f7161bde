"""Help › Keyboard shortcuts (F1): every view's key and every menu command's, read from the
window's own actions, then the keys that work inside a view."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

IN_A_VIEW: tuple[tuple[str, str], ...] = (
    ("Search or filter the view", "Ctrl+F"),
    ("Edit the selected row", "F2"),
    ("Delete the selected row (asks first)", "Delete"),
    ("Save the record being edited", "Ctrl+S"),
    ("Tick a task done or untick it (Today)", "Space"),
    ("Reopen the task last ticked (Today)", "Ctrl+Z"),
    ("Send · new line · stop the reply (Chat)", "Enter · Shift+Enter · Esc"),
)
"""Keys that belong to a view's own widgets (not menu commands), as ``docs/desktop.md``
lists them."""


class ShortcutsDialog(QDialog):
    def __init__(self, commands: Sequence[tuple[str, str]],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Keyboard shortcuts")
        rows = list(commands) + list(IN_A_VIEW)
        self.table = QTableWidget(len(rows), 2)
        self.table.setHorizontalHeaderLabels(["Command", "Key"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        for row, (what, key) in enumerate(rows):
            self.table.setItem(row, 0, QTableWidgetItem(what))
            self.table.setItem(row, 1, QTableWidgetItem(key))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)
        self.resize(520, 600)

    def rows(self) -> list[tuple[str, str]]:
        """What the table shows, row by row."""
        return [(self._text(row, 0), self._text(row, 1)) for row in range(self.table.rowCount())]

    def _text(self, row: int, column: int) -> str:
        item = self.table.item(row, column)
        return "" if item is None else item.text()
