"""Graph edge recovery: one hop from the top hits along the edges consolidation built.

Cosine misses memories that are relevant through another memory ("Ines moved to Porto"
found, "my sister's new flat has no lift" not). From the first ``seeds`` memory results,
every ``knn`` or ``dream`` edge (either direction) to a memory not already in the results is
a candidate, scored ``seed score x edge weight x KIND_FACTOR[kind]`` (dream edges are
hypotheses: half trust). Candidates pass the query's filters (same rules as search, via
``SearchIndex.matching_ids``) and are only ever appended after the head: a wrong edge can
fail to help but never evicts or reorders a direct hit. Their score is capped at the last
head score so any later sort keeps them in the tail; ``signals["graph"]`` says where they
came from.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import bindparam, or_, select
from sqlalchemy.orm import Session

from core.storage.orm import MemoryEdge
from core.storage.port import IndexedKind, SearchFilters, SearchIndex

KIND_FACTOR = {"knn": 1.0, "dream": 0.5}
_EDGES = select(MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.kind, MemoryEdge.weight).where(
    MemoryEdge.kind.in_(KIND_FACTOR),
    or_(MemoryEdge.from_id.in_(bindparam("seeds", expanding=True)),
        MemoryEdge.to_id.in_(bindparam("targets", expanding=True))))
"""The seeds' edges: built once and run on the session's connection, as recall's
hydration is (it runs on every recall)."""


@dataclass(frozen=True)
class Recovered:
    """A memory reached by one edge from a seed result."""

    id: int
    score: float
    source: int
    weight: float
    kind: str


def recover(session: Session, index: SearchIndex, seeds: dict[int, float],
            exclude: set[int], filters: SearchFilters, limit: int) -> list[Recovered]:
    """Up to ``limit`` memories one hop from ``seeds`` (id -> score), best first."""
    if not seeds or limit <= 0:
        return []
    best: dict[int, Recovered] = {}
    seed_ids = list(seeds)
    for edge in session.connection().execute(_EDGES, {"seeds": seed_ids, "targets": seed_ids}):
        for source, target in ((edge.from_id, edge.to_id), (edge.to_id, edge.from_id)):
            if source not in seeds or target in exclude or target in seeds:
                continue
            score = seeds[source] * edge.weight * KIND_FACTOR[edge.kind]
            if target not in best or score > best[target].score:
                best[target] = Recovered(target, score, source, edge.weight, edge.kind)
    allowed = index.matching_ids(session, IndexedKind.MEMORY, best, filters)
    ranked = sorted((r for r in best.values() if r.id in allowed), key=lambda r: (-r.score, r.id))
    return ranked[:limit]
