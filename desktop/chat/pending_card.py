"""The approval card: a change the assistant asked for, waiting for the user's answer.

It shows the preview ("Remind you on Thu 26 Nov at 09:00: call the dentist") with Confirm,
Edit and Cancel: buttons that Tab and Space reach (one Tab from the message box reaches the
newest card's Confirm: ``PendingAnswers``), and that a click does not take the keyboard
focus to, so it stays in the message box. Edit opens a task's or a reminder's own form
(``desktop.chat.held_forms``). The page
does the work (``core.operations.pending`` in a background job) and tells the card how it
ended: "Done: …", "Cancelled", "Expired", or why it could not be done. A card still waiting
turns to "Expired" by itself when its 30 minutes are up; the database refuses a late
Confirm anyway.
"""

from __future__ import annotations

from datetime import datetime, timezone

from PySide6.QtCore import Qt, QTimer, Signal, SignalInstance
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from core.operations.pending import PendingItem
from desktop.chat.failure import paint_failure
from desktop.chat.held_forms import FORMS

MAX_TIMER_MS = 2**31 - 1
OUTCOMES = {"cancelled": "Cancelled", "expired": "Expired: nothing was done (no answer in "
                                                 "30 minutes)"}


def outcome_text(item: PendingItem) -> str:
    """What an answered request shows in place of its buttons."""
    if item.status == "confirmed":
        return f"Done: {item.result or item.preview}"
    return OUTCOMES.get(item.status, item.status)


class PendingCard(QFrame):
    """One held request. ``confirm_requested`` / ``cancel_requested`` carry its id;
    ``edit_requested`` carries the item (its ``source_message`` goes to the composer)."""

    confirm_requested = Signal(int)
    cancel_requested = Signal(int)
    edit_requested = Signal(object)

    def __init__(self, item: PendingItem, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pending-card")
        self.item = item
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.Base)
        self.title = QLabel("Waiting for your confirmation")
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.preview = QLabel(item.preview)
        self.preview.setWordWrap(True)
        self.preview.setTextFormat(Qt.TextFormat.PlainText)  # the model's words, never markup
        self.preview.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.outcome = QLabel()
        self.outcome.setWordWrap(True)
        self.outcome.setTextFormat(Qt.TextFormat.PlainText)
        self.outcome.setFont(bold)
        self.outcome.setVisible(False)
        self.confirm_button = QPushButton("Confirm")
        self.confirm_button.setDefault(True)
        self.confirm_button.setToolTip("Do it now")
        self.edit_button = QPushButton("Edit")
        self.edit_button.setToolTip(
            "Change it in its own form, then add it" if item.action in FORMS
            else "Change your request and send it again (this one is cancelled)")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Do not do it")
        for button in (self.confirm_button, self.edit_button, self.cancel_button):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the message box
        self.confirm_button.clicked.connect(lambda: self._ask(self.confirm_requested))
        self.cancel_button.clicked.connect(lambda: self._ask(self.cancel_requested))
        self.edit_button.clicked.connect(self._edit)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 4, 0, 0)
        for button in (self.confirm_button, self.edit_button, self.cancel_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        layout.addWidget(self.title)
        layout.addWidget(self.preview)
        layout.addLayout(buttons)
        layout.addWidget(self.outcome)
        self._expiry = QTimer(self)
        self._expiry.setSingleShot(True)
        self._expiry.timeout.connect(self._expired)
        self.update_item(item)

    @property
    def buttons(self) -> tuple[QPushButton, ...]:
        return (self.confirm_button, self.edit_button, self.cancel_button)

    @property
    def waiting(self) -> bool:
        return self.item.status == "pending" and not self.outcome.isVisible()

    def update_item(self, item: PendingItem) -> None:
        """Show ``item`` as it now is (its preview too: edited in its form, it changed):
        buttons while it waits, else its outcome."""
        self.item = item
        self.preview.setText(item.preview)
        if item.status != "pending":
            self.show_outcome(outcome_text(item))
            return
        left = (item.expires_at - datetime.now(timezone.utc)).total_seconds()
        if left <= 0:
            self._expired()
            return
        self._expiry.start(min(MAX_TIMER_MS, int(left * 1000) + 500))
        self._set_enabled(True)

    def show_outcome(self, text: str, *, failed: bool = False) -> None:
        """The request was answered (or could not be): its outcome replaces the buttons."""
        self._expiry.stop()
        for button in self.buttons:
            button.setVisible(False)
        self.title.setVisible(False)  # the outcome says it all; the request stays above it
        self.preview.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.outcome.setText(text)
        if failed:
            paint_failure(self.outcome)
        self.outcome.setVisible(True)

    def show_failure(self, text: str) -> None:
        """Confirming failed for a reason the user can fix: say it, keep the buttons."""
        self.outcome.setText(text)
        paint_failure(self.outcome)
        self.outcome.setVisible(True)
        self._set_enabled(True)

    def _ask(self, signal: SignalInstance) -> None:
        self._set_enabled(False)  # one answer at a time; the page re-enables on failure
        signal.emit(self.item.id)

    def _edit(self) -> None:
        self._set_enabled(False)
        self.edit_requested.emit(self.item)

    def _set_enabled(self, enabled: bool) -> None:
        for button in self.buttons:
            button.setEnabled(enabled)

    def _expired(self) -> None:
        self.show_outcome(OUTCOMES["expired"])
