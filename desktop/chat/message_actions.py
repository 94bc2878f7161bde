"""What a person can do with a message in the transcript: copy it, and on the chat's last
exchange write the reply again (Regenerate) or edit the message and send it again.

The buttons sit in the message's header line, reachable with Tab. They only ask: the
transcript passes the requests on and the page runs them (``ConversationService.
answer_again``). ``EditBar`` is the note above the composer while the user edits their
last message."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QHBoxLayout, QLabel, QToolButton, QWidget

from desktop.icons import icon

COPIED_MS = 1500
"""How long a Copy button says "Copied"."""


def _button(text: str, tip: str, icon_name: str | None = None) -> QToolButton:
    button = QToolButton()
    button.setText(text)
    button.setToolTip(tip)
    if icon_name is not None:
        button.setIcon(icon(icon_name))
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setAutoRaise(True)
    button.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
    return button


def copy_text(text: str, button: QToolButton | None = None) -> None:
    """Put ``text`` on the clipboard; ``button`` says "Copied" for a moment."""
    QGuiApplication.clipboard().setText(text)
    if button is not None:
        label = button.text()
        button.setText("Copied")
        QTimer.singleShot(COPIED_MS, button, lambda: button.setText(label))


class MessageActions(QWidget):
    """Copy, and (shown only on the last exchange) Regenerate or Edit.

    ``again_requested`` is Regenerate on a reply, Edit on the user's message."""

    again_requested = Signal()

    def __init__(self, text: Callable[[], str], *, again: str, again_tip: str,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.copy_button = _button("Copy", "Copy this message's text")
        self.copy_button.clicked.connect(lambda: copy_text(text(), self.copy_button))
        self.again_button = _button(again, again_tip)
        self.again_button.clicked.connect(self.again_requested)
        self.again_button.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.again_button)
        layout.addWidget(self.copy_button)

    def offer_again(self, offered: bool) -> None:
        self.again_button.setVisible(offered)


class EditBar(QWidget):
    """"Editing your last message" with Cancel, shown above the composer while editing."""

    cancelled = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        note = QLabel("Editing your last message: Enter sends it again and the reply is "
                      "written again. Esc cancels.")
        note.setWordWrap(True)
        cancel = _button("Cancel", "Keep the message as it was (Esc)")
        cancel.clicked.connect(self.cancelled)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 6, 16, 0)
        layout.addWidget(note, 1)
        layout.addWidget(cancel)
        self.setVisible(False)
