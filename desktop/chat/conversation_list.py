"""The list of chats, most recently active first: a list model over
``ChatSessions.recent_sessions`` (or a search's results) and a view where F2
renames and Delete deletes. Each row says when the chat was last active (Today,
Yesterday, or the date); an imported conversation says it was imported, and from where.

The model never writes: an edited title is handed to the page (``rename_requested``),
which saves it in the background and reloads, so the list always shows what is stored."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QAction, QKeyEvent
from PySide6.QtWidgets import QAbstractItemView, QListView, QWidget

from core.operations.chats import SessionInfo
from desktop.chat.transcript import local_time
from desktop.icons import icon
from desktop.words import count

UNTITLED = "New chat"
IMPORTED = "Imported"
SESSION_ID_ROLE = Qt.ItemDataRole.UserRole
Index = QModelIndex | QPersistentModelIndex


def day_label(moment: datetime, today: date | None = None) -> str:
    """``Today``, ``Yesterday``, ``3 Mar`` (this year) or ``3 Mar 2025``, in local time."""
    day = moment.astimezone().date()
    today = today or datetime.now().astimezone().date()
    if day == today:
        return "Today"
    if day == today - timedelta(days=1):
        return "Yesterday"
    return f"{day:%-d %b}" if day.year == today.year else f"{day:%-d %b %Y}"


EXPORTS = {"chatgpt": "a ChatGPT export", "claude": "a Claude export"}
"""A chat service whose conversations are imported under ``<service>:<its own id>``."""


def source_note(info: SessionInfo) -> str:
    """Where an imported conversation came from ("" for a chat): "Imported from a ChatGPT
    export", not its id there ("chatgpt:873d…", see ``source_details``); a transcript's
    conversation is named by the name it has in its file ("maya-and-sam")."""
    if not info.imported:
        return ""
    key = info.conversation_id
    if not key:
        return IMPORTED
    service, colon, _ = key.partition(":")
    export = EXPORTS.get(service) if colon else None
    return f"{IMPORTED} from {export}" if export else f"{IMPORTED} from “{key}”"


def source_details(info: SessionInfo) -> str:
    """The conversation's id in the export it came from, for Details (a tooltip)."""
    service, colon, own = (info.conversation_id or "").partition(":")
    return f"Details: its id in {EXPORTS[service]} is {own}" if colon and service in EXPORTS \
        else ""


class ConversationListModel(QAbstractListModel):
    """Chats as rows: the title to show and edit, a tooltip with dates and size."""

    rename_requested = Signal(str, str)  # (session id, new title)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._sessions: list[SessionInfo] = []

    def set_sessions(self, sessions: list[SessionInfo]) -> None:
        self.beginResetModel()
        self._sessions = list(sessions)
        self.endResetModel()

    def session(self, row: int) -> SessionInfo:
        return self._sessions[row]

    def row_of(self, session_id: str) -> int | None:
        return next((row for row, s in enumerate(self._sessions) if s.id == session_id), None)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self._sessions)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        info = self._sessions[index.row()]
        active = info.last_message_at or info.started_at
        if role == Qt.ItemDataRole.DisplayRole:
            when = " · ".join(filter(None, [IMPORTED if info.imported else "",
                                            day_label(active)]))
            return f"{info.title or UNTITLED}\n{when}"
        if role == Qt.ItemDataRole.EditRole:
            return info.title or UNTITLED
        if role == Qt.ItemDataRole.ToolTipRole:
            noun = "turn" if info.imported else "exchange"
            size = count(info.exchanges, noun)
            lines = [info.title or UNTITLED, source_note(info),
                     f"{size} · last active {local_time(active)}", source_details(info)]
            return "\n".join(filter(None, lines))
        if role == Qt.ItemDataRole.DecorationRole:
            return icon("chat")
        if role == SESSION_ID_ROLE:
            return info.id
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        base = super().flags(index)
        return base | Qt.ItemFlag.ItemIsEditable if index.isValid() else base

    def setData(self, index: Index, value: Any,  # noqa: N802 (Qt's name)
                role: int = Qt.ItemDataRole.EditRole) -> bool:
        if role != Qt.ItemDataRole.EditRole or not index.isValid():
            return False
        info = self._sessions[index.row()]
        title = " ".join(str(value).split())
        if title and title != info.title:
            self.rename_requested.emit(info.id, title)
        return False  # the stored title comes back with the reload


class ConversationListView(QListView):
    """The chats; F2 (or double-click) renames in place, Delete asks to delete."""

    delete_requested = Signal(str)  # session id

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.EditKeyPressed
                             | QAbstractItemView.EditTrigger.DoubleClicked)
        self.setUniformItemSizes(True)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        # The keys themselves are handled by the view (F2: Qt's edit trigger; Delete:
        # keyPressEvent); the text after the tab shows them in the context menu.
        self.rename_action = QAction(icon("rename"), "Rename\tF2", self)
        self.rename_action.triggered.connect(self.rename_current)
        self.delete_action = QAction(icon("delete"), "Delete…\tDel", self)
        self.delete_action.triggered.connect(self.delete_current)
        self.addAction(self.rename_action)
        self.addAction(self.delete_action)

    def current_session_id(self) -> str | None:
        index = self.currentIndex()
        return index.data(SESSION_ID_ROLE) if index.isValid() else None

    def rename_current(self) -> None:
        if self.currentIndex().isValid():
            self.edit(self.currentIndex())

    def delete_current(self) -> None:
        session_id = self.current_session_id()
        if session_id is not None:
            self.delete_requested.emit(session_id)

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 (Qt's name)
        """Delete (and Backspace, as on a Mac keyboard) when not editing a title."""
        if (event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace)
                and self.state() != QAbstractItemView.State.EditingState):
            self.delete_current()
            return
        super().keyPressEvent(event)
