"""A memory's whole story in one read: its content and metadata, where it came from, what it
is linked to, and its supersede chain.

The chain answers "why does the assistant no longer say this?" and "what did this replace?":
dedupe marks an older memory ``superseded_by`` the newer one, and an older one may itself
have replaced another. Following those pointers forward gives what replaced this memory;
the memories pointing at it (and, recursively, at them) are what it replaced.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from core.knowledge.memories import GONE_HINT, gone, speaker
from core.storage.orm import Memory, MemoryEdge
from core.storage.port import StoragePort
from core.storage.rows import require
from core.views.memory_browse import memory_state

MAX_EDGES = 200
"""Edges listed per memory, strongest first (kNN keeps ~10 per memory; a hub has more)."""
MAX_CHAIN = 50
"""Steps followed along a supersede chain either way (a guard against a corrupt cycle)."""


@dataclass(frozen=True)
class MemoryRef:
    """Another memory as a detail view mentions it: enough to name it and jump to it."""

    id: int
    content: str
    tier: str
    state: str
    created_at: datetime
    speaker: str | None = None
    """Who said it, for a turn of an imported conversation."""


@dataclass(frozen=True)
class Edge:
    """A link to another memory. ``outgoing`` is False when the other memory points here
    (a summary's ``summary_of`` edge, seen from one of its sources)."""

    kind: str
    weight: float
    outgoing: bool
    other: MemoryRef


@dataclass(frozen=True)
class ChainLink:
    """A memory in the supersede chain; ``depth`` 1 is directly before or after this one."""

    depth: int
    memory: MemoryRef


@dataclass(frozen=True)
class MemoryDetail:
    """Everything stored about one memory, plus its neighbours in the graph and the chain."""

    id: int
    content: str
    memory_type: str
    tier: str
    namespace: str
    category: str
    priority: str
    tags: list[str]
    entities: dict[str, list[str]]
    importance: float
    strength: float
    freshness: float
    access_count: int
    search_hit_count: int
    last_accessed_at: datetime | None
    state: str
    invalid_reason: str | None
    source: str
    session_id: str | None
    interaction_id: int | None
    event_id: int | None
    external_id: str | None
    origin: dict[str, Any]
    embedding_model: str | None
    created_at: datetime
    updated_at: datetime
    edges: list[Edge]
    replaced: list[ChainLink]
    """What this memory replaced, nearest first (a memory can replace several)."""
    replaced_by: list[ChainLink]
    """What replaced it, in order, up to the memory that is current."""

    @property
    def turn_id(self) -> str | None:
        """An imported turn's own id, the way its source cites it."""
        value = self.origin.get("turn_id")
        return None if value is None else str(value)


def _ref(memory: Memory) -> MemoryRef:
    return MemoryRef(memory.id, memory.content, memory.tier,
                     memory_state(memory.is_valid, memory.superseded_by), memory.created_at,
                     speaker(memory.origin))


def _edges(session: Session, memory_id: int) -> list[Edge]:
    rows = session.scalars(
        select(MemoryEdge)
        .where(or_(MemoryEdge.from_id == memory_id, MemoryEdge.to_id == memory_id))
        .order_by(MemoryEdge.weight.desc(), MemoryEdge.id).limit(MAX_EDGES)).all()
    others = {row.to_id if row.from_id == memory_id else row.from_id for row in rows}
    loaded = {m.id: m for m in session.scalars(select(Memory).where(Memory.id.in_(others)))}
    edges = []
    for row in rows:
        outgoing = row.from_id == memory_id
        other = loaded.get(row.to_id if outgoing else row.from_id)
        if other is not None:
            edges.append(Edge(row.kind, row.weight, outgoing, _ref(other)))
    return edges


def _replaced_by(session: Session, memory: Memory) -> list[ChainLink]:
    chain: list[ChainLink] = []
    seen = {memory.id}
    current = memory
    while current.superseded_by is not None and len(chain) < MAX_CHAIN:
        newer = session.get(Memory, current.superseded_by)
        if newer is None or newer.id in seen:
            break
        seen.add(newer.id)
        chain.append(ChainLink(len(chain) + 1, _ref(newer)))
        current = newer
    return chain


def _replaced(session: Session, memory_id: int) -> list[ChainLink]:
    """Breadth first: everything superseded by this memory, then by those, and so on."""
    chain: list[ChainLink] = []
    seen, frontier, depth = {memory_id}, [memory_id], 0
    while frontier and len(chain) < MAX_CHAIN:
        depth += 1
        older = [m for m in session.scalars(
            select(Memory).where(Memory.superseded_by.in_(frontier))
            .order_by(Memory.created_at.desc(), Memory.id.desc())) if m.id not in seen]
        older = older[:MAX_CHAIN - len(chain)]
        seen.update(m.id for m in older)
        chain += [ChainLink(depth, _ref(m)) for m in older]
        frontier = [m.id for m in older]
    return chain


def memory_detail(storage: StoragePort, memory_id: int) -> MemoryDetail:
    """The memory with this id, or ``NotFoundError`` saying it no longer exists."""
    with storage.read() as session:
        memory = require(session, Memory, memory_id, gone(memory_id), GONE_HINT)
        return MemoryDetail(
            id=memory.id, content=memory.content, memory_type=memory.memory_type,
            tier=memory.tier, namespace=memory.namespace, category=memory.category,
            priority=memory.priority, tags=list(memory.tags or []),
            entities=dict(memory.entities or {}), importance=memory.importance,
            strength=memory.strength, freshness=memory.freshness,
            access_count=memory.access_count, search_hit_count=memory.search_hit_count,
            last_accessed_at=memory.last_accessed_at,
            state=memory_state(memory.is_valid, memory.superseded_by),
            invalid_reason=memory.invalid_reason, source=memory.source,
            session_id=memory.session_id, interaction_id=memory.interaction_id,
            event_id=memory.event_id, external_id=memory.external_id,
            origin=dict(memory.origin or {}), embedding_model=memory.embedding_model,
            created_at=memory.created_at, updated_at=memory.updated_at,
            edges=_edges(session, memory.id), replaced=_replaced(session, memory.id),
            replaced_by=_replaced_by(session, memory))
