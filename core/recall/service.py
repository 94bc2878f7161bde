"""Recall: from a question to the most relevant memories, notes, exchanges and facts.

For each requested kind, full-text (BM25) and vector (cosine) candidates are fetched
through the storage port's ``SearchIndex`` and fused by reciprocal rank fusion; see
``core.recall.fusion`` for the scoring. Then:

1. vector hits below ``min_similarity`` are dropped before fusion. Rank fusion only sees
   ranks, and a nearest neighbour always exists, so without an absolute gate a question
   about something never mentioned would still return the "closest" memories. bge-small
   with its query instruction gives ~0.3-0.5 to unrelated passages and ~0.6-0.85 to
   relevant ones;
2. rows whose fused RRF score is below ``settings.recall_relevance_floor`` are dropped
   (raw RRF scale: a row found by one signal at rank r scores 1/(60 + r));
3. the score is normalised to [0, 1], the recency boost is added and, for memories, the
   result is multiplied by the strength factor;
4. all kinds are merged into one list, sorted and cut to ``k``.

This module is dialect-free: it talks to the database only through ``StoragePort``, the
ORM models and ``SearchIndex``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.config import Settings
from core.embedding import Embedder
from core.errors import InvalidInputError
from core.recall.fusion import (
    Fused,
    age_in_days,
    best_possible,
    fuse,
    recency_boost,
    strength_factor,
)
from core.storage.orm import Interaction, Memory, Note, UserFact, utcnow
from core.storage.port import IndexedKind, IndexHit, SearchFilters, StoragePort, batched

SIGNALS = frozenset({"text", "vector"})
MIN_VECTOR_SIMILARITY = 0.55
"""Vector hits below this cosine similarity are not evidence of relevance (see above)."""
MIN_CANDIDATES = 50
CANDIDATES_PER_RESULT = 5
"""Each signal fetches ``max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * k)`` rows per kind."""
TIMING_KEYS = ("embed", "text", "vector", "fusion")


@dataclass(frozen=True)
class RecallQuery:
    """What to recall. ``mark_accessed`` is for results that will be used in an answer."""

    text: str
    k: int = 10
    kinds: tuple[IndexedKind, ...] = (IndexedKind.MEMORY,)
    filters: SearchFilters = SearchFilters()
    mark_accessed: bool = False
    signals: frozenset[str] = SIGNALS

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", tuple(IndexedKind(kind) for kind in self.kinds))
        object.__setattr__(self, "signals", frozenset(self.signals))
        if self.k < 1:
            raise InvalidInputError(f"Recall needs k of at least 1, not {self.k}.",
                                    "Ask for one or more results.")
        if not self.kinds:
            raise InvalidInputError("Recall needs at least one kind of record to search.",
                                    f"Use some of: {', '.join(k.value for k in IndexedKind)}.")
        if not self.signals or not self.signals <= SIGNALS:
            raise InvalidInputError(f"Unknown recall signals {sorted(self.signals)}.",
                                    f"Use a non-empty subset of {sorted(SIGNALS)}.")


@dataclass(frozen=True)
class RecallResult:
    """One recalled record: its final score and why it got it.

    ``signals`` holds each retrieval signal that found it (``rank`` plus the BM25
    ``score`` or the cosine ``similarity``) and the scoring steps: ``rrf`` (raw and
    normalised), ``recency`` (age in days, boost) and, for memories, ``strength``.
    """

    kind: IndexedKind
    id: int
    text: str
    score: float
    signals: dict[str, dict[str, Any]]
    provenance: dict[str, Any]
    created_at: datetime | None


@dataclass(frozen=True)
class _Hydrator:
    """How to load one kind's rows and describe them."""

    model: Any
    text: Callable[[Any], str]
    provenance: Callable[[Any], dict[str, Any]]


HYDRATORS: dict[IndexedKind, _Hydrator] = {
    IndexedKind.MEMORY: _Hydrator(Memory, lambda m: m.content, lambda m: {
        "source": m.source, "session_id": m.session_id, "interaction_id": m.interaction_id,
        "event_id": m.event_id, "external_id": m.external_id, "created_at": m.created_at,
        "namespace": m.namespace, "tier": m.tier, "memory_type": m.memory_type,
        "category": m.category}),
    IndexedKind.NOTE: _Hydrator(Note, lambda n: n.content, lambda n: {
        "title": n.title, "session_id": n.session_id}),
    IndexedKind.INTERACTION: _Hydrator(
        Interaction, lambda i: f"{i.user_message}\n{i.agent_response}".strip(), lambda i: {
            "session_id": i.session_id, "speaker": i.speaker, "external_id": i.external_id}),
    IndexedKind.FACT: _Hydrator(UserFact, lambda f: f"{f.key.replace('_', ' ')}: {f.value}",
                                lambda f: {"key": f.key, "category": f.category,
                                           "source": f.source}),
}


@dataclass
class _Run:
    """The state of one recall: its query, query vector, clock and timings."""

    query: RecallQuery
    vector: np.ndarray | None
    now: datetime
    timings: dict[str, float] = field(default_factory=lambda: dict.fromkeys(TIMING_KEYS, 0.0))

    @contextmanager
    def timed(self, key: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.timings[key] += (time.perf_counter() - started) * 1000


class RecallService:
    """Hybrid recall over the storage port (see the module docstring for the ranking)."""

    def __init__(self, storage: StoragePort, embedder: Embedder, settings: Settings, *,
                 min_similarity: float = MIN_VECTOR_SIMILARITY) -> None:
        self._storage = storage
        self._embedder = embedder
        self._settings = settings
        self._min_similarity = min_similarity

    def recall(self, query: RecallQuery) -> list[RecallResult]:
        return self.recall_with_timings(query)[0]

    def recall_with_timings(
            self, query: RecallQuery) -> tuple[list[RecallResult], dict[str, float]]:
        """Results plus milliseconds spent in each of ``TIMING_KEYS`` (for benchmarks)."""
        if not query.text.strip():
            return [], dict.fromkeys(TIMING_KEYS, 0.0)
        run = _Run(query, None, utcnow())
        if "vector" in query.signals:
            self._storage.search.ensure_dimensions(self._embedder.dimensions)
            with run.timed("embed"):
                run.vector = self._embedder.embed_query(query.text)
        with self._storage.read() as session:
            results = [result for kind in query.kinds
                       for result in self._recall_kind(session, run, kind)]
        with run.timed("fusion"):
            results.sort(key=_rank_key)
            results = results[:query.k]
        if query.mark_accessed:
            self.mark_accessed(r.id for r in results if r.kind is IndexedKind.MEMORY)
        return results, run.timings

    def mark_accessed(self, memory_ids: Iterable[int]) -> None:
        """Count these memories as used: access and search-hit counters, last access time."""
        ids = sorted(set(memory_ids))
        if not ids:
            return
        now = utcnow()
        with self._storage.write() as session:
            for chunk in batched(ids, 500):
                session.execute(
                    update(Memory).where(Memory.id.in_(chunk)).values(
                        access_count=Memory.access_count + 1,
                        search_hit_count=Memory.search_hit_count + 1,
                        last_accessed_at=now,
                    ).execution_options(synchronize_session=False))

    def _recall_kind(self, session: Session, run: _Run,
                     kind: IndexedKind) -> list[RecallResult]:
        hits = self._search(session, run, kind)
        with run.timed("fusion"):
            floor = self._settings.recall_relevance_floor
            fused = {row_id: entry for row_id, entry in fuse(hits).items() if entry.rrf >= floor}
            rows = _load(session, HYDRATORS[kind].model, fused)
            return [self._result(kind, rows[row_id], entry, run)
                    for row_id, entry in fused.items() if row_id in rows]

    def _search(self, session: Session, run: _Run,
                kind: IndexedKind) -> dict[str, list[IndexHit]]:
        """Each requested signal's ranked hits for one kind."""
        query, index = run.query, self._storage.search
        limit = max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * query.k)
        hits: dict[str, list[IndexHit]] = {}
        if "text" in query.signals:
            with run.timed("text"):
                hits["text"] = index.text_search(session, kind, query.text, query.filters,
                                                 limit)
        if run.vector is not None:
            with run.timed("vector"):
                found = index.vector_search(session, kind, run.vector, query.filters, limit)
                hits["vector"] = [hit for hit in found if hit.score >= self._min_similarity]
        return hits

    def _result(self, kind: IndexedKind, row: Any, entry: Fused, run: _Run) -> RecallResult:
        settings = self._settings
        normalised = entry.rrf / best_possible(len(run.query.signals))
        age = age_in_days(row.created_at, run.now)
        boost = recency_boost(age, settings.recall_recency_boost, settings.recall_recency_days)
        signals: dict[str, dict[str, Any]] = {
            **entry.signals,
            "rrf": {"score": entry.rrf, "normalised": normalised},
            "recency": {"age_days": age, "boost": boost},
        }
        factor = 1.0
        if kind is IndexedKind.MEMORY:
            factor = strength_factor(row.strength)
            signals["strength"] = {"strength": row.strength, "factor": factor}
        hydrator = HYDRATORS[kind]
        return RecallResult(kind=kind, id=row.id, text=hydrator.text(row),
                            score=(normalised + boost) * factor, signals=signals,
                            provenance=hydrator.provenance(row), created_at=row.created_at)


def _load(session: Session, model: Any, wanted: Mapping[int, Fused]) -> dict[int, Any]:
    """The ORM rows with these ids (rows deleted meanwhile are simply absent)."""
    rows: dict[int, Any] = {}
    for chunk in batched(sorted(wanted), 500):
        rows.update((row.id, row) for row in session.scalars(
            select(model).where(model.id.in_(chunk))))
    return rows


def _rank_key(result: RecallResult) -> tuple[float, float, str, int]:
    """Best score first; ties go to the newer record, then a stable order."""
    created = result.created_at.timestamp() if result.created_at else 0.0
    return (-result.score, -created, result.kind.value, result.id)

