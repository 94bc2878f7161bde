"""Recall: from a question to the most relevant memories, notes, exchanges and facts.

For each requested kind, full-text (BM25) and vector (cosine) candidates are fetched
through the storage port's ``SearchIndex`` and fused by reciprocal rank fusion; see
``core.recall.fusion`` for the scoring. Then:

1. vector hits below ``settings.recall_min_similarity`` are dropped before fusion. Rank fusion only sees
   ranks, and a nearest neighbour always exists, so without an absolute gate a question
   about something never mentioned would still return the "closest" memories. bge-small
   with its query instruction gives ~0.3-0.5 to unrelated passages and ~0.6-0.85 to
   relevant ones;
2. in hybrid recall, text hits scoring below ``settings.recall_min_text_share`` (70%) of the query's best
   BM25 score are dropped before fusion. Questions share generic words ("work", "kids",
   "thesis") with many memories, and RRF rewards being found by both signals so strongly
   that a row ranked 3rd by both beats the row ranked 1st by one; a weak lexical match
   that the vector search also half-likes would push the right answer down. Keeping
   only near-best word matches keeps what full text is for (rare words, codes, names).
   On the labelled set in ``benchmarks/data`` this raised hybrid recall@5 from 0.74 to
   0.80 and @10 from 0.85 to 0.86 (vector alone: 0.82 / 0.85). With one signal the
   ranking is that signal's order, so nothing is dropped;
3. rows whose fused RRF score is below ``settings.recall_relevance_floor`` are dropped
   (raw RRF scale: a row found by one signal at rank r scores 1/(60 + r));
4. the score is normalised to [0, 1], the recency boost is added and, for memories, the
   result is multiplied by the strength factor;
5. all kinds are merged into one list, sorted and cut to ``k``: the head;
6. additions go after the head, never into it: rows a type + time question names
   ("the summary from last night", ``core.recall.metadata``) and memories one edge away
   from the top hits (``core.recall.graph``, up to ``RecallQuery.graph``). Their scores
   are capped at the last head score so they stay in the tail.

Using a memory (``mark_accessed``) counts the access, resets its strength (decay is a
function of the days since the last access, ``core.consolidation.decay``) and raises its
importance by ``IMPORTANCE_BUMP`` up to 1.0, which slows its later decay.

This module is dialect-free: it talks to the database only through ``StoragePort``, the
ORM models and ``SearchIndex``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import case, select, update
from sqlalchemy.orm import Session

from core.config import Settings
from core.embedding import Embedder
from core.errors import InvalidInputError
from core.recall import graph, metadata
from core.recall.fusion import (
    Fused,
    age_in_days,
    best_possible,
    fuse,
    recency_boost,
    strength_factor,
)
from core.storage.orm import Interaction, Memory, Note, UserFact, utcnow
from core.storage.port import (
    IndexedKind,
    IndexHit,
    SearchFilters,
    StoragePort,
    batched,
    document_text,
)

SIGNALS = frozenset({"text", "vector"})
MIN_CANDIDATES = 50
CANDIDATES_PER_RESULT = 5
"""Each signal fetches ``max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * k)`` rows per kind."""
TIMING_KEYS = ("embed", "text", "vector", "fusion")
"""Additions (step 6) are timed as part of fusion."""
GRAPH_SEEDS = 5
"""The first this many memory results are the starting points of the graph walk."""
METADATA_LIMIT = 3
"""Rows a type + time question may add."""
IMPORTANCE_BUMP = 0.02
"""Importance gained per use (capped at 1.0): 25 uses take a default memory from 0.5 to
1.0, where it decays at 2/3 of the speed."""


@dataclass(frozen=True)
class RecallQuery:
    """What to recall. ``mark_accessed`` is for results that will be used in an answer."""

    text: str
    k: int = 10
    kinds: tuple[IndexedKind, ...] = (IndexedKind.MEMORY,)
    filters: SearchFilters = field(default_factory=SearchFilters)
    mark_accessed: bool = False
    signals: frozenset[str] = SIGNALS
    graph: int = 3
    """At most this many memories recovered along graph edges are appended (0: none)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", tuple(IndexedKind(kind) for kind in self.kinds))
        object.__setattr__(self, "signals", frozenset(self.signals))
        if self.k < 1:
            raise InvalidInputError(f"Recall needs k of at least 1, not {self.k}.",
                                    "Ask for one or more results.")
        if not self.kinds:
            raise InvalidInputError("Recall needs at least one kind of record to search.",
                                    f"Use some of: {', '.join(k.value for k in IndexedKind)}.")
        if self.graph < 0:
            raise InvalidInputError(f"Recall cannot add {self.graph} graph results.",
                                    "Use 0 to turn graph recovery off, or a positive number.")
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
    """Which columns of one kind to load (plain rows, not ORM objects: ~4x cheaper) and how
    to describe a row."""

    model: Any
    text: Callable[[Any], str]
    text_columns: tuple[str, ...]
    provenance: tuple[str, ...]
    scoring: tuple[str, ...] = ()

    @property
    def columns(self) -> list[Any]:
        names = dict.fromkeys(("id", "created_at", *self.text_columns, *self.provenance,
                               *self.scoring))
        return [getattr(self.model, name) for name in names]

    def describe(self, row: Any) -> dict[str, Any]:
        described = {name: getattr(row, name) for name in self.provenance}
        if "origin" in described:  # an imported turn is cited by its own turn id
            described["turn_id"] = (described["origin"] or {}).get("turn_id")
        return described


HYDRATORS: dict[IndexedKind, _Hydrator] = {
    IndexedKind.MEMORY: _Hydrator(
        Memory, lambda m: m.content, ("content",),
        ("source", "session_id", "interaction_id", "event_id", "external_id", "origin",
         "created_at", "namespace", "tier", "memory_type", "category"), scoring=("strength",)),
    IndexedKind.NOTE: _Hydrator(Note, lambda n: n.content, ("content",),
                                ("title", "session_id")),
    IndexedKind.INTERACTION: _Hydrator(
        Interaction, lambda i: f"{i.user_message}\n{i.agent_response}".strip(),
        ("user_message", "agent_response"), ("session_id", "speaker", "external_id")),
    IndexedKind.FACT: _Hydrator(
        UserFact, lambda f: document_text(IndexedKind.FACT, (f.key, f.value)), ("key", "value"),
        ("key", "category", "source")),
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

    def __init__(self, storage: StoragePort, embedder: Embedder, settings: Settings) -> None:
        self._storage = storage
        self._embedder = embedder
        self._settings = settings

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
                results = self._with_additions(session, run, results[:query.k])
        if query.mark_accessed:
            self.mark_accessed(r.id for r in results if r.kind is IndexedKind.MEMORY)
        return results, run.timings

    def mark_accessed(self, memory_ids: Iterable[int]) -> None:
        """Count these memories as used: access and search-hit counters, last access time,
        strength back to 1 and a small importance bump (see the module docstring)."""
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
                        strength=1.0,
                        importance=case((Memory.importance + IMPORTANCE_BUMP > 1.0, 1.0),
                                        else_=Memory.importance + IMPORTANCE_BUMP),
                    ).execution_options(synchronize_session=False))

    def _with_additions(self, session: Session, run: _Run,
                        head: list[RecallResult]) -> list[RecallResult]:
        """The head, then metadata rows, then graph-recovered memories (step 6)."""
        query, index = run.query, self._storage.search
        cap = head[-1].score if head else 1.0
        tail: list[RecallResult] = []
        asked = metadata.parse(query.text, run.now.astimezone())
        if asked is not None and asked.indexed_kind in query.kinds:
            signal = {"kind": asked.kind, "phrase": asked.phrase,
                      "since": asked.since.isoformat(), "until": asked.until.isoformat()}
            position = {(r.kind, r.id): i for i, r in enumerate(head)}
            for row_id in metadata.fetch(session, index, asked, query.filters, METADATA_LIMIT):
                at = position.get((asked.indexed_kind, row_id))
                if at is None:
                    tail.extend(self._addition(session, asked.indexed_kind, row_id, cap,
                                               {"metadata": signal}, run))
                else:  # already a hit: say so, without moving it
                    head[at] = replace(head[at], signals={**head[at].signals,
                                                          "metadata": signal})
        seeds = {r.id: r.score for r in head if r.kind is IndexedKind.MEMORY}
        seeds = dict(list(seeds.items())[:GRAPH_SEEDS])
        exclude = {r.id for r in [*head, *tail] if r.kind is IndexedKind.MEMORY}
        for found in graph.recover(session, index, seeds, exclude, query.filters, query.graph):
            tail.extend(self._addition(session, IndexedKind.MEMORY, found.id,
                                       min(found.score, cap), {"graph": {
                                           "from": found.source, "weight": found.weight,
                                           "kind": found.kind}}, run))
        return head + tail

    def _addition(self, session: Session, kind: IndexedKind, row_id: int, score: float,
                  signals: dict[str, dict[str, Any]], run: _Run) -> list[RecallResult]:
        """A tail result for a row found by metadata or an edge ([] if it vanished)."""
        hydrator = HYDRATORS[kind]
        row = _load(session, hydrator, {row_id: Fused()}).get(row_id)
        if row is None:
            return []
        age = age_in_days(row.created_at, run.now)
        return [RecallResult(kind=kind, id=row.id, text=hydrator.text(row), score=score,
                            signals={**signals, "recency": {"age_days": age, "boost": 0.0}},
                            provenance=hydrator.describe(row), created_at=row.created_at)]

    def _recall_kind(self, session: Session, run: _Run,
                     kind: IndexedKind) -> list[RecallResult]:
        hits = self._search(session, run, kind)
        with run.timed("fusion"):
            floor = self._settings.recall_relevance_floor
            fused = {row_id: entry for row_id, entry in fuse(hits).items() if entry.rrf >= floor}
            rows = _load(session, HYDRATORS[kind], fused)
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
                hits["vector"] = [hit for hit in found if hit.score >= self._settings.recall_min_similarity]
        if len(hits) > 1:
            best = max((hit.score for hit in hits["text"]), default=0.0)
            hits["text"] = [hit for hit in hits["text"]
                            if hit.score >= self._settings.recall_min_text_share * best]
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
                            provenance=hydrator.describe(row), created_at=row.created_at)


def _load(session: Session, hydrator: _Hydrator, wanted: Mapping[int, Fused]) -> dict[int, Any]:
    """The rows with these ids (rows deleted meanwhile are simply absent)."""
    rows: dict[int, Any] = {}
    model = hydrator.model
    for chunk in batched(sorted(wanted), 500):
        rows.update((row.id, row) for row in session.execute(
            select(*hydrator.columns).where(model.id.in_(chunk))))
    return rows


def _rank_key(result: RecallResult) -> tuple[float, float, str, int]:
    """Best score first; ties go to the newer record, then a stable order."""
    created = result.created_at.timestamp() if result.created_at else 0.0
    return (-result.score, -created, result.kind.value, result.id)

