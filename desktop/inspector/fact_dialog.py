"""The dialog that adds a fact: key, value, category, with the key shown as it will be stored
(``Home address`` → ``home_address``) and a warning when that key already has a value."""

from __future__ import annotations

from collections.abc import Collection

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QWidget,
)

from core.errors import InvalidInputError
from core.operations.facts import CATEGORIES, normalise_key


class FactDialog(QDialog):
    """Asks for a new fact; ``values()`` gives (key, value, category) once accepted."""

    def __init__(self, known_keys: Collection[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add a fact")
        self._known = set(known_keys)
        self.key = QLineEdit()
        self.key.setPlaceholderText("e.g. home city")
        self.value = QLineEdit()
        self.value.setPlaceholderText("e.g. Lisbon")
        self.category = QComboBox()
        self.category.addItems(CATEGORIES)
        self.category.setCurrentText("general")
        self.hint = QLabel()
        self.hint.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        form = QFormLayout(self)
        form.addRow("&Key:", self.key)
        form.addRow("&Value:", self.value)
        form.addRow("&Category:", self.category)
        form.addRow(self.hint)
        form.addRow(self.buttons)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.key.textChanged.connect(self._check)
        self.value.textChanged.connect(self._check)
        self.setMinimumWidth(420)
        self._check()

    def values(self) -> tuple[str, str, str]:
        return self.key.text(), self.value.text().strip(), self.category.currentText()

    def _check(self) -> None:
        """Say how the key will be stored, or why it cannot be; Save only when it can."""
        save = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        if not self.key.text().strip():
            self.hint.setText("Name the fact in a few words, like “home city” (it is saved "
                              "as home_city).")
            save.setEnabled(False)
            return
        try:
            key = normalise_key(self.key.text())
        except InvalidInputError as exc:
            self.hint.setText(f"{exc.message} {exc.hint}")
            save.setEnabled(False)
            return
        note = (f"Saved as {key}. This fact exists: its value will be replaced, and the old one "
                "kept in its history." if key in self._known else f"Saved as {key}.")
        self.hint.setText(note)
        save.setEnabled(bool(self.value.text().strip()))
