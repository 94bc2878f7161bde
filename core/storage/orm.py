"""The relational schema: one typed SQLAlchemy model per memory tier.

These models are dialect-neutral (no SQLite-only types), so a PostgreSQL adapter can reuse
them. The full-text and vector indexes that sit beside some of these tables are dialect
specific: full-text ones come from migration 0002, vector ones from ``core.storage.sqlite.search``.

Times are stored as UTC and always come back timezone-aware (see ``UTCDateTime``).
Rows the machine consolidates are never physically deleted by it: memories carry
``is_valid`` / ``invalid_reason`` / ``superseded_by`` instead.
"""

from __future__ import annotations

import enum
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import (
    JSON,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from core import clock


def utcnow() -> datetime:
    """Now, as aware UTC, from ``core.clock`` (which tests and benchmarks can move)."""
    return clock.now()


class UTCDateTime(TypeDecorator[datetime]):
    """Stores naive UTC, returns aware UTC: SQLite has no time zones, callers must not care."""

    impl = DateTime
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Any) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetimes are ambiguous; pass an aware datetime")
        return value.astimezone(timezone.utc).replace(tzinfo=None)

    def process_result_value(self, value: datetime | None, dialect: Any) -> datetime | None:
        return None if value is None else value.replace(tzinfo=timezone.utc)


NAMING = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class MemoryType(str, enum.Enum):
    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"


class MemoryTier(str, enum.Enum):
    RECALL = "recall"      # working memory: fresh captures
    ARCHIVAL = "archival"  # consolidated summaries
    SOURCE = "source"      # originals demoted under a summary, preserved
    CORE = "core"          # always loaded (pinned)


class Priority(str, enum.Enum):
    HIGHEST = "highest"  # user-stated: never decays
    HIGH = "high"
    MEDIUM = "medium"
    LOW = "low"


# --- conversation ------------------------------------------------------------------------


class ChatSession(Base):
    """One conversation (a chat in the window, or an imported session)."""

    __tablename__ = "chat_sessions"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    title: Mapped[str] = mapped_column(Text, default="")
    source: Mapped[str] = mapped_column(String(32), default="chat")
    conversation_id: Mapped[str | None] = mapped_column(String(128))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_message_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    closed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    compaction_summary: Mapped[str | None] = mapped_column(Text)
    compacted_through: Mapped[int | None] = mapped_column(Integer)
    learn_from: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    """False: the user asked Hearth not to learn from this chat (``core.learning.consent``)."""
    incognito: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """Never learned from, and deleted when the user leaves it (``ConversationService``)."""


class Interaction(Base):
    """One exchange (user message + reply), or one imported turn of a transcript.

    ``status``: ``pending`` while the reply is being produced (the message is saved first,
    so nothing is lost), then ``completed``, ``stopped`` (cancelled; the partial reply is
    kept), ``failed`` (with ``error``), or ``interrupted`` (the process stopped mid-reply;
    set at the next open, ``core.storage.liveness``).

    ``learning_due``: the background learning has yet to finish with this exchange (set with
    its final state, cleared when learned). Quitting does not wait for learning; the next
    start learns what is still due (``LearningPipeline.resume``).
    """

    __tablename__ = "interactions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    session_id: Mapped[str | None] = mapped_column(
        ForeignKey("chat_sessions.id", ondelete="SET NULL"), index=True)
    user_message: Mapped[str] = mapped_column(Text, default="")
    agent_response: Mapped[str] = mapped_column(Text, default="")
    speaker: Mapped[str | None] = mapped_column(String(128))
    channel: Mapped[str] = mapped_column(String(32), default="desktop")
    tools_used: Mapped[list[Any]] = mapped_column(JSON, default=list)
    provider: Mapped[str | None] = mapped_column(String(64))
    model: Mapped[str | None] = mapped_column(String(128))
    latency_ms: Mapped[float | None] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), default="completed",
                                        server_default="completed")
    error: Mapped[str | None] = mapped_column(Text)
    external_id: Mapped[str | None] = mapped_column(String(256), unique=True)
    embedding_model: Mapped[str | None] = mapped_column(String(128))
    learning_due: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0",
                                               index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


class ContextLog(Base):
    """What was put in front of the model for one exchange (what the Why? panel shows).

    ``items`` lists every injected fact, memory, note, summary and history turn with its
    id, score and token count; ``tokens`` sums them per section. The window uses it to
    show why the assistant said what it said.
    """

    __tablename__ = "context_logs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    interaction_id: Mapped[int] = mapped_column(
        ForeignKey("interactions.id", ondelete="CASCADE"), unique=True)
    session_id: Mapped[str | None] = mapped_column(
        ForeignKey("chat_sessions.id", ondelete="SET NULL"), index=True)
    system_prompt_sha256: Mapped[str] = mapped_column(String(64))
    items: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    tokens: Mapped[dict[str, int]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- permanent facts -----------------------------------------------------------------------


class UserFact(Base):
    """A permanent key-value fact about the user; upserted by key, never pruned."""

    __tablename__ = "user_facts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    key: Mapped[str] = mapped_column(String(200), unique=True)
    value: Mapped[str] = mapped_column(Text)
    category: Mapped[str] = mapped_column(String(32), default="general", index=True)
    source: Mapped[str] = mapped_column(String(32), default="user")
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    embedding_model: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    history: Mapped[list[FactHistory]] = relationship(
        back_populates="fact", cascade="all, delete-orphan", passive_deletes=True,
        order_by="FactHistory.id")


class FactHistory(Base):
    """A previous value of a fact, kept when the value changes."""

    __tablename__ = "fact_history"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    fact_id: Mapped[int] = mapped_column(
        ForeignKey("user_facts.id", ondelete="CASCADE"), index=True)
    value: Mapped[str] = mapped_column(Text)
    category: Mapped[str] = mapped_column(String(32))
    source: Mapped[str] = mapped_column(String(32))
    confidence: Mapped[float] = mapped_column(Float, default=1.0)
    valid_from: Mapped[datetime] = mapped_column(UTCDateTime)
    replaced_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)

    fact: Mapped[UserFact] = relationship(back_populates="history")


# --- versioned narrative tiers -----------------------------------------------------------


class AboutYouVersion(Base):
    """About you, the narrative; the newest row is current, every version is kept."""

    __tablename__ = "about_you_versions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(32), default="reflection")
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class NotesAboutYouVersion(Base):
    """The schema-free information scaffold (keys invented by the model)."""

    __tablename__ = "notes_about_you_versions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    source: Mapped[str] = mapped_column(String(32), default="processor")
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class WorkingMemoryVersion(Base):
    """The working-memory narrative ("what is on the user's mind now")."""

    __tablename__ = "working_memory_versions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content: Mapped[str] = mapped_column(Text)
    source: Mapped[str] = mapped_column(String(32), default="processor")
    run_id: Mapped[int | None] = mapped_column(ForeignKey("runs.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Note(Base):
    """A note; session summaries are notes titled ``Summary: <topic>``."""

    __tablename__ = "notes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(Text, default="")
    content: Mapped[str] = mapped_column(Text, default="")
    session_id: Mapped[str | None] = mapped_column(
        ForeignKey("chat_sessions.id", ondelete="SET NULL"), index=True)
    embedding_model: Mapped[str | None] = mapped_column(String(128))
    pinned: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    """The user pinned it: the Notes view lists it first."""
    edited_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """When the user last edited it by hand (None: as written, by them or by Hearth)."""
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- long-term memory --------------------------------------------------------------------


class Memory(Base):
    """A long-term memory: embedded, full-text indexed, decaying, linked in a graph.

    ``external_id`` makes imports idempotent (unique); ``origin`` says where the memory
    came from in the source's own terms (for an imported turn: conversation_id,
    session_id, turn_id, speaker), so recall can cite it.

    Two clocks: ``created_at`` is when the remembered thing happened (an imported turn's
    date), ``learned_at`` / ``last_accessed_at`` when Hearth got it and last used it.
    """

    __tablename__ = "memories"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content: Mapped[str] = mapped_column(Text)
    memory_type: Mapped[str] = mapped_column(String(16), default=MemoryType.SEMANTIC.value)
    namespace: Mapped[str] = mapped_column(String(256), default="user", index=True)
    priority: Mapped[str] = mapped_column(String(16), default=Priority.MEDIUM.value)
    source: Mapped[str] = mapped_column(String(32), default="conversation")
    tier: Mapped[str] = mapped_column(String(16), default=MemoryTier.RECALL.value, index=True)
    category: Mapped[str] = mapped_column(String(32), default="general", index=True)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    entities: Mapped[dict[str, list[str]]] = mapped_column(JSON, default=dict)
    importance: Mapped[float] = mapped_column(Float, default=0.5)
    strength: Mapped[float] = mapped_column(Float, default=1.0)
    freshness: Mapped[float] = mapped_column(Float, default=1.0, server_default="1.0")
    access_count: Mapped[int] = mapped_column(Integer, default=0)
    last_accessed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    learned_at: Mapped[datetime | None] = mapped_column(UTCDateTime, default=utcnow)
    """When Hearth stored it: the start of its "last used" clock (strength). ``created_at``
    is when it happened (recency, time questions): an old conversation imported today is
    old knowledge, not two years unused."""
    search_hit_count: Mapped[int] = mapped_column(Integer, default=0)
    is_valid: Mapped[bool] = mapped_column(Boolean, default=True, index=True)
    invalid_reason: Mapped[str | None] = mapped_column(Text)
    superseded_by: Mapped[int | None] = mapped_column(
        ForeignKey("memories.id", ondelete="SET NULL"))
    session_id: Mapped[str | None] = mapped_column(
        ForeignKey("chat_sessions.id", ondelete="SET NULL"), index=True)
    interaction_id: Mapped[int | None] = mapped_column(
        ForeignKey("interactions.id", ondelete="SET NULL"))
    event_id: Mapped[int | None] = mapped_column(
        ForeignKey("context_events.id", ondelete="SET NULL"))
    external_id: Mapped[str | None] = mapped_column(String(256), unique=True)
    origin: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    embedding_model: Mapped[str | None] = mapped_column(String(128))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class MemoryEdge(Base):
    """A weighted, typed link between two memories (kNN, dream, summary_of, ...)."""

    __tablename__ = "memory_edges"
    __table_args__ = (UniqueConstraint("from_id", "to_id", "kind", name="uq_memory_edges_pair"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    from_id: Mapped[int] = mapped_column(
        ForeignKey("memories.id", ondelete="CASCADE"), index=True)
    to_id: Mapped[int] = mapped_column(ForeignKey("memories.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(32), default="knn")
    weight: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


# --- consolidation bookkeeping ---------------------------------------------------------


class ContextEvent(Base):
    """An observation waiting for consolidation (the event bus).

    ``attempts`` counts only failures of the event's own (unusable output); ``failed_with``
    names the model of the last one (provider · model · host) and ``auto_retried`` says
    whether the one automatic retry of a poisoned event was used (after a change of model,
    or once the model answered again); see ``core.consolidation.processor``. A process
    consolidating the event holds it as ``claimed_by`` until ``claimed_until`` (its lease),
    so another process, on this device or another, skips it (``core.consolidation.claims``).
    """

    __tablename__ = "context_events"
    __table_args__ = (Index("ix_context_events_pending", "processed", "created_at"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    event_type: Mapped[str] = mapped_column(String(50))
    content: Mapped[str] = mapped_column(Text)
    source_metadata: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    processed: Mapped[bool] = mapped_column(Boolean, default=False)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    failed_with: Mapped[str | None] = mapped_column(String(300))
    auto_retried: Mapped[bool] = mapped_column(Boolean, default=False, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    processed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    claimed_by: Mapped[str | None] = mapped_column(String(200))
    claimed_until: Mapped[datetime | None] = mapped_column(UTCDateTime)


class Habit(Base):
    """A behavioural rule; a candidate until seen in two reflection runs, then active."""

    __tablename__ = "habits"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    rule: Mapped[str] = mapped_column(String(400), unique=True)
    category: Mapped[str] = mapped_column(String(32), default="general")
    recurrence_count: Mapped[int] = mapped_column(Integer, default=1)
    status: Mapped[str] = mapped_column(String(16), default="candidate")
    first_seen: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class FollowUp(Base):
    """A soft commitment the user made ("I should call the dentist")."""

    __tablename__ = "follow_ups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    context: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(16), default="open")
    follow_up_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    last_followed_up_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AuditEntry(Base):
    """A record of a consequential action (tool call, forget, restore); secrets redacted."""

    __tablename__ = "audit_log"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    timestamp: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    action: Mapped[str] = mapped_column(String(64))
    actor: Mapped[str] = mapped_column(String(32), default="user")
    arguments: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    result_summary: Mapped[str] = mapped_column(Text, default="")


class Run(Base):
    """One reflection, processor or dream-cycle run with per-stage counts and timings."""

    __tablename__ = "runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32))
    trigger: Mapped[str] = mapped_column(String(32), default="manual")
    status: Mapped[str] = mapped_column(String(16), default="running")
    stages: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    counts: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    changes: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list,
                                                          server_default="[]")
    """What the run changed, in plain words, with what undoing each change needs
    (``core.consolidation.changelog``)."""
    reviewed_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    """When the window showed the changelog ("While you were away"); None until then."""


# --- the assistant's daily tools (``core.daily``) ------------------------------------------
#
# A local calendar day is stored as ISO text ("2026-11-25") and a wall-clock time as "HH:MM":
# they are not moments (a task due "on Friday" is due on the user's Friday wherever the
# clock's UTC is), ISO text sorts and compares as dates do on both backends, and an export
# carries it unchanged. Moments (a reminder's time, when something was done) are UTC.


def _one_of(column: str, values: tuple[str, ...]) -> str:
    return f"{column} IN ({', '.join(repr(value) for value in values)})"


TASK_STATUSES = ("todo", "done")
DAILY_SOURCES = ("user", "assistant", "rule")
REMINDER_STATUSES = ("pending", "sent", "cancelled")
ALERT_KINDS = ("task_due_today", "task_overdue")
READ_LATER_STATUSES = ("unread", "read", "archived")
PENDING_STATUSES = ("pending", "confirmed", "cancelled", "expired")


class Task(Base):
    """Something the user has to do, optionally due on a local day (and time).

    ``notified_kind`` / ``notified_at``: the alert that last fired for it and when, so an
    alert rule's cooldown is kept per task (``core.daily.alerts``)."""

    __tablename__ = "tasks"
    __table_args__ = (
        CheckConstraint(_one_of("status", TASK_STATUSES), name="status"),
        CheckConstraint(_one_of("source", DAILY_SOURCES), name="source"),
        Index("ix_tasks_status_due", "status", "due_date"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    title: Mapped[str] = mapped_column(Text)
    details: Mapped[str] = mapped_column(Text, default="")
    status: Mapped[str] = mapped_column(String(8), default="todo")
    due_date: Mapped[str | None] = mapped_column(String(10))
    due_time: Mapped[str | None] = mapped_column(String(5))
    done_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    notified_kind: Mapped[str | None] = mapped_column(String(32))
    notified_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    source: Mapped[str] = mapped_column(String(16), default="user")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class Reminder(Base):
    """A message to show at ``remind_at`` (UTC); ``zone`` is the user's time zone when it was
    set, so "at 9" stays the 9 they meant. Snoozing moves ``remind_at`` and counts."""

    __tablename__ = "reminders"
    __table_args__ = (
        CheckConstraint(_one_of("status", REMINDER_STATUSES), name="status"),
        CheckConstraint(_one_of("source", DAILY_SOURCES), name="source"),
        Index("ix_reminders_status_remind_at", "status", "remind_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    message: Mapped[str] = mapped_column(Text)
    remind_at: Mapped[datetime] = mapped_column(UTCDateTime)
    zone: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    sent_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    snooze_count: Mapped[int] = mapped_column(Integer, default=0)
    source: Mapped[str] = mapped_column(String(16), default="user")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ScheduledPrompt(Base):
    """A prompt the assistant runs on a 5-field cron schedule in ``zone``."""

    __tablename__ = "scheduled_prompts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    prompt: Mapped[str] = mapped_column(Text)
    cron: Mapped[str] = mapped_column(String(120))
    zone: Mapped[str] = mapped_column(String(64))
    enabled: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    last_run_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class AlertRule(Base):
    """When to alert about tasks (due today, overdue), and how often at most per task."""

    __tablename__ = "alert_rules"
    __table_args__ = (
        CheckConstraint(_one_of("kind", ALERT_KINDS), name="kind"),
        CheckConstraint("cooldown_minutes > 0", name="cooldown"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(32), unique=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=True, server_default="1")
    cooldown_minutes: Mapped[int] = mapped_column(Integer, default=1440)
    last_fired_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class JournalEntry(Base):
    """A private journal entry. Never embedded; the nightly reflection reads the new ones
    once (``included_in_reflection_at``)."""

    __tablename__ = "journal_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    content: Mapped[str] = mapped_column(Text)
    title: Mapped[str | None] = mapped_column(Text)
    """Made by the model when one is available; None until then."""
    included_in_reflection_at: Mapped[datetime | None] = mapped_column(UTCDateTime, index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class ReadLaterItem(Base):
    """An article kept to read later: its address, the user's note, the text they pasted or
    dropped in (Hearth fetches nothing), its tags and, when a model made one, a summary."""

    __tablename__ = "read_later"
    __table_args__ = (
        CheckConstraint(_one_of("status", READ_LATER_STATUSES), name="status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    url: Mapped[str] = mapped_column(Text)
    title: Mapped[str] = mapped_column(Text, default="")
    note: Mapped[str] = mapped_column(Text, default="")
    text: Mapped[str] = mapped_column(Text, default="")
    summary: Mapped[str | None] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(JSON, default=list)
    status: Mapped[str] = mapped_column(String(16), default="unread", index=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class PendingAction(Base):
    """A change a model asked for, held until the user confirms it (``core.daily.pending_actions``).

    ``source_message`` is the user's message that led to it, so "Edit" can run the request
    again; ``expires_at`` is 30 minutes after it was held."""

    __tablename__ = "pending_actions"
    __table_args__ = (
        CheckConstraint(_one_of("status", PENDING_STATUSES), name="status"),
        Index("ix_pending_actions_status_expires", "status", "expires_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    action: Mapped[str] = mapped_column(String(64))
    arguments: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    preview: Mapped[str] = mapped_column(Text)
    source_message: Mapped[str] = mapped_column(Text, default="")
    session_id: Mapped[str | None] = mapped_column(
        ForeignKey("chat_sessions.id", ondelete="SET NULL"), index=True)
    interaction_id: Mapped[int | None] = mapped_column(
        ForeignKey("interactions.id", ondelete="SET NULL"))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(UTCDateTime)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    result: Mapped[str | None] = mapped_column(Text)


AGENT_ACCESS = ("none", "read", "write")
AGENT_SCOPES = ("all", "search")
"""What an agent's read access covers: everything it may read, or only searching
memories and notes (no list of facts, no profile). Checked by ``core.agents.registry``
(migration 0020 adds the column without a table copy, so without a CHECK)."""
AGENT_WRITE_STATUSES = ("held", "accepted", "rejected")


class Agent(Base):
    """Another local program that uses Hearth's memory over MCP (``core.agents``).

    ``name`` is what the client called itself at ``initialize`` (``clientInfo.name``),
    normalised; ``access`` is the user's grant: nothing until the user gives one, "read", or
    "write" (read and write). What a ``trusted`` agent writes is applied at once; anyone
    else's is held for the user's review (``AgentWrite``). ``scope`` narrows reading to
    searching ("search"), and ``hidden_categories`` keeps the facts and memories of those
    categories from the agent. ``asked_at``: when it first called a tool without access
    (it asks for access); ``answered_at``: when the user last set its grant."""

    __tablename__ = "agents"
    __table_args__ = (CheckConstraint(_one_of("access", AGENT_ACCESS), name="access"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    access: Mapped[str] = mapped_column(String(8), default="none")
    trusted: Mapped[bool] = mapped_column(Boolean, default=False)
    first_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_seen_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    scope: Mapped[str] = mapped_column(String(8), default="all")
    hidden_categories: Mapped[list[str]] = mapped_column(JSON, default=list)
    asked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class AgentWrite(Base):
    """A write an agent asked for (a fact, an observation, a forget), held until the user
    accepts or rejects it; a trusted agent's fact or observation is recorded here already
    accepted, so what each agent wrote stays listable. ``result`` says what accepting did."""

    __tablename__ = "agent_writes"
    __table_args__ = (
        CheckConstraint(_one_of("status", AGENT_WRITE_STATUSES), name="status"),
        Index("ix_agent_writes_status_created", "status", "created_at"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"),
                                          index=True)
    action: Mapped[str] = mapped_column(String(32))
    arguments: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    preview: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="held")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    result: Mapped[str | None] = mapped_column(Text)


class AgentToken(Base):
    """A bearer token the user made for one agent to use Hearth's MCP over HTTP
    (``core.agents.tokens``): whoever presents it is that agent, whatever its client calls
    itself. Only a SHA-256 of the token is kept (it is shown once, when made); a revoked
    token keeps its row, with ``revoked_at``, and is refused from then on."""

    __tablename__ = "agent_tokens"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"),
                                          index=True)
    token_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    last_used_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    revoked_at: Mapped[datetime | None] = mapped_column(UTCDateTime)


class ForgottenImport(Base):
    """An imported item the user deleted, so that importing the same (or a newer) export,
    transcript or notes folder again leaves it out (``core.forgetting.imported``).

    Only a one-way hash of the item's external id is kept (its service, conversation and
    message ids, or a note's folder, path and content hash): never its text, and nothing
    from which the text could be read back."""

    __tablename__ = "forgotten_imports"

    key_sha256: Mapped[str] = mapped_column(String(64), primary_key=True)
    forgotten_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class DeletedEntry(Base):
    """A fact, memory or note the user deleted, kept until its undo window ends
    (``core.knowledge.recently_deleted``). Its rows are gone from their tables, so nothing
    reads them; ``rows`` holds them as they were, per table, for an undo, and the entry is
    purged at ``purge_after``. ``title`` is what the undo says ("the fact home city")."""

    __tablename__ = "deleted_entries"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))
    title: Mapped[str] = mapped_column(Text)
    rows: Mapped[dict[str, list[dict[str, Any]]]] = mapped_column(JSON)
    deleted_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    purge_after: Mapped[datetime] = mapped_column(UTCDateTime, index=True)


class ImportRun(Base):
    """One run of ``hearth import``: what it read and how much it added. The memories it
    added name it in their ``origin`` (``import_batch``), so the run can be listed and
    removed as one (``hearth imports undo``). ``finished_at`` is when it ended and
    ``outcome`` how (``core.transfer.batches``: finished, cancelled, interrupted, failed;
    both null while it runs, or if its process was killed); ``undone_at`` is set once it
    was removed."""

    __tablename__ = "import_runs"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    source: Mapped[str] = mapped_column(String(16))
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    added: Mapped[int] = mapped_column(Integer, default=0)
    undone_at: Mapped[datetime | None] = mapped_column(UTCDateTime)
    outcome: Mapped[str | None] = mapped_column(String(16))
