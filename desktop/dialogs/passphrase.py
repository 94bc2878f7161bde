"""The passphrase dialog: at the window's start, an encrypted data folder is unlocked here
before anything opens it (``core.operations.folder_lock``; ``docs/encryption.md``); and
the same when another encrypted folder is chosen in Settings → Data, so a folder is never
chosen that the person cannot open.

A wrong passphrase is said in the dialog itself (the sentence ``WrongPassphraseError``
carries) and the dialog stays open for another try; Cancel quits the window unopened at
the start, and keeps the current folder in the settings.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QVBoxLayout,
    QWidget,
)

from core.errors import HearthError
from core.operations import folder_lock


MINIMUM_WIDTH = 460
"""Wide enough for the wrapped sentences (a folder's path, a wrong passphrase's message)
to show whole: left to itself the dialog shrinks to its buttons and cuts them off."""


class PassphraseDialog(QDialog):
    def __init__(self, home: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.home = home
        self.setWindowTitle("Hearth is locked")
        self.setMinimumWidth(MINIMUM_WIDTH)
        self.intro = QLabel(f"The data folder {home} is encrypted. Type its passphrase to "
                            "open it.")
        self.intro.setWordWrap(True)
        self.passphrase = QLineEdit()
        self.passphrase.setEchoMode(QLineEdit.EchoMode.Password)
        self.passphrase.setAccessibleName("Passphrase")
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setVisible(False)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.try_unlock)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.passphrase)
        layout.addWidget(self.message)
        layout.addWidget(self.buttons)

    def try_unlock(self) -> None:
        """Unlock with what was typed; on a wrong passphrase say so and let them retry.
        The key derivation takes ~0.1 s, short enough not to need a worker thread."""
        try:
            folder_lock.unlock(self.home, self.passphrase.text())
        except HearthError as error:
            self.message.setText(f"{error.message} {error.hint}".strip())
            self.message.setVisible(True)
            self.adjustSize()  # room for the sentence under the field
            self.passphrase.selectAll()
            self.passphrase.setFocus()
            return
        self.accept()


def ask_to_unlock(home: Path, parent: QWidget | None = None) -> bool:
    """Show the dialog when ``home`` needs a passphrase; whether it may now be opened."""
    if not folder_lock.needs_passphrase(home):
        return True
    return PassphraseDialog(home, parent).exec() == QDialog.DialogCode.Accepted
