"""The open chat, in the middle of the Chat page: a banner while the assistant is not there,
the "Learn from this chat" switch, the transcript, and below it where the user writes (the
composer; the bar shown while the last message is being edited; for an imported chat, a
note that it is read-only in the composer's place).

It shows the states the page sets (available or not, read-only, editing); what is sent,
streamed or loaded is the page's work (``desktop.chat.page``)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette, QTextCursor
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.operations.chats import SessionInfo
from desktop.chat.composer import Composer
from desktop.chat.conversation_list import source_note
from desktop.chat.failure import paint_failure
from desktop.chat.learning_switch import ChatLearningSwitch
from desktop.chat.message_actions import EditBar
from desktop.chat.transcript import Transcript
from desktop.context import AppContext

CONVERSATION_MIN_WIDTH = 380


class ConversationView(QWidget):
    """The banner, the learning switch, the transcript, the edit bar, the read-only note
    and the composer, top to bottom."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setMargin(8)
        self.banner.setVisible(False)
        self.read_only_note = QLabel()
        self.read_only_note.setWordWrap(True)
        self.read_only_note.setMargin(12)
        self.read_only_note.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.read_only_note.setVisible(False)
        self.transcript = Transcript()
        self.edit_bar = EditBar()
        self.composer = Composer()
        self.learning_switch = ChatLearningSwitch(ctx)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        layout.addWidget(self.banner)
        layout.addWidget(self.learning_switch)
        layout.addWidget(self.transcript, 1)
        layout.addWidget(self.edit_bar)
        layout.addWidget(self.read_only_note)
        layout.addWidget(self.composer)
        # the conversation keeps a readable width when the Why? panel opens on a small
        # screen: the list of chats and the panel give way instead
        self.setMinimumWidth(CONVERSATION_MIN_WIDTH)

    @property
    def read_only(self) -> bool:
        """An imported chat is open: it is shown, not continued."""
        return self.read_only_note.isVisibleTo(self)

    def set_available(self) -> None:
        """The assistant is there: the banner goes and the composer takes messages."""
        self.banner.setVisible(False)
        self.composer.set_available(True)

    def set_unavailable(self, reason: str, banner: str = "") -> None:
        """The assistant is not there: the composer says ``reason``, and the banner says
        ``banner`` (a failure, painted as one) or else ``reason``."""
        self.composer.set_available(False, reason)
        self.banner.setText(banner or reason)
        if banner:
            paint_failure(self.banner)
        else:
            self.banner.setPalette(self.palette())
        self.banner.setVisible(True)

    def set_read_only(self, info: SessionInfo | None) -> None:
        """An imported conversation is shown, not continued: no composer, a note why."""
        imported = info is not None and info.imported
        if imported and info is not None:
            self.read_only_note.setText(
                f"{source_note(info)} (a conversation brought in from a file). It is "
                "read-only: Hearth remembers what was said in it; start a new chat to "
                "talk about it.")
        self.read_only_note.setVisible(imported)
        self.composer.setVisible(not imported)
        self.transcript.set_again_allowed(not imported)

    def show_editing(self, text: str) -> None:
        """The last message is in the composer to be changed, with the bar that says so."""
        self.edit_bar.setVisible(True)
        self.composer.edit.setPlainText(text)
        self.composer.edit.moveCursor(QTextCursor.MoveOperation.End)
        self.composer.edit.setFocus()

    def end_editing(self) -> None:
        """Editing is over: the bar goes and the composer is emptied."""
        self.edit_bar.setVisible(False)
        self.composer.edit.clear()
