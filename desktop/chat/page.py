"""The Chat page: the chats on the left (``SessionList``), the open chat in the middle
(``ConversationView``: the transcript and the composer), and on the right, when asked, why
a reply said what it said (``WhyPanel``).

Those widgets show and ask; the page does the work between them. Everything that touches
the database or the model runs as a background job, and the page reacts to the results.
One reply streams at a time. While the assistant is (re)starting the composer is disabled
and says so; if it could not start, the page says why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QHBoxLayout, QMessageBox, QSplitter, QWidget

from core.operations import chats
from core.operations.changes import KNOWLEDGE, Changes, Domain
from core.operations.chats import (
    Compacted,
    Deleted,
    Exchange,
    FromMemory,
    SessionInfo,
    Started,
    TextDelta,
    ToolActivity,
    TurnEvent,
    TurnFailed,
    TurnResult,
    UsedItem,
)
from desktop.chat.conversation_list import UNTITLED
from desktop.chat.conversation_view import CONVERSATION_MIN_WIDTH, ConversationView
from desktop.chat.learning_note import LearningNotes
from desktop.chat.pending_answers import PendingAnswers
from desktop.chat.session_list import SessionList
from desktop.chat.transcript import ReplyMessage, tool_line
from desktop.chat.turn import again_job, turn_job
from desktop.chat.why_panel import FIX_VIEWS, WhyPanel
from desktop.context import AppContext
from desktop.page import Page
from desktop.words import count
from desktop.workers import Job, Task

if TYPE_CHECKING:
    from core.assistant import Assistant

SESSIONS_LISTED = 500
STARTING = "Starting the assistant…"
WHY_DOMAINS = (*KNOWLEDGE, Domain.NOTES)
"""What the Why? panel lists: facts, memories, the profile, habits, notes and summaries."""
WHY_WIDTH = 340


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
        self._editing: int | None = None  # the exchange whose message is being edited
        self._why_for: int | None = None  # the exchange the Why? panel is about
        self._without: Task | None = None  # its answer without one item, while it runs
        self._opened_on_start = False
        self._list_loads = 0  # numbers each reading of the list: only the latest is shown
        self._build()
        self.learning_notes = LearningNotes(ctx, self.transcript, self)
        self._open_incognito: str | None = None
        """The open chat's id when it is incognito (deleted when the user leaves it)."""
        hub = ctx.hub
        hub.assistant_ready.connect(self._assistant_ready)
        hub.assistant_failed.connect(self._assistant_failed)
        hub.changed.connect(self._changed)
        if ctx.assistant is not None:
            self._assistant_ready()
        else:
            self.conversation.set_unavailable(STARTING)

    # --- layout ------------------------------------------------------------------------------

    def _build(self) -> None:
        self.sessions = SessionList()
        self.sessions.chosen.connect(self.open_session)
        self.sessions.new_requested.connect(lambda: self.new_conversation())
        self.sessions.incognito_requested.connect(self.new_incognito_chat)
        self.sessions.search_changed.connect(self.reload_list)
        self.sessions.rename_requested.connect(self.rename_session)
        self.sessions.delete_requested.connect(self.delete_session)
        self.conversation = ConversationView(self.ctx)
        self.transcript = self.conversation.transcript
        self.transcript.why_requested.connect(self.show_why)
        self.transcript.regenerate_requested.connect(self.regenerate)
        self.transcript.edit_requested.connect(self.begin_edit)
        self.conversation.edit_bar.cancelled.connect(self.cancel_edit)
        self.composer = self.conversation.composer
        self.composer.send_requested.connect(self.send)
        self.composer.stop_requested.connect(self.stop)
        self.pending_answers = PendingAnswers(self.ctx, self.transcript, self.composer,
                                              lambda: self.current_session, self)
        # the parts, reachable from the page by the names they had when it built them
        self.chats_panel = self.sessions
        self.list_model = self.sessions.list_model
        self.list_view = self.sessions.list_view
        self.search = self.sessions.search
        self.banner = self.conversation.banner
        self.read_only_note = self.conversation.read_only_note
        self.edit_bar = self.conversation.edit_bar
        self.learning_switch = self.conversation.learning_switch

        self.why_panel = WhyPanel()
        self.why_panel.setVisible(False)
        self.why_panel.closed.connect(self._close_why_panel)
        self.why_panel.without_requested.connect(self.answer_without)
        self.why_panel.fix_requested.connect(self.fix_item)
        self.splitter = QSplitter()
        self.splitter.addWidget(self.sessions)
        self.splitter.addWidget(self.conversation)
        self.splitter.addWidget(self.why_panel)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([220, 700, WHY_WIDTH])
        self.splitter.setChildrenCollapsible(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)
        for key, slot in ((Qt.Key.Key_Escape, self.escape),
                          (Qt.Key.Key_F2, self.list_view.rename_current)):
            shortcut = QShortcut(QKeySequence(key), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        find = QShortcut(QKeySequence.StandardKey.Find, self)
        find.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
        find.activated.connect(self.search.setFocus)

    # --- the assistant -----------------------------------------------------------------------

    @property
    def assistant(self) -> Assistant | None:
        """The assistant the chat operations run with (None while it (re)starts)."""
        return self.ctx.assistant

    @property
    def busy(self) -> bool:
        """A reply is streaming."""
        return self._turn is not None and self._turn.running

    def _assistant_ready(self) -> None:
        self.conversation.set_available()
        assistant = self.assistant
        if assistant is not None:  # incognito chats a killed Hearth left behind go
            keep = self.current_session
            self.run("Opening the chats",
                     lambda _task: chats.discard_incognito(assistant, keep),
                     lambda _stored: self.reload_list())

    def _assistant_failed(self, message: str, hint: str) -> None:
        self.conversation.set_unavailable(
            "The assistant could not start.",
            f"The assistant could not start: {message} {hint}".strip())

    def _changed(self, changes: Changes) -> None:
        if changes.touches(Domain.SETTINGS):
            self._check_assistant()
        if changes.touches(Domain.CHATS):
            self.reload_list()
            self._reread_open_chat()
        if changes.touches(*WHY_DOMAINS):
            self._reload_why()

    def _check_assistant(self) -> None:
        """Settings that rebuild the assistant leave it unset until it is ready again."""
        if self.ctx.assistant is None:
            self.conversation.set_unavailable(STARTING)

    def activate(self) -> None:
        self.reload_list()
        self.pending_answers.refresh()  # answered elsewhere while another view was in front
        self.composer.edit.setFocus()

    # --- the list of chats -------------------------------------------------------------------

    def reload_list(self) -> None:
        """Read the chats again (those the search finds, while searching), keeping the
        open chat selected. Only the latest reading is shown: an earlier one that answers
        late (read before a chat was started) would otherwise close the chat just opened."""
        assistant = self.assistant
        if assistant is None:
            return
        self._list_loads += 1
        load, query = self._list_loads, self.sessions.query()
        if query.strip():
            self.run("Searching chats",
                     lambda _task: chats.search(assistant, query, SESSIONS_LISTED),
                     lambda found: self._show_found(load, query, found))
            return
        self.run("Loading chats",
                 lambda _task: chats.recent(assistant, SESSIONS_LISTED),
                 lambda sessions: self._show_sessions(load, sessions))

    def _show_found(self, load: int, query: str, sessions: list[SessionInfo]) -> None:
        """Search results: the open chat stays open whether or not it was found."""
        if load != self._list_loads:
            return  # typed on meanwhile: the next search is on its way
        self.sessions.show_sessions(sessions)
        if self.current_session:
            self.sessions.mark(self.current_session)
        found = len(sessions)
        self.ctx.hub.status_message.emit(
            f"{count(found, 'chat')} found" if found
            else f"No chat mentions “{query.strip()}”.")

    def _show_sessions(self, load: int, sessions: list[SessionInfo]) -> None:
        if load != self._list_loads:
            return  # a newer reading (or a search) is on its way and will be shown
        wanted = self.current_session
        if wanted is None and not self._opened_on_start and not self.busy:
            # on start, the most recent chat is open (an imported one is only read)
            wanted = next((s.id for s in sessions if not s.imported), None)
        self._opened_on_start = True
        self.sessions.show_sessions(sessions)
        self.learning_switch.show_chat(
            self.sessions.info(self.current_session) if self.current_session else None,
            incognito=self._open_incognito is not None)
        if wanted is None or not self.sessions.mark(wanted):
            if self.current_session is not None and not self.busy:
                self._show_chat(None)  # the open chat is gone (deleted elsewhere)
            return
        if wanted != self.current_session:
            self.open_session(wanted)

    def open_session(self, session_id: str) -> None:
        """Show a chat's transcript (loaded in the background)."""
        assistant = self.assistant
        if assistant is None or session_id == self.current_session:
            return
        self._show_chat(session_id)
        self.sessions.mark(session_id)  # opened from code (not a click): the list follows
        self.transcript.set_empty_text("Loading…")
        self.run("Opening the chat", lambda _task: chats.history(assistant, session_id),
                 lambda exchanges: self._show_history(session_id, exchanges))

    def _reread_open_chat(self) -> None:
        """Read the open chat again after chats changed: what it shows must be what is
        stored, also when it was rewritten elsewhere (a forget, another window). Left
        alone while a reply streams or the last message is being edited."""
        session_id, assistant = self.current_session, self.assistant
        if (session_id is None or assistant is None or self.busy or self._editing is not None
                or self.transcript.loading):
            return

        def read(exchanges: list[Exchange]) -> None:
            if (session_id == self.current_session and not self.busy
                    and self._editing is None and self.transcript.outdated_by(exchanges)):
                self.transcript.show_exchanges(exchanges)
                self.pending_answers.load(session_id)
                self.learning_notes.show_session(session_id)  # under the new replies

        self.run("Reading the open chat again",
                 lambda _task: chats.history(assistant, session_id), read)

    def _show_chat(self, session_id: str | None, *, incognito: bool = False) -> None:
        """Show ``session_id`` (None: no chat yet). Leaving an incognito chat deletes it."""
        left, self._open_incognito = self._open_incognito, None
        if left is not None and left != session_id:
            self._discard_incognito(keep=session_id)
        info = self.sessions.info(session_id) if session_id else None
        if incognito or (info is not None and info.incognito):
            self._open_incognito = session_id
        self.current_session = session_id
        self.cancel_edit()
        self.conversation.set_read_only(info)
        self._reply = None  # a reply still streaming elsewhere stops drawing here
        self.transcript.clear()
        self.transcript.set_empty_text("")
        self._close_why_panel()
        self.learning_notes.show_session(session_id)
        self.learning_switch.show_chat(info, incognito=self._open_incognito is not None)

    def _discard_incognito(self, keep: str | None) -> None:
        """Delete the incognito chats other than ``keep`` (in the background)."""
        assistant = self.assistant
        if assistant is not None:
            self.run("Deleting the incognito chat",
                     lambda _task: chats.discard_incognito(assistant, keep), writes=True)

    def _show_history(self, session_id: str, exchanges: list[Exchange]) -> None:
        if session_id != self.current_session:
            return  # the user moved on meanwhile
        self.transcript.show_exchanges(exchanges)
        self.transcript.set_empty_text("")
        self.pending_answers.load(session_id)
        self.learning_notes.attach_waiting()

    def new_incognito_chat(self) -> None:
        """Start an incognito chat (Ctrl+Shift+N): never learned from, deleted on leaving."""
        self.new_conversation(incognito=True)

    def new_conversation(self, *, incognito: bool = False) -> None:
        """Start a chat (Ctrl+N). An open chat with nothing said yet is reused instead of
        piling up empty ones; the previous chat is handed to learning to be summarised."""
        assistant = self.assistant
        if assistant is None:
            self.ctx.hub.status_message.emit("The assistant is still starting.")
            return
        current = self.sessions.info(self.current_session) if self.current_session else None
        same_kind = incognito == (self._open_incognito is not None)
        if (same_kind and current is not None and current.exchanges == 0
                and not self.transcript.messages):
            self.composer.edit.setFocus()
            return
        finished = (self.current_session
                    if not (self.busy and self._turn_session == self.current_session) else None)

        def started(result: Started) -> None:
            self._show_chat(result.session_id, incognito=incognito)  # the list's reload
            self.composer.edit.setFocus()  # (from the change feed) selects it

        self.run("Starting a chat",
                 lambda _task: chats.start(assistant, incognito=incognito, finished=finished),
                 started, writes=True)

    def rename_session(self, session_id: str, title: str) -> None:
        assistant = self.assistant
        if assistant is None:
            return
        self.run("Renaming the chat", lambda _task: chats.rename(assistant, session_id, title),
                 writes=True)

    def delete_session(self, session_id: str) -> None:
        """Delete a chat after asking; a reply streaming in it is stopped first."""
        assistant, info = self.assistant, self.sessions.info(session_id)
        if assistant is None or info is None or not confirm_delete(self, info):
            return
        if self.busy and self._turn_session == session_id and self._turn is not None:
            self._turn.cancel()

        def deleted(result: Deleted) -> None:
            removed = result.deletion
            if self.current_session == session_id:
                self._show_chat(None)
            self.ctx.hub.status_message.emit(
                f"Deleted “{info.title or UNTITLED}” ({count(removed.exchanges, 'exchange')}, "
                f"{count(removed.summaries, 'summary', 'summaries')}). "
                "Facts learned from it are still in Facts.")

        self.run("Deleting the chat", lambda _task: chats.delete(assistant, session_id),
                 deleted, writes=True)

    # --- a turn ------------------------------------------------------------------------------

    def send(self, text: str) -> None:
        """Send a message in the open chat (a new chat if none is open); while the last
        message is being edited, the edit replaces it and is answered again."""
        assistant = self.assistant
        if assistant is None or self.busy or self.conversation.read_only:
            self.composer.restore(text)
            return
        if self._editing is not None and self.current_session is not None:
            user, reply = self.transcript.last_exchange()
            for message in (user, reply):
                if message is not None:
                    self.transcript.remove(message)
            job = again_job(assistant, self.current_session, self._editing, text)
            self.cancel_edit()
        else:
            job = turn_job(assistant, self.current_session, text)
        self.transcript.add_user(text)
        self._run_turn(job, text)

    def regenerate(self, interaction_id: int) -> None:
        """Write the last reply again (its message unchanged); the new reply replaces it."""
        assistant = self.assistant
        _user, reply = self.transcript.last_exchange()
        if (assistant is None or self.busy or self.current_session is None
                or reply is None or reply.interaction_id != interaction_id):
            return
        self.cancel_edit()
        self.transcript.remove(reply)
        self._run_turn(again_job(assistant, self.current_session, interaction_id), "")

    def begin_edit(self, interaction_id: int, text: str) -> None:
        """Put the last message in the composer to be changed and sent again."""
        if self.busy:
            return
        self._editing = interaction_id
        self.conversation.show_editing(text)

    def cancel_edit(self) -> None:
        """Stop editing: the message stays as it was and the composer is emptied."""
        if self._editing is None:
            return
        self._editing = None
        self.conversation.end_editing()

    def escape(self) -> None:
        """Esc stops a streaming reply, or else leaves editing."""
        if self.busy:
            self.stop()
        else:
            self.cancel_edit()

    def _run_turn(self, job: Job, text: str) -> None:
        """Stream a reply into a new message at the bottom of the transcript."""
        assert self.assistant is not None
        self._reply = self.transcript.start_reply(self.assistant.model_description)
        self.transcript.scroll_to_end()
        self.transcript.set_again_allowed(False)
        self._turn_text, self._turn_session = text, self.current_session
        self.composer.set_busy(True)
        self._turn = self.ctx.workers.start(
            "Chat reply", job,
            on_item=self._on_event, on_done=self._turn_done, on_failed=self._turn_crashed)

    def stop(self) -> None:
        """Stop the reply (Esc): the model is cancelled, what it said so far is kept."""
        if self.busy and self._turn is not None:
            self._turn.cancel()
            if self._reply is not None:
                self._reply.footer.setText("stopping…")

    def _on_event(self, event: Started | TurnEvent) -> None:
        if isinstance(event, Started):  # the first message made a chat: list it now
            if self._turn_session is None and self.current_session is None:
                self.current_session = event.session_id
                self.learning_notes.show_session(event.session_id)
            return
        if isinstance(event, Compacted):
            self.ctx.hub.status_message.emit(
                f"{event.folded_exchanges} older exchanges were folded into a summary.")
        if self._reply is None:
            return
        if isinstance(event, FromMemory):
            self._reply.show_known(event.answers)
        elif isinstance(event, TextDelta):
            self._reply.append(event.text)
        elif isinstance(event, ToolActivity):
            self._reply.add_activity(tool_line(event.name, event.result_summary, event.ok))

    def _turn_done(self, result: TurnResult) -> None:
        outcome = result.outcome
        if isinstance(outcome, TurnFailed):
            self._end_turn("failed", outcome.interaction_id,
                           f"{outcome.message} {outcome.hint}".strip())
        else:
            self._end_turn("stopped" if outcome.stopped else "completed",
                           outcome.interaction_id)
        if result.session_id == self.current_session:
            self.pending_answers.load(result.session_id)

    def _turn_crashed(self, message: str, hint: str) -> None:
        """The turn could not run at all (the chat was deleted, the database refused)."""
        self._end_turn("failed", None, f"{message} {hint}".strip())

    def _end_turn(self, status: str, interaction_id: int | None, note: str = "") -> None:
        self.composer.set_busy(False)
        if self._reply is not None:
            self._reply.finish(status, interaction_id, note=note)
            self.learning_notes.attach_waiting()  # learning may have been quicker
        elif self.current_session == self._turn_session and self.current_session is not None:
            session_id, self.current_session = self.current_session, None
            self.open_session(session_id)  # came back to this chat mid-reply: reload it
        self.transcript.set_again_allowed(True)
        if status == "failed" and self._turn_text:
            self.composer.restore(self._turn_text)
        self._reply = None

    # --- why ---------------------------------------------------------------------------------

    def _open_why_panel(self) -> None:
        """Show the panel at its width, or a third of the page on a small screen, taking
        the room from the list of chats before the conversation. When the list would get
        less than it needs, it steps aside until the panel closes: squeezed below the
        minimums, the window grew wider than a 1024-pixel screen, for good."""
        if self.why_panel.isVisible():
            return
        total = sum(self.splitter.sizes())
        why = max(min(WHY_WIDTH, total // 3), self.why_panel.minimumSizeHint().width())
        chats = min(self.splitter.sizes()[0], max(0, total - why - CONVERSATION_MIN_WIDTH))
        if chats < self.sessions.minimumSizeHint().width():
            self.sessions.setVisible(False)
            chats = 0
        self.why_panel.setVisible(True)
        self.splitter.setSizes([chats, total - chats - why, why])

    def _close_why_panel(self) -> None:
        """The panel goes; the list of chats comes back if it stepped aside for it."""
        self.why_panel.setVisible(False)
        self.sessions.setVisible(True)

    def show_why(self, interaction_id: int) -> None:
        """Open the side panel on what a reply was given."""
        self._stop_without()
        self._why_for = interaction_id
        self._open_why_panel()
        self.why_panel.show_loading()
        hearth = self.ctx.hearth
        self.run("Reading the reply's context",
                 lambda _task: chats.reply_context(hearth, interaction_id),
                 self.why_panel.show_items)

    def _reload_why(self) -> None:
        """Read the open Why? panel's items again: one forgotten or edited elsewhere since
        (in Facts, by an agent, by another process) must say so, not stay listed as it
        was."""
        interaction_id = self._why_for
        if interaction_id is None or not self.why_panel.isVisible():
            return
        hearth = self.ctx.hearth

        def shown(items: list[UsedItem] | None) -> None:
            if self._why_for == interaction_id:
                self.why_panel.update_items(items)

        self.run("Reading the reply's context again",
                 lambda _task: chats.reply_context(hearth, interaction_id), shown)

    def answer_without(self, item: UsedItem) -> None:
        """Ask the model again for the reply the Why? panel is about, without ``item``;
        the other answer streams into the panel and is neither saved nor learned from."""
        assistant, interaction_id = self.assistant, self._why_for
        session_id, item_id = self.current_session, item.id
        if assistant is None or interaction_id is None or session_id is None or item_id is None:
            return
        self._stop_without()
        self.why_panel.start_alternative(item)

        def job(task: Task) -> None:
            for delta in chats.answer_without(assistant, session_id, interaction_id,
                                              item.kind, item_id, task.cancel_token):
                task.emit(delta.text)

        self._without = self.ctx.workers.start(
            "Answering without an item", job, on_item=self.why_panel.add_alternative,
            on_done=lambda _none: self.why_panel.end_alternative(),
            on_failed=lambda message, hint: self.why_panel.end_alternative(
                f"{message} {hint}".strip()))

    def _stop_without(self) -> None:
        if self._without is not None and self._without.running:
            self._without.cancel()
        self._without = None

    def fix_item(self, item: UsedItem) -> None:
        """Open the view where ``item`` can be corrected or forgotten, with it selected."""
        show_page = getattr(self.window(), "show_page", None)
        view = FIX_VIEWS.get(item.kind)
        if show_page is not None and view is not None and item.id is not None:
            show_page(view).reveal(item.id)
