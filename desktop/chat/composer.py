"""Where the user types: Enter (or Ctrl+Enter) sends, Shift+Enter starts a new line; while a
reply streams, the Send button becomes Stop.

The edit is a plain-text editor, so a pasted page of text (or a whole log file) goes in
as it is, without rich-text layout costs, and is sent whole."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent, QTextCursor
from PySide6.QtWidgets import QHBoxLayout, QPlainTextEdit, QPushButton, QWidget

from desktop.icons import icon

SEND_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
MIN_LINES, MAX_LINES = 2, 8
PLACEHOLDER = "Message Hearth (Enter to send, Shift+Enter for a new line)"


class MessageEdit(QPlainTextEdit):
    """A plain-text editor in which Enter sends and Shift+Enter breaks the line."""

    submitted = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTabChangesFocus(True)
        self.document().contentsChanged.connect(self._fit)
        self._fit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        if event.key() in SEND_KEYS and not event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.submitted.emit()
            return
        super().keyPressEvent(event)

    def _fit(self) -> None:
        """Grow with the text from two to eight lines, then scroll."""
        lines = min(MAX_LINES, max(MIN_LINES, self.document().blockCount()))
        line = self.fontMetrics().lineSpacing()
        margins = self.contentsMargins()
        self.setFixedHeight(lines * line + 2 * int(self.document().documentMargin())
                            + margins.top() + margins.bottom())


class Composer(QWidget):
    """The message editor and the Send/Stop button.

    ``send_requested(text)`` carries the trimmed text (never empty); ``stop_requested``
    asks to stop the reply in progress."""

    send_requested = Signal(str)
    stop_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.edit = MessageEdit()
        self.edit.setPlaceholderText(PLACEHOLDER)
        self.send_button = QPushButton(icon("send"), "Send")
        self.send_button.setToolTip("Send (Enter)")
        self.stop_button = QPushButton(icon("stop"), "Stop")
        self.stop_button.setToolTip("Stop the reply (Esc); what was said so far is kept")
        self.stop_button.setVisible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 8, 16, 12)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.send_button, 0, Qt.AlignmentFlag.AlignBottom)
        layout.addWidget(self.stop_button, 0, Qt.AlignmentFlag.AlignBottom)
        self.edit.submitted.connect(self.submit)
        self.send_button.clicked.connect(self.submit)
        self.stop_button.clicked.connect(self.stop_requested)
        self._busy = False
        self._available = True

    @property
    def busy(self) -> bool:
        return self._busy

    def submit(self) -> None:
        """Send what is typed (nothing happens for blank text or while a reply runs)."""
        text = self.edit.toPlainText()
        if self._busy or not self._available or not text.strip():
            return
        self.edit.clear()
        self.send_requested.emit(text.strip())

    def set_busy(self, busy: bool) -> None:
        """A reply is streaming: Stop replaces Send (the user may type the next message)."""
        self._busy = busy
        self.send_button.setVisible(not busy)
        self.stop_button.setVisible(busy)

    @property
    def available(self) -> bool:
        """Whether a message can be sent now (the assistant is ready)."""
        return self._available

    def set_available(self, available: bool, reason: str = "") -> None:
        """Allow sending, or refuse it and say why in the editor's placeholder. The editor
        itself stays enabled: it has the keyboard focus from the start, so what the user
        types while the assistant starts lands here (and is sent with Enter once it is
        ready), never in another widget."""
        self._available = available
        self.send_button.setEnabled(available)
        self.edit.setPlaceholderText(PLACEHOLDER if available else reason)
        # Qt repaints the placeholder only when it appears or goes, not when its text
        # changes under an empty editor: "Starting the assistant…" stayed on screen
        self.edit.viewport().update()

    def restore(self, text: str) -> None:
        """Put an unsent message back (after a failure) unless something new was typed."""
        if not self.edit.toPlainText().strip():
            self.edit.setPlainText(text)
            self.edit.moveCursor(QTextCursor.MoveOperation.End)
