"""The list of chats on the left of the Chat page: New chat and Incognito, rename and
delete, a search that runs once typing pauses, and the chats themselves, newest first.

It shows and asks, nothing more: reading the chats, opening one and starting one are the
page's work (``desktop.chat.page``), which hears what the user does through the signals."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QToolButton, QVBoxLayout, QWidget

from core.operations.chats import SessionInfo
from desktop.chat.conversation_list import ConversationListModel, ConversationListView
from desktop.icons import icon

SEARCH_DELAY_MS = 250
"""The search runs once typing pauses this long, not at every key."""


def _small_button(name: str, text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setIcon(icon(name))
    button.setText(text)
    button.setToolTip(tip)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setAutoRaise(True)
    return button


class SessionList(QWidget):
    """The chats, their search and their buttons.

    ``chosen(session_id)``: the user picked a chat in the list (a row selected from code
    with ``mark`` is not a pick). ``new_requested`` and ``incognito_requested``: the
    buttons. ``search_changed``: the search text changed and typing paused.
    ``rename_requested(session_id, title)`` and ``delete_requested(session_id)``: from the
    list (F2, a double click, Delete)."""

    chosen = Signal(str)
    new_requested = Signal()
    incognito_requested = Signal()
    search_changed = Signal()
    rename_requested = Signal(str, str)
    delete_requested = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.list_model = ConversationListModel(self)
        self.list_view = ConversationListView()
        self.list_view.setModel(self.list_model)
        self.list_view.selectionModel().currentRowChanged.connect(self._selected)
        self.list_model.rename_requested.connect(self.rename_requested)
        self.list_view.delete_requested.connect(self.delete_requested)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search chats")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Find chats by words in their titles and messages (Ctrl+F)")
        self._search_timer = QTimer(self)
        self._search_timer.setSingleShot(True)
        self._search_timer.setInterval(SEARCH_DELAY_MS)
        self._search_timer.timeout.connect(self.search_changed)
        self.search.textChanged.connect(self._search_timer.start)
        new = _small_button("new-chat", "New chat", "Start a new chat (Ctrl+N)")
        new.clicked.connect(self.new_requested)
        incognito = _small_button("incognito", "Incognito",
                                  "Start a chat that is never learned from and is deleted "
                                  "when you leave it (Ctrl+Shift+N)")
        incognito.clicked.connect(self.incognito_requested)
        rename = _small_button("rename", "", "Rename the selected chat (F2)")
        rename.clicked.connect(self.list_view.rename_current)
        delete = _small_button("delete", "", "Delete the selected chat (Del)")
        delete.clicked.connect(self.list_view.delete_current)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(new)
        buttons.addWidget(incognito)
        buttons.addStretch(1)
        buttons.addWidget(rename)
        buttons.addWidget(delete)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        layout.addLayout(buttons)
        layout.addWidget(self.search)
        layout.addWidget(self.list_view, 1)

    def query(self) -> str:
        """What the search box holds (blank: every chat is listed)."""
        return self.search.text()

    def show_sessions(self, sessions: list[SessionInfo]) -> None:
        self.list_model.set_sessions(sessions)

    def info(self, session_id: str) -> SessionInfo | None:
        """The listed chat ``session_id`` (None when it is not listed)."""
        row = self.list_model.row_of(session_id)
        return self.list_model.session(row) if row is not None else None

    def mark(self, session_id: str) -> bool:
        """Select a chat's row without it counting as the user's pick; False when the chat
        is not listed."""
        row = self.list_model.row_of(session_id)
        if row is None:
            return False
        selection = self.list_view.selectionModel()
        selection.blockSignals(True)
        self.list_view.setCurrentIndex(self.list_model.index(row))
        selection.blockSignals(False)
        self.list_view.viewport().update()
        return True

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.chosen.emit(self.list_model.session(current.row()).id)
