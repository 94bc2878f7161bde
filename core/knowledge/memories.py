"""Long-term memories: adding, reading and changing them, with their vectors kept in step.

Every write that changes a memory's text embeds the new text (and, for a long text, its
further windows: ``core.embedding.chunking``) *before* opening the write transaction (so
the database lock is never held during inference) and stores the row and its vectors in one
transaction, so a memory is never visible without its vectors. Changing
text through any other path is still safe: the search index's triggers drop the stale
vector and the backfill re-embeds the row.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import Enum
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.embedding import CancelCheck, Embedder, ProgressCallback
from core.embedding.chunking import embed_documents_with_chunks
from core.errors import InvalidInputError
from core.storage.orm import Memory, MemoryTier, MemoryType, Priority, utcnow
from core.storage.port import IndexedKind, StoragePort
from core.storage.rows import require

ASSISTANT_SPEAKERS = frozenset({"assistant", "ai", "bot", "chatbot", "model", "hearth",
                                "chatgpt", "gpt", "claude", "gemini", "copilot", "system"})
"""Speaker names an imported conversation gives the assistant (compared case-folded)."""

ADD_BATCH = 256
"""Memories embedded and committed together by ``add_many``: one transaction each (and
small enough for one ``IN (...)`` list of external ids)."""


@dataclass(frozen=True)
class MemorySpec:
    """Everything needed to create one memory (the arguments of ``MemoryService.add``)."""

    content: str
    memory_type: str = MemoryType.SEMANTIC.value
    namespace: str = "user"
    priority: str = Priority.MEDIUM.value
    source: str = "conversation"
    tier: str = MemoryTier.RECALL.value
    category: str = "general"
    tags: Sequence[str] = ()
    entities: dict[str, list[str]] | None = None
    importance: float = 0.5
    session_id: str | None = None
    interaction_id: int | None = None
    event_id: int | None = None
    external_id: str | None = None
    origin: dict[str, Any] | None = None
    created_at: datetime | None = None
    views: Sequence[str] = ()
    """Texts whose normalised mean embedding is the memory's vector instead of the content's
    own (an imported turn with its date and its neighbours: ``core.embedding.turn_views``)."""


def speaker(origin: Any) -> str | None:
    """Who said a memory that is a turn of an imported conversation (its ``origin`` names
    the speaker as text); None for any other memory."""
    named = origin.get("speaker") if isinstance(origin, dict) else None
    return named if isinstance(named, str) else None


def said_by_assistant(origin: Any) -> bool:
    """Whether a memory is the assistant's own line of an imported conversation (its
    ``origin`` names the speaker). Such a memory keeps the exchange findable ("what did
    the assistant suggest?") but is never something known about the user."""
    named = speaker(origin)
    return named is not None and named.strip().casefold() in ASSISTANT_SPEAKERS


class MemoryService:
    """Create, read and change memories; embeddings are written with the rows."""

    def __init__(self, storage: StoragePort, embedder: Embedder) -> None:
        self._storage = storage
        self._embedder = embedder

    def add(self, content: str, **fields: Any) -> Memory:
        """Add one memory (embedded and stored in one transaction) and return it.

        ``fields`` are those of ``MemorySpec`` (memory_type, namespace, tier, ...).
        """
        (memory_id,) = self.add_many([MemorySpec(content, **fields)])
        return self.get(memory_id)

    def add_many(self, specs: Sequence[MemorySpec], *, progress: ProgressCallback | None = None,
                 cancel: CancelCheck | None = None) -> list[int]:
        """Add memories in batches of ``ADD_BATCH``; returns their ids in input order.

        All specs are validated before anything is written. Each batch is embedded, then
        committed in its own transaction, so cancelling keeps the batches already done.
        """
        if not specs:
            return []
        rows = [validated_memory(spec) for spec in specs]
        _check_unique_external_ids(rows)
        self._storage.search.ensure_dimensions(self._embedder.dimensions)
        ids: list[int] = []
        for start in range(0, len(rows), ADD_BATCH):
            batch = rows[start:start + ADD_BATCH]
            embedded = embed_documents_with_chunks(
                self._embedder, [row.content for row in batch], cancel=cancel,
                views=[spec.views for spec in specs[start:start + ADD_BATCH]],
                progress=None if progress is None else _offset(progress, start, len(rows)))
            with self._storage.write() as session:
                _refuse_existing_external_ids(session, batch)
                session.add_all(batch)
                session.flush()
                batch_ids = [row.id for row in batch]
                embedded.store(self._storage.search, session, IndexedKind.MEMORY, batch_ids,
                               self._embedder.model_id)
            ids.extend(batch_ids)
        return ids

    def get(self, memory_id: int) -> Memory:
        with self._storage.read() as session:
            return _load(session, memory_id)

    def update_content(self, memory_id: int, content: str) -> Memory:
        """Replace a memory's text and its vectors (and windows, if long) together."""
        cleaned = _clean_content(content)
        self._storage.search.ensure_dimensions(self._embedder.dimensions)
        embedded = embed_documents_with_chunks(self._embedder, [cleaned])
        with self._storage.write() as session:
            memory = _load(session, memory_id)
            memory.content = cleaned
            memory.updated_at = utcnow()
            session.flush()
            embedded.store(self._storage.search, session, IndexedKind.MEMORY, [memory_id],
                           self._embedder.model_id)
            session.refresh(memory)
            return memory

    def invalidate(self, memory_id: int, reason: str) -> Memory:
        """Mark a memory wrong or obsolete; it stays stored but leaves default searches."""
        with self._storage.write() as session:
            memory = _load(session, memory_id)
            memory.is_valid = False
            memory.invalid_reason = reason
            memory.updated_at = utcnow()
            return memory

    def restore(self, memory_id: int) -> Memory:
        """Make a memory valid again (also no longer superseded)."""
        with self._storage.write() as session:
            memory = _load(session, memory_id)
            memory.is_valid = True
            memory.invalid_reason = None
            memory.superseded_by = None
            memory.updated_at = utcnow()
            return memory

    def set_tier(self, memory_id: int, tier: str) -> Memory:
        checked = _enum_value(MemoryTier, tier, "tier")
        with self._storage.write() as session:
            memory = _load(session, memory_id)
            memory.tier = checked
            memory.updated_at = utcnow()
            return memory

    def count(self) -> int:
        """All stored memories, valid or not."""
        with self._storage.read() as session:
            return session.execute(select(func.count()).select_from(Memory)).scalar_one()


# --- validation --------------------------------------------------------------------------


def _clean_content(content: str) -> str:
    cleaned = content.strip() if isinstance(content, str) else ""
    if not cleaned:
        raise InvalidInputError("A memory needs some text; this one is empty.",
                                "Write what should be remembered.")
    return cleaned


def _enum_value(enum_type: type[Enum], value: str, name: str) -> str:
    allowed = [member.value for member in enum_type]
    if value not in allowed:
        raise InvalidInputError(f"{value!r} is not a memory {name}.",
                                f"Use one of: {', '.join(allowed)}.")
    return value


def validated_memory(spec: MemorySpec) -> Memory:
    """An unsaved ``Memory`` for a spec, or ``InvalidInputError`` naming the bad field."""
    if not 0.0 <= spec.importance <= 1.0:
        raise InvalidInputError(f"Importance must be between 0 and 1, not {spec.importance}.",
                                "Use 0 for trivia and 1 for something vital.")
    memory = Memory(
        content=_clean_content(spec.content),
        memory_type=_enum_value(MemoryType, spec.memory_type, "type"),
        priority=_enum_value(Priority, spec.priority, "priority"),
        tier=_enum_value(MemoryTier, spec.tier, "tier"),
        namespace=spec.namespace, source=spec.source, category=spec.category,
        tags=list(spec.tags), entities=dict(spec.entities or {}), importance=spec.importance,
        session_id=spec.session_id, interaction_id=spec.interaction_id,
        event_id=spec.event_id, external_id=spec.external_id, origin=spec.origin,
    )
    if spec.created_at is not None:
        if spec.created_at.tzinfo is None:
            raise InvalidInputError(f"The time {spec.created_at} has no time zone.",
                                    "Pass an aware datetime, e.g. in UTC.")
        memory.created_at = spec.created_at
        memory.updated_at = spec.created_at
    return memory


def _check_unique_external_ids(rows: Sequence[Memory]) -> None:
    counts = Counter(row.external_id for row in rows if row.external_id is not None)
    repeated = sorted(key for key, count in counts.items() if count > 1)
    if repeated:
        raise InvalidInputError(f"These external ids appear more than once: "
                                f"{', '.join(repeated[:5])}.",
                                "Give every imported item its own id.")


def _refuse_existing_external_ids(session: Session, rows: Sequence[Memory]) -> None:
    """Inside the write transaction, so no concurrent import can slip in between."""
    wanted = [row.external_id for row in rows if row.external_id is not None]
    if not wanted:
        return
    taken = session.scalars(select(Memory.external_id)
                            .where(Memory.external_id.in_(wanted))).first()
    if taken is not None:
        raise InvalidInputError(f"A memory with external id {taken!r} already exists.",
                                "Skip items that were imported before.")


GONE_HINT = "It was deleted; search your memories to find the one you mean."


def gone(memory_id: int) -> str:
    """A memory that is not there, named as a person names it (by its number, which the
    window's links and ``hearth memories`` show), not as a row ("no memory with id 3")."""
    return f"Memory {memory_id} is not there any more."


def _load(session: Session, memory_id: int) -> Memory:
    return require(session, Memory, memory_id, gone(memory_id), GONE_HINT)


def _offset(progress: ProgressCallback, start: int, total: int) -> ProgressCallback:
    """Report a batch's progress as progress through the whole ``add_many`` call."""
    return lambda done, _batch_total: progress(start + done, total)
