"""Asking before anything is deleted or overwritten: one wording and one button layout for
every view, with the safe answer (Cancel) as the default, so a stray Enter loses nothing."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def ask(parent: QWidget | None, title: str, text: str, action: str = "Delete") -> bool:
    """Show ``text`` with an ``action`` button and Cancel; True only if ``action`` is chosen."""
    box = QMessageBox(QMessageBox.Icon.Warning, title, text, parent=parent)
    confirm = box.addButton(action, QMessageBox.ButtonRole.DestructiveRole)
    cancel = box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(cancel)
    box.setEscapeButton(cancel)
    box.exec()
    return box.clickedButton() is confirm
