"""``ChatSessions``: the chats a conversation runs in, and what they recorded.

Starting a chat (ordinary or incognito), listing and searching them, renaming one, turning
its learning on or off, deleting one with what it recorded, and reading its exchanges and
their context logs. ``ConversationService`` runs the turns and holds one of these as
``service.sessions``::

    session_id = service.sessions.new_session()
    service.sessions.recent_sessions(limit=20)     # [SessionInfo, ...]
    service.sessions.session_history(session_id)   # [Exchange, ...]

See docs/conversation.md ("Public API").
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, delete, func, or_, select
from sqlalchemy.orm import Session

from core.forgetting import imported as forgotten_imports
from core.knowledge.notes import SUMMARY_PREFIX
from core.llm.token_estimates import clip
from core.errors import InvalidInputError
from core.storage.affected import affected
from core.storage.orm import AuditEntry, ChatSession, ContextLog, Interaction, Note
from core.storage.port import IMPORTED_SOURCE, IndexedKind, SearchFilters, StoragePort
from core.storage.rows import require

CHAT_SOURCE = "chat"
SEARCHED_MESSAGES = 500
"""Best-matching messages a chat search looks at (their chats are listed)."""
WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class SessionInfo:
    id: str
    title: str
    started_at: datetime
    last_message_at: datetime | None
    exchanges: int
    closed: bool
    learns: bool = True
    """False when the user asked Hearth not to learn from this chat."""
    incognito: bool = False
    source: str = "chat"
    """``chat``, or ``import`` for a session imported from a transcript (read-only)."""
    conversation_id: str | None = None
    """The imported conversation it came from (None for a chat)."""

    @property
    def imported(self) -> bool:
        return self.source == IMPORTED_SOURCE


@dataclass(frozen=True)
class SessionDeletion:
    """What deleting a chat removed (what was learned from it is not in here: it stays)."""

    exchanges: int
    context_logs: int
    summaries: int


@dataclass(frozen=True)
class Exchange:
    """One saved exchange, as a front end shows it. ``status``: completed, stopped,
    failed, pending (saved, the reply in progress) or interrupted (its process stopped
    before the reply was finished; whatever it had saved is kept)."""

    interaction_id: int
    user_message: str
    agent_response: str
    created_at: datetime
    status: str
    provider: str | None
    model: str | None
    tools: list[dict[str, Any]]
    speaker: str | None = None
    """Who said ``user_message`` in an imported transcript (None in a chat)."""


@dataclass(frozen=True)
class ContextLogRecord:
    interaction_id: int
    system_prompt_sha256: str
    items: list[dict[str, Any]]
    tokens: dict[str, int]


class ChatSessions:
    """The chats over one database: started, listed, searched, renamed, deleted, read."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def new_session(self, title: str = "", *, incognito: bool = False) -> str:
        """Start a conversation; returns its id. An incognito one is never learned from
        (``core.learning.consent``) and is deleted, with everything recorded for it, when
        the front end leaves it or quits (``discard_incognito``)."""
        session_id = uuid.uuid4().hex
        with self._storage.write() as session:
            session.add(ChatSession(id=session_id, title=clip(" ".join(title.split()), 200),
                                    source=CHAT_SOURCE, incognito=incognito,
                                    learn_from=not incognito))
        return session_id

    def discard_incognito(self, keep: str | None = None) -> int:
        """Delete every incognito chat except ``keep`` (the one still open), as
        ``delete_session`` deletes a chat; returns how many went. Also run at start-up for
        those a killed process left behind."""
        with self._storage.read() as session:
            ids = list(session.scalars(select(ChatSession.id).where(
                ChatSession.incognito.is_(True), ChatSession.id != (keep or ""))))
        for session_id in ids:
            self.delete_session(session_id)
        return len(ids)

    def recent_sessions(self, limit: int = 20, *,
                        include_imported: bool = False) -> list[SessionInfo]:
        """Chats, most recently active first; imported sessions (``core.transfer``) too
        when asked (the window lists them, read-only)."""
        sources = (CHAT_SOURCE, IMPORTED_SOURCE) if include_imported else (CHAT_SOURCE,)
        return self._sessions(ChatSession.source.in_(sources), limit)

    def search_sessions(self, query: str, limit: int = 50) -> list[SessionInfo]:
        """Chats and imported sessions whose title or messages contain words of ``query``,
        most recently active first. The messages are searched through the full-text index
        and titles word by word, so the user's text is only ever words (never syntax)."""
        words = WORD.findall(query)
        if not words:
            return []
        with self._storage.read() as session:
            hits = self._storage.search.text_search(
                session, IndexedKind.INTERACTION, query, SearchFilters(), SEARCHED_MESSAGES)
            in_messages = select(Interaction.session_id).where(
                Interaction.id.in_([hit.id for hit in hits]))
        in_titles = or_(*(ChatSession.title.contains(word, autoescape=True)
                          for word in words))
        return self._sessions(
            ChatSession.source.in_((CHAT_SOURCE, IMPORTED_SOURCE))
            & (in_titles | ChatSession.id.in_(in_messages)), limit)

    def _sessions(self, condition: ColumnElement[bool], limit: int) -> list[SessionInfo]:
        counts = (select(Interaction.session_id, func.count().label("n"))
                  .group_by(Interaction.session_id).subquery())
        active = func.coalesce(ChatSession.last_message_at, ChatSession.started_at)
        with self._storage.read() as session:
            rows = session.execute(
                select(ChatSession, func.coalesce(counts.c.n, 0))
                .outerjoin(counts, counts.c.session_id == ChatSession.id)
                .where(condition)
                .order_by(active.desc(), ChatSession.id).limit(limit)).all()
            return [SessionInfo(chat.id, chat.title, chat.started_at, chat.last_message_at,
                                count, chat.closed_at is not None, learns=chat.learn_from,
                                incognito=chat.incognito, source=chat.source,
                                conversation_id=chat.conversation_id)
                    for chat, count in rows]

    def rename_session(self, session_id: str, title: str) -> str:
        """Give a chat a new title (whitespace collapsed, at most 200 characters); returns
        the title stored. An empty title is refused rather than silently kept: a chat
        without a title would be retitled from its next message."""
        cleaned = clip(" ".join(title.split()), 200)
        if not cleaned:
            raise InvalidInputError("A chat needs a title.", "Type a few words to name it.")
        with self._storage.write() as session:
            require_session(session, session_id).title = cleaned
        return cleaned

    def set_learning(self, session_id: str, learn: bool) -> bool:
        """Learn from this chat or not (``core.learning.consent``); from the next message
        on. What was learned from it before stays (Facts and Memories are where to forget
        it). An incognito chat is never learned from. Returns the choice stored."""
        with self._storage.write() as session:
            chat = require_session(session, session_id)
            if chat.incognito and learn:
                raise InvalidInputError("An incognito chat is never learned from.",
                                        "Start an ordinary chat to have Hearth remember.")
            chat.learn_from = learn
            session.add(AuditEntry(action="chat.learning", actor="user",
                                   arguments={"session_id": session_id, "learn": learn},
                                   result_summary="on" if learn else "off"))
        return learn

    def delete_session(self, session_id: str) -> SessionDeletion:
        """Delete a chat: the session, its exchanges (their full-text entries and vectors go
        with them, by trigger), their context logs, and the session's summary notes.

        Summaries go because they are the conversation retold: a deleted chat must not keep
        coming back as "earlier conversations" in later prompts. What was *learned* stays:
        facts are the user's to edit or forget in Facts, and long-term memories (which
        consolidation may have merged with others) are managed in Memories; they only lose
        their link to the session. The audit entry records the id and the counts, never
        the title or any text. An imported chat's turns are recorded as forgotten
        (``core.forgetting.imported``), so importing the same export again does not bring
        the chat back."""
        with self._storage.write() as session:
            require_session(session, session_id)
            exchange_ids = select(Interaction.id).where(Interaction.session_id == session_id)
            logs = affected(session.execute(delete(ContextLog).where(
                (ContextLog.session_id == session_id)
                | ContextLog.interaction_id.in_(exchange_ids))))
            summaries = affected(session.execute(delete(Note).where(
                Note.session_id == session_id,
                Note.title.startswith(SUMMARY_PREFIX, autoescape=True))))
            forgotten_imports.record(session, session.scalars(select(Interaction.external_id).where(
                Interaction.session_id == session_id)))
            exchanges = affected(session.execute(delete(Interaction).where(
                Interaction.session_id == session_id)))
            session.execute(delete(ChatSession).where(ChatSession.id == session_id))
            removed = SessionDeletion(exchanges, logs, summaries)
            session.add(AuditEntry(
                action="chat.delete", actor="user", arguments={"session_id": session_id},
                result_summary=(f"deleted {exchanges} exchanges, {logs} context logs, "
                                f"{summaries} summaries")))
        return removed

    def session_history(self, session_id: str) -> list[Exchange]:
        """Every exchange of a session, oldest first (compacted ones included)."""
        with self._storage.read() as session:
            require_session(session, session_id)
            rows = session.scalars(select(Interaction).where(
                Interaction.session_id == session_id).order_by(Interaction.id)).all()
            return [Exchange(r.id, r.user_message, r.agent_response, r.created_at,
                             r.status, r.provider, r.model, list(r.tools_used or []),
                             r.speaker)
                    for r in rows]

    def context_log(self, interaction_id: int) -> ContextLogRecord | None:
        """What the model was given for one exchange: why it said what it said."""
        with self._storage.read() as session:
            entry = session.scalars(select(ContextLog).where(
                ContextLog.interaction_id == interaction_id)).first()
            if entry is None:
                return None
            return ContextLogRecord(entry.interaction_id, entry.system_prompt_sha256,
                                    list(entry.items), dict(entry.tokens))


def require_session(session: Session, session_id: str) -> ChatSession:
    """The chat ``session_id``, or a ``NotFoundError`` saying it was deleted."""
    return require(session, ChatSession, session_id,
                   "That chat is not there any more.",
                   f"It was deleted (its id was {session_id}); start a new chat, or "
                   "pick one from the list of chats.")
