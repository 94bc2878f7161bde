"""The "Learn from this chat" switch above the transcript.

Off, nothing said in the open chat becomes a fact, a memory or a summary
(``core.learning.consent``); the chat itself is kept. While learning is paused for every
chat (Settings → Privacy, Memory → Pause learning) the switch says so and waits. In an
incognito chat it says that the chat is incognito, and cannot be turned on.
"""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QWidget

from core.operations import chats
from core.operations.changes import Changes, Domain
from core.operations.chats import SessionInfo
from desktop.context import AppContext

PAUSED = "Learning is paused for every chat (Settings → Privacy)."
OFF = "Hearth is not learning from this chat: nothing said here is remembered."
INCOGNITO = ("Incognito chat: nothing said here is remembered, and the chat is deleted when "
             "you leave it or quit Hearth.")


class ChatLearningSwitch(QWidget):
    """A check box for the open chat, and a line saying what it means when it is off."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._chat: SessionInfo | None = None
        self._incognito = False
        self.box = QCheckBox("Learn from this chat")
        self.box.setToolTip("When off, Hearth answers but remembers nothing from this chat")
        self.box.toggled.connect(self._toggled)
        self.state = QLabel()
        self.state.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.state.setWordWrap(True)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(16, 4, 16, 0)
        layout.addWidget(self.box)
        layout.addWidget(self.state, 1)
        ctx.hub.changed.connect(self._changed)
        self._refresh()

    def show_chat(self, chat: SessionInfo | None, *, incognito: bool = False) -> None:
        """The open chat (None: no chat yet, the first message makes one); ``incognito``
        for one just made, before the list has read it back."""
        self._chat = chat
        self._incognito = incognito or (chat is not None and chat.incognito)
        self._refresh()

    @property
    def incognito(self) -> bool:
        return self._incognito

    def _changed(self, changes: Changes) -> None:
        if changes.touches(Domain.SETTINGS):  # "memory off" may have moved
            self._refresh()

    def _refresh(self) -> None:
        paused = self._ctx.settings.learning_paused
        learns = not self._incognito and (self._chat is None or self._chat.learns)
        self.box.blockSignals(True)
        self.box.setChecked(learns and not paused)
        self.box.blockSignals(False)
        self.box.setEnabled(self._chat is not None and not paused and not self._incognito)
        self.state.setText(INCOGNITO if self._incognito else PAUSED if paused
                           else "" if learns else OFF)
        font = self.state.font()
        font.setBold(self._incognito)
        self.state.setFont(font)

    def _toggled(self, learn: bool) -> None:
        chat, assistant = self._chat, self._ctx.assistant
        if chat is None or assistant is None:
            return
        self._chat = replace(chat, learns=learn)
        self.state.setText("" if learn else OFF)
        self._ctx.workers.start(
            "Saving the chat's learning choice",
            lambda _task: chats.set_learning(assistant, chat.id, learn),
            on_failed=self._failed, writes=True)

    def _failed(self, message: str, hint: str) -> None:
        self._refresh()  # back to what is stored
        self._ctx.hub.status_message.emit(f"{message} {hint}".strip())
