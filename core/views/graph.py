"""The memory graph as arrays: what the window's graph view draws.

A view of 5,000 memories and 20,000 edges must load in well under a second and must not
build an ORM object per row, so ``load_graph`` reads two plain column queries (nodes, then
the edges between them) in one read transaction and packs them into numpy arrays. Repeated
strings (tier, category, edge kind) become small integer codes with a name table, which is
what a colour map or a filter needs anyway.

Which memories: the ``limit`` most important (ties: the stronger, then the older), so a
large store shows its backbone and ``total_nodes`` says how many there were in all. Edges
are those with both ends among the chosen memories, of every kind (``knn`` from linking,
``dream`` from REM, ``summary_of`` from merging).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import ColumnElement, and_, func, or_, select, true
from sqlalchemy.orm import Session, aliased

from core.knowledge.memories import gone
from core.storage.orm import Memory, MemoryEdge
from core.storage.port import StoragePort
from core.storage.rows import require
from core.views.memory_browse import speaker_of

LABEL_CHARS = 80
"""Characters of content kept as a node's label (the whole text comes with the details)."""
DEFAULT_LIMIT = 5_000


@dataclass(frozen=True)
class Codes:
    """Integer codes of a string column and the names they stand for (``names[code]``)."""

    codes: np.ndarray
    names: tuple[str, ...]

    @classmethod
    def of(cls, values: list[str]) -> Codes:
        names = tuple(sorted(set(values)))
        lookup = {name: code for code, name in enumerate(names)}
        return cls(np.fromiter((lookup[v] for v in values), dtype=np.int16, count=len(values)),
                   names)

    def mask(self, wanted: set[str] | frozenset[str]) -> np.ndarray:
        """True where the value is one of ``wanted``."""
        chosen = [code for code, name in enumerate(self.names) if name in wanted]
        return np.isin(self.codes, np.asarray(chosen, dtype=self.codes.dtype))


@dataclass(frozen=True)
class GraphSnapshot:
    """Nodes and edges, row-aligned arrays. Edge ends are node *positions* (indexes into
    ``ids``), not memory ids, so they index the layout directly."""

    ids: np.ndarray            # int64 (n,) memory ids
    tiers: Codes
    categories: Codes
    importance: np.ndarray     # float32 (n,)
    strength: np.ndarray       # float32 (n,)
    valid: np.ndarray          # bool (n,): valid and not superseded
    labels: tuple[str, ...]    # the first LABEL_CHARS characters of each memory
    speakers: tuple[str | None, ...]  # who said each, for a turn of an imported conversation
    source: np.ndarray         # int32 (m,) node positions
    target: np.ndarray         # int32 (m,)
    weight: np.ndarray         # float32 (m,)
    kinds: Codes               # (m,) edge kind
    total_nodes: int           # memories in the store (before the cap)
    twin: np.ndarray           # bool (m,): the weaker half of a link stored both ways

    @property
    def node_count(self) -> int:
        return int(self.ids.size)

    @property
    def edge_count(self) -> int:
        return int(self.source.size)

    @property
    def link_count(self) -> int:
        """Links as a person sees them: two memories that are each other's nearest (kNN
        edges A→B and B→A) are one link."""
        return int(self.source.size - self.twin.sum())

    @property
    def capped(self) -> bool:
        return self.total_nodes > self.node_count

    def position(self, memory_id: int) -> int | None:
        """The node position of a memory id, or None when it is not drawn."""
        found = np.flatnonzero(self.ids == memory_id)
        return int(found[0]) if found.size else None

    def positions(self, memory_ids: list[int] | np.ndarray) -> np.ndarray:
        """Node positions of those memory ids that are drawn."""
        return np.flatnonzero(np.isin(self.ids, np.asarray(memory_ids, dtype=np.int64)))


@dataclass(frozen=True)
class Neighbour:
    """One link of a memory, seen from that memory: every edge of one kind between the two
    memories. Linking writes a kNN edge from each memory to its nearest ones, so two
    memories that are each other's neighbours hold two edges, A→B and B→A; a person sees
    one link, in both directions (``outgoing`` and ``incoming``), at the stronger weight."""

    memory_id: int
    label: str
    speaker: str | None
    kind: str
    weight: float
    outgoing: bool
    incoming: bool


@dataclass(frozen=True)
class NodeDetails:
    """Everything the graph's side panel shows about one memory."""

    id: int
    content: str
    tier: str
    category: str
    memory_type: str
    namespace: str
    importance: float
    strength: float
    valid: bool
    invalid_reason: str | None
    created_at: datetime
    neighbours: tuple[Neighbour, ...]
    speaker: str | None = None


def _is_valid() -> ColumnElement[bool]:
    return and_(Memory.is_valid.is_(True), Memory.superseded_by.is_(None))


def load_graph(storage: StoragePort, *, limit: int = DEFAULT_LIMIT,
               valid_only: bool = False) -> GraphSnapshot:
    """The ``limit`` most important memories (only valid ones if ``valid_only``) and every
    edge between two of them."""
    if limit < 1:
        raise ValueError(f"a graph needs at least one node, not {limit}")
    condition = _is_valid() if valid_only else true()
    chosen = (select(Memory.id).where(condition)
              .order_by(Memory.importance.desc(), Memory.strength.desc(), Memory.id)
              .limit(limit))
    with storage.read() as session:
        total = session.scalar(select(func.count()).select_from(Memory).where(condition)) or 0
        nodes = session.execute(
            select(Memory.id, Memory.tier, Memory.category, Memory.importance, Memory.strength,
                   _is_valid(), func.substr(Memory.content, 1, LABEL_CHARS),
                   speaker_of(Memory))
            .where(Memory.id.in_(chosen.scalar_subquery())).order_by(Memory.id)).all()
        # Only the source end is tested in SQL: with both, SQLite probes the (from, to)
        # index once per pair of chosen ids (25 M probes for 5k nodes). Ends outside the
        # chosen set are dropped in ``_pack``.
        edges = session.execute(
            select(MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.weight, MemoryEdge.kind)
            .where(MemoryEdge.from_id.in_(chosen.scalar_subquery()))
            .order_by(MemoryEdge.id)).all()
    return _pack(nodes, edges, int(total))


def _pack(nodes: Sequence[Any], edges: Sequence[Any], total: int) -> GraphSnapshot:
    columns = list(zip(*nodes, strict=True)) if nodes else [()] * 8
    ids = np.asarray(columns[0], dtype=np.int64)
    ends = list(zip(*edges, strict=True)) if edges else [()] * 4
    from_ids = np.asarray(ends[0], dtype=np.int64)
    to_ids = np.asarray(ends[1], dtype=np.int64)
    inside = np.isin(to_ids, ids)
    # ``ids`` is sorted (ORDER BY id), so searchsorted maps memory ids to positions.
    source = np.searchsorted(ids, from_ids[inside]).astype(np.int32)
    target = np.searchsorted(ids, to_ids[inside]).astype(np.int32)
    kinds = Codes.of([kind for kind, keep in zip(ends[3], inside, strict=True) if keep])
    weight = np.asarray(ends[2], dtype=np.float32)[inside]
    return GraphSnapshot(
        ids=ids,
        tiers=Codes.of(list(columns[1])),
        categories=Codes.of(list(columns[2])),
        importance=np.asarray(columns[3], dtype=np.float32),
        strength=np.asarray(columns[4], dtype=np.float32),
        valid=np.asarray(columns[5], dtype=bool),
        labels=tuple(_one_line(text) for text in columns[6]),
        speakers=tuple(columns[7]),
        source=source, target=target,
        weight=weight,
        kinds=kinds,
        total_nodes=total,
        twin=_twins(source, target, kinds.codes, weight),
    )


def _twins(source: np.ndarray, target: np.ndarray, kinds: np.ndarray,
           weight: np.ndarray) -> np.ndarray:
    """True for every edge but the strongest of those of one kind between the same two
    memories (in either direction), so a view can draw and count each link once."""
    low, high = np.minimum(source, target), np.maximum(source, target)
    order = np.lexsort((-weight, high, low, kinds))  # by kind, pair, then strongest first
    key = np.stack([kinds[order], low[order], high[order]], axis=1)
    repeat = np.zeros(source.size, dtype=bool)
    repeat[1:] = np.all(key[1:] == key[:-1], axis=1)
    twin = np.zeros(source.size, dtype=bool)
    twin[order] = repeat
    return twin


def _one_line(text: str) -> str:
    return " ".join(text.split())


def node_details(storage: StoragePort, memory_id: int) -> NodeDetails:
    """One memory's content and metadata, and all its edges (either direction) with the
    label of the memory at the other end; raises ``NotFoundError`` if it is gone."""
    with storage.read() as session:
        memory = require(session, Memory, memory_id, gone(memory_id),
                         "It was deleted since the map was drawn.")
        return NodeDetails(
            id=memory.id, content=memory.content, tier=memory.tier, category=memory.category,
            memory_type=memory.memory_type, namespace=memory.namespace,
            importance=memory.importance, strength=memory.strength,
            valid=memory.is_valid and memory.superseded_by is None,
            invalid_reason=memory.invalid_reason, created_at=memory.created_at,
            neighbours=_neighbours(session, memory_id),
            speaker=session.scalar(select(speaker_of(Memory)).where(Memory.id == memory_id)))


def _neighbours(session: Session, memory_id: int) -> tuple[Neighbour, ...]:
    """The memory's links, strongest first, one per (other memory, kind)."""
    other = aliased(Memory)
    rows = session.execute(
        select(MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.kind, MemoryEdge.weight,
               func.substr(other.content, 1, LABEL_CHARS), speaker_of(other))
        .join(other, or_(and_(MemoryEdge.from_id == memory_id, other.id == MemoryEdge.to_id),
                         and_(MemoryEdge.to_id == memory_id, other.id == MemoryEdge.from_id)))
        .where(or_(MemoryEdge.from_id == memory_id, MemoryEdge.to_id == memory_id))
        .order_by(MemoryEdge.weight.desc(), MemoryEdge.id)).all()
    links: dict[tuple[int, str], Neighbour] = {}  # first seen is the strongest: rows are sorted
    for from_id, to_id, kind, weight, label, speaker in rows:
        outgoing = from_id == memory_id
        other = to_id if outgoing else from_id
        seen = links.get((other, kind))
        if seen is None:
            links[(other, kind)] = Neighbour(
                memory_id=other, label=_one_line(label), speaker=speaker, kind=kind,
                weight=float(weight),
                outgoing=outgoing, incoming=not outgoing)
        else:
            links[(other, kind)] = replace(seen, outgoing=seen.outgoing or outgoing,
                                           incoming=seen.incoming or not outgoing)
    return tuple(links.values())
