"""The Chat page: chats on the left, the open chat in the middle, and on the right (when
asked) why a reply said what it said.

Everything that touches the database or the model runs as a background job; this class
only arranges widgets and reacts to results. One reply streams at a time. While the
assistant is (re)starting the composer is disabled and says so; if it could not start,
the page says why."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex, Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QSplitter,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.conversation import (
    Compacted,
    ConversationService,
    TextDelta,
    ToolActivity,
    TurnEvent,
    TurnFailed,
)
from core.conversation.service import Exchange, SessionDeletion, SessionInfo
from core.views.reply_context import reply_context
from desktop.chat.composer import Composer
from desktop.chat.conversation_list import (
    UNTITLED,
    ConversationListModel,
    ConversationListView,
)
from desktop.chat.learning_watch import LearningWatch
from desktop.chat.transcript import ReplyMessage, Transcript, paint_failure, tool_line
from desktop.chat.turn import TurnResult, turn_job
from desktop.chat.why_panel import WhyPanel
from desktop.context import AppContext
from desktop.icons import icon
from desktop.page import Page
from desktop.words import count
from desktop.workers import Task

SESSIONS_LISTED = 500
STARTING = "Starting the assistant…"


def confirm_delete(parent: QWidget, info: SessionInfo) -> bool:
    """Ask before deleting a chat, saying what goes and what stays."""
    box = QMessageBox(QMessageBox.Icon.Warning, "Delete chat",
                      f"Delete “{info.title or UNTITLED}”?", parent=parent)
    box.setInformativeText(
        f"Its {count(info.exchanges, 'exchange')}, what the assistant was given for each reply "
        "and the summaries of this chat are deleted. Facts learned from it stay: edit or "
        "forget them in Facts.")
    delete = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(QMessageBox.StandardButton.Cancel)
    box.exec()
    return box.clickedButton() is delete


def _small_button(name: str, text: str, tip: str) -> QToolButton:
    button = QToolButton()
    button.setIcon(icon(name))
    button.setText(text)
    button.setToolTip(tip)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    button.setAutoRaise(True)
    return button


class ChatPage(Page):
    key = "chat"
    title = "Chat"
    about = "Talk with Hearth; your conversations are listed newest first."
    icon_name = "chat"

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.current_session: str | None = None
        self._turn: Task | None = None
        self._turn_session: str | None = None
        self._turn_text = ""
        self._reply: ReplyMessage | None = None
        self._opened_on_start = False
        self.learning_watch = LearningWatch(ctx, self)
        self._build()
        hub = ctx.hub
        hub.assistant_ready.connect(self._assistant_ready)
        hub.assistant_failed.connect(self._assistant_failed)
        hub.settings_changed.connect(self._check_assistant)
        hub.conversations_changed.connect(self.reload_list)
        if ctx.assistant is not None:
            self._assistant_ready()
        else:
            self._set_unavailable(STARTING)

    # --- layout ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.list_model = ConversationListModel(self)
        self.list_view = ConversationListView()
        self.list_view.setModel(self.list_model)
        self.list_view.selectionModel().currentRowChanged.connect(self._selected)
        self.list_model.rename_requested.connect(self.rename_session)
        self.list_view.delete_requested.connect(self.delete_session)
        new = _small_button("new-chat", "New chat", "Start a new chat (Ctrl+N)")
        new.clicked.connect(self.new_conversation)
        rename = _small_button("rename", "Rename", "Rename the selected chat (F2)")
        rename.clicked.connect(self.list_view.rename_current)
        delete = _small_button("delete", "", "Delete the selected chat (Del)")
        delete.clicked.connect(self.list_view.delete_current)
        buttons = QHBoxLayout()
        buttons.setContentsMargins(0, 0, 0, 0)
        buttons.addWidget(new)
        buttons.addStretch(1)
        buttons.addWidget(rename)
        buttons.addWidget(delete)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(6, 6, 0, 6)
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.list_view, 1)

        self.banner = QLabel()
        self.banner.setWordWrap(True)
        self.banner.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.banner.setMargin(8)
        self.banner.setVisible(False)
        self.transcript = Transcript()
        self.transcript.why_requested.connect(self.show_why)
        self.composer = Composer()
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop)
        middle = QWidget()
        middle_layout = QVBoxLayout(middle)
        middle_layout.setContentsMargins(0, 0, 0, 0)
        middle_layout.setSpacing(0)
        middle_layout.addWidget(self.banner)
        middle_layout.addWidget(self.transcript, 1)
        middle_layout.addWidget(self.composer)

        self.why_panel = WhyPanel()
        self.why_panel.setVisible(False)
        splitter = QSplitter()
        splitter.addWidget(left)
        splitter.addWidget(middle)
        splitter.addWidget(self.why_panel)
        splitter.setStretchFactor(1, 1)
        splitter.setSizes([220, 700, 340])
        splitter.setChildrenCollapsible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(splitter)
        for key, slot in ((Qt.Key.Key_Escape, self.stop),
                          (Qt.Key.Key_F2, self.list_view.rename_current)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)

    # --- the assistant -----------------------------------------------------------------------

    @property
    def conversation(self) -> ConversationService | None:
        assistant = self.ctx.assistant
        return assistant.conversation if assistant is not None else None

    @property
    def busy(self) -> bool:
        """A reply is streaming."""
        return self._turn is not None and self._turn.running

    def _assistant_ready(self) -> None:
        self.banner.setVisible(False)
        self.composer.set_available(True)
        self.reload_list()

    def _assistant_failed(self, message: str, hint: str) -> None:
        self._set_unavailable("The assistant could not start.",
                              f"The assistant could not start: {message} {hint}".strip())

    def _check_assistant(self) -> None:
        """Settings that rebuild the assistant leave it unset until it is ready again."""
        if self.ctx.assistant is None:
            self._set_unavailable(STARTING)

    def _set_unavailable(self, reason: str, banner: str = "") -> None:
        self.composer.set_available(False, reason)
        self.banner.setText(banner or reason)
        if banner:
            paint_failure(self.banner)
        else:
            self.banner.setPalette(self.palette())
        self.banner.setVisible(True)

    def activate(self) -> None:
        self.reload_list()
        self.composer.edit.setFocus()

    # --- the list of chats -------------------------------------------------------------------

    def reload_list(self) -> None:
        """Read the chats again, keeping the open chat selected."""
        conversation = self.conversation
        if conversation is None:
            return
        self.run("Loading chats", lambda _task: conversation.recent_sessions(SESSIONS_LISTED),
                 self._show_sessions)

    def _show_sessions(self, sessions: list[SessionInfo]) -> None:
        wanted = self.current_session
        if wanted is None and not self._opened_on_start and sessions and not self.busy:
            wanted = sessions[0].id  # on start, the most recent chat is open
        self._opened_on_start = True
        self.list_model.set_sessions(sessions)
        row = self.list_model.row_of(wanted) if wanted else None
        if row is None:
            if self.current_session is not None and not self.busy:
                self._show_chat(None)  # the open chat is gone (deleted elsewhere)
            return
        self._mark_in_list(row)
        if wanted != self.current_session:
            self.open_session(wanted)

    def _mark_in_list(self, row: int) -> None:
        """Select a chat's row without it counting as the user's click."""
        selection = self.list_view.selectionModel()
        selection.blockSignals(True)
        self.list_view.setCurrentIndex(self.list_model.index(row))
        selection.blockSignals(False)
        self.list_view.viewport().update()

    def _selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.open_session(self.list_model.session(current.row()).id)

    def _info(self, session_id: str) -> SessionInfo | None:
        row = self.list_model.row_of(session_id)
        return self.list_model.session(row) if row is not None else None

    def open_session(self, session_id: str) -> None:
        """Show a chat's transcript (loaded in the background)."""
        conversation = self.conversation
        if conversation is None or session_id == self.current_session:
            return
        self._show_chat(session_id)
        row = self.list_model.row_of(session_id)
        if row is not None:  # opened from code (not a click): the list follows
            self._mark_in_list(row)
        self.transcript.set_empty_text("Loading…")
        self.run("Opening the chat", lambda _task: conversation.session_history(session_id),
                 lambda exchanges: self._show_history(session_id, exchanges))

    def _show_chat(self, session_id: str | None) -> None:
        self.current_session = session_id
        self._reply = None  # a reply still streaming elsewhere stops drawing here
        self.transcript.clear()
        self.transcript.set_empty_text("")
        self.why_panel.setVisible(False)

    def _show_history(self, session_id: str, exchanges: list[Exchange]) -> None:
        if session_id != self.current_session:
            return  # the user moved on meanwhile
        self.transcript.show_exchanges(exchanges)
        self.transcript.set_empty_text("")

    def new_conversation(self) -> None:
        """Start a chat (Ctrl+N). An open chat with nothing said yet is reused instead of
        piling up empty ones; the previous chat is handed to learning to be summarised."""
        conversation = self.conversation
        if conversation is None:
            self.ctx.hub.status_message.emit("The assistant is still starting.")
            return
        current = self._info(self.current_session) if self.current_session else None
        if current is not None and current.exchanges == 0 and not self.transcript.messages:
            self.composer.edit.setFocus()
            return
        assistant = self.ctx.assistant
        finished = (self.current_session
                    if not (self.busy and self._turn_session == self.current_session) else None)

        def start(_task: Task) -> str:
            if finished is not None and assistant is not None:
                assistant.learning.session_ended(finished)
            return conversation.new_session()

        def started(session_id: str) -> None:
            self._show_chat(session_id)
            self.ctx.hub.conversations_changed.emit()  # the list reloads, selecting it
            self.composer.edit.setFocus()

        self.run("Starting a chat", start, started)

    def rename_session(self, session_id: str, title: str) -> None:
        conversation = self.conversation
        if conversation is None:
            return
        self.run("Renaming the chat", lambda _task: conversation.rename_session(session_id, title),
                 lambda _stored: self.ctx.hub.conversations_changed.emit())

    def delete_session(self, session_id: str) -> None:
        """Delete a chat after asking; a reply streaming in it is stopped first."""
        conversation, info = self.conversation, self._info(session_id)
        if conversation is None or info is None or not confirm_delete(self, info):
            return
        if self.busy and self._turn_session == session_id and self._turn is not None:
            self._turn.cancel()

        def deleted(removed: SessionDeletion) -> None:
            if self.current_session == session_id:
                self._show_chat(None)
            self.ctx.hub.conversations_changed.emit()
            self.ctx.hub.status_message.emit(
                f"Deleted “{info.title or UNTITLED}” ({count(removed.exchanges, 'exchange')}, "
                f"{count(removed.summaries, 'summary', 'summaries')}). Facts learned from it are still in Facts.")

        self.run("Deleting the chat", lambda _task: conversation.delete_session(session_id),
                 deleted)

    # --- a turn ------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        """Send a message in the open chat (a new chat if none is open)."""
        conversation = self.conversation
        if conversation is None or self.busy:
            self.composer.restore(text)
            return
        provider = conversation.provider
        self.transcript.add_user(text)
        self._reply = self.transcript.start_reply(f"{provider.name} · {provider.model}")
        self.transcript.scroll_to_end()
        self._turn_text, self._turn_session = text, self.current_session
        self.composer.set_busy(True)
        self._turn = self.ctx.workers.start(
            "Chat reply", turn_job(conversation, self.current_session, text),
            on_item=self._on_event, on_done=self._turn_done, on_failed=self._turn_crashed)

    def stop(self) -> None:
        """Stop the reply (Esc): the model is cancelled, what it said so far is kept."""
        if self.busy and self._turn is not None:
            self._turn.cancel()
            if self._reply is not None:
                self._reply.footer.setText("stopping…")

    def _on_event(self, event: TurnEvent) -> None:
        if isinstance(event, Compacted):
            self.ctx.hub.status_message.emit(
                f"{event.folded_exchanges} older exchanges were folded into a summary.")
        if self._reply is None:
            return
        if isinstance(event, TextDelta):
            self._reply.append(event.text)
        elif isinstance(event, ToolActivity):
            self._reply.add_activity(tool_line(event.name, event.result_summary, event.ok))

    def _turn_done(self, result: TurnResult) -> None:
        outcome = result.outcome
        if self._turn_session is None and self.current_session is None:
            self.current_session = result.session_id  # the chat the first message made
        if isinstance(outcome, TurnFailed):
            self._end_turn("failed", outcome.interaction_id,
                           f"{outcome.message} {outcome.hint}".strip())
        else:
            self._end_turn("stopped" if outcome.stopped else "completed",
                           outcome.interaction_id)
        self.ctx.hub.conversations_changed.emit()
        self.learning_watch.exchange_saved()

    def _turn_crashed(self, message: str, hint: str) -> None:
        """The turn could not run at all (the chat was deleted, the database refused)."""
        self._end_turn("failed", None, f"{message} {hint}".strip())
        self.ctx.hub.conversations_changed.emit()

    def _end_turn(self, status: str, interaction_id: int | None, note: str = "") -> None:
        self.composer.set_busy(False)
        if self._reply is not None:
            self._reply.finish(status, interaction_id, note=note)
        elif self.current_session == self._turn_session and self.current_session is not None:
            session_id, self.current_session = self.current_session, None
            self.open_session(session_id)  # came back to this chat mid-reply: reload it
        if status == "failed":
            self.composer.restore(self._turn_text)
        self._reply = None

    # --- why ---------------------------------------------------------------------------------

    def show_why(self, interaction_id: int) -> None:
        """Open the side panel on what a reply was given."""
        self.why_panel.setVisible(True)
        self.why_panel.show_loading()
        storage = self.ctx.hearth.storage
        self.run("Reading the reply's context",
                 lambda _task: reply_context(storage, interaction_id), self.why_panel.show_items)
