"""Recall: from a question to the most relevant memories, notes, exchanges and facts.

For each requested kind, full-text (BM25) and vector (cosine) candidates come through the
storage port's ``SearchIndex``; they are gated by similarity, fused by score
(``core.recall.fusion``), smoothed over adjacent turns (``core.recall.neighbours``),
boosted by the question's cues (``core.recall.cues``), recency, strength and tier, and
merged; the head of ``k`` is picked from a deeper pool (``_Run.depth``) so that near-copies
of one match give way to the other things found (``core.recall.diversity``). Additions
(rows a type + time question names, memories one edge away) go after the head, never into
it, so a recall may return more than ``k`` rows for the chat's context; a search that
promises at most ``k`` (the CLI, MCP, the window) goes through ``core.recall.search``. A
query asked ``as_of`` a moment runs as if it were then (``core.recall.as_of``): nothing
later is reached, and every date counts from it. Every weight is a ``recall_*`` setting.
``mark_accessed`` counts a use, resets its strength and raises its importance by
``IMPORTANCE_BUMP``.

Dialect-free: the database only through ``StoragePort``, the ORM models and
``SearchIndex``. See docs/architecture.md, "Recall", for each step and how its weight was
measured.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import cached_property
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Select, bindparam, case, select, update
from sqlalchemy.orm import Session

from core.config import Settings
from core.embedding import Embedder
from core.errors import InvalidInputError
from core.knowledge.memories import speaker as origin_speaker
from core.recall import cues, diversity, graph, metadata, neighbours, summaries
from core.recall.as_of import as_of, seen_until
from core.recall.fusion import (
    Fused,
    age_in_days,
    fuse,
    recency_boost,
    strength_factor,
)
from core.storage.orm import Interaction, Memory, MemoryTier, Note, UserFact, utcnow
from core.storage.port import (
    IndexedKind,
    IndexHit,
    SearchFilters,
    StoragePort,
    batched,
    document_text,
    row_text,
)

SIGNALS = frozenset({"text", "vector"})
MIN_CANDIDATES = 50
CANDIDATES_PER_RESULT = 5
"""Each signal fetches ``max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * depth)`` rows per kind
(``depth``: the pool the head of ``k`` is picked from, ``_Run.depth``)."""
TIMING_KEYS = ("embed", "text", "vector", "fusion")
"""Smoothing, cues and additions (steps 3-7) are timed as part of fusion."""
NEIGHBOUR_SEEDS = 20
"""The neighbours of this many best candidates (per kind) may join the candidates."""
GRAPH_SEEDS = 5
"""The first this many memory results are the starting points of the graph walk."""
METADATA_LIMIT = 3
"""Rows a type + time question may add."""
DIVERSITY_POOL = 3
"""The head of ``k`` is spread over the best ``DIVERSITY_POOL x k`` ranked results, or
``k + DIVERSITY_EXTRA`` when that is fewer (a search for 50 need not rank 150)."""
DIVERSITY_EXTRA = 40
RECALL_WORKERS = 2
"""Threads for the vector side of recalls running at once (threads start on first use)."""
SWITCH_INTERVAL = 0.0005
"""Seconds a thread holding the GIL runs before Python hands it to one that waits (5 ms by
default). A recall's two sides run on two threads, and each returns from native code
(onnxruntime, SQLite, usearch, tantivy) needing the GIL back: at the default a return could
wait up to 5 ms behind the other side's Python. Measured at 1M memories (200 questions,
idle 2-core machine): recall p50 / p95 23.3 / 30.7 ms at 5 ms, 21.9 / 24.4 ms at 0.5 ms;
at 100k 19.4 / 24.1 → 18.2 / 20.8 ms."""
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
    as_of: datetime | None = None
    """The moment the question is asked at (aware; ``core.recall.as_of``): nothing created
    after it is found, and recency, named dates and "last week" count from it. None: now."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kinds", tuple(IndexedKind(kind) for kind in self.kinds))
        object.__setattr__(self, "signals", frozenset(self.signals))
        if self.as_of is not None:
            object.__setattr__(self, "as_of", as_of(self.as_of))
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

    ``signals`` holds each retrieval signal that found it (``rank``, the BM25 ``score``
    or the cosine ``similarity``, and its ``normalised`` share) and the scoring steps:
    ``fusion`` (the relevance), ``context`` (what the adjacent turns added), ``cues``
    (speaker, date and time boosts), ``recency`` (age in days, boost) and, for memories,
    ``strength`` and ``tier``. ``excerpt`` is the window of the text that matched (a
    sentence, or a stretch of a long text) when it was not the whole text's vector, and
    ``passage`` its ``(char_start, char_end)`` in the record's indexed text
    (``document_text``), which a context log keeps instead of a copy of the words.
    """

    kind: IndexedKind
    id: int
    text: str
    score: float
    signals: dict[str, dict[str, Any]]
    provenance: dict[str, Any]
    created_at: datetime | None
    excerpt: str | None = None
    passage: tuple[int, int] | None = None


@dataclass(frozen=True)
class _Hydrator:
    """Which columns of one kind to load (plain rows, not ORM objects: ~4x cheaper) and how
    to describe a row."""

    model: Any
    text: Callable[[Any], str]
    text_columns: tuple[str, ...]
    provenance: tuple[str, ...]
    scoring: tuple[str, ...] = ()
    speaker: Callable[[Any], str | None] = lambda _row: None

    @property
    def columns(self) -> list[Any]:
        names = dict.fromkeys(("id", "created_at", *self.text_columns, *self.provenance,
                               *self.scoring))
        return [getattr(self.model, name) for name in names]

    @cached_property
    def statement(self) -> Select[Any]:
        """The hydration query for a list of ids, built once and run on the session's
        connection: SQLAlchemy's ORM layer and a literal ``IN`` list (each id coerced to a
        bound value on every call) cost ~40% of hydrating ~100 rows (measured)."""
        return select(*self.columns).where(self.model.id.in_(bindparam("ids", expanding=True)))

    def describe(self, row: Any) -> dict[str, Any]:
        described = {name: getattr(row, name) for name in self.provenance}
        if "origin" in described:  # an imported turn is cited by its own turn id
            described["turn_id"] = (described["origin"] or {}).get("turn_id")
        return described


HYDRATORS: dict[IndexedKind, _Hydrator] = {
    IndexedKind.MEMORY: _Hydrator(
        Memory, lambda m: m.content, ("content",),
        ("source", "session_id", "interaction_id", "event_id", "external_id", "origin",
         "created_at", "namespace", "tier", "memory_type", "category"), scoring=("strength",),
        speaker=lambda m: origin_speaker(m.origin)),
    IndexedKind.NOTE: _Hydrator(Note, lambda n: n.content, ("content",),
                                ("title", "session_id")),
    IndexedKind.INTERACTION: _Hydrator(
        Interaction, lambda i: f"{i.user_message}\n{i.agent_response}".strip(),
        ("user_message", "agent_response"), ("session_id", "speaker", "external_id"),
        speaker=lambda i: i.speaker),
    IndexedKind.FACT: _Hydrator(
        UserFact, lambda f: document_text(IndexedKind.FACT, (f.key, f.value)), ("key", "value"),
        ("key", "category", "source")),
}


@dataclass(frozen=True)
class _Addition:
    """A row to append after the head (found by metadata or an edge), before hydration."""

    kind: IndexedKind
    id: int
    score: float
    signals: dict[str, dict[str, Any]]


@dataclass
class _Run:
    """The state of one recall: its query, query vector, clock and timings."""

    query: RecallQuery
    vector: np.ndarray | None
    now: datetime
    spread: bool
    """Whether the head is spread by maximal marginal relevance (``recall_diversity``)."""
    vector_best: float | None = None
    """The best cosine found in any kind: the top of every kind's vector scale."""
    timings: dict[str, float] = field(default_factory=lambda: dict.fromkeys(TIMING_KEYS, 0.0))
    asks_when: bool = field(init=False)
    dates: list[cues.DateRange] = field(init=False)

    def __post_init__(self) -> None:
        self.asks_when = cues.asks_when(self.query.text)
        self.dates = cues.date_ranges(self.query.text, self.now)

    @property
    def depth(self) -> int:
        """How many ranked results the head of ``k`` is picked from (step 6)."""
        k = self.query.k
        return min(k * DIVERSITY_POOL, k + DIVERSITY_EXTRA) if self.spread else k

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
        self._workers = ThreadPoolExecutor(RECALL_WORKERS, thread_name_prefix="hearth-recall")
        if sys.getswitchinterval() > SWITCH_INTERVAL:  # process-wide: never raised again
            sys.setswitchinterval(SWITCH_INTERVAL)

    def recall(self, query: RecallQuery) -> list[RecallResult]:
        return self.recall_with_timings(query)[0]

    def recall_with_timings(
            self, query: RecallQuery) -> tuple[list[RecallResult], dict[str, float]]:
        """Results plus milliseconds spent in each of ``TIMING_KEYS`` (for benchmarks).

        With both signals and a storage that allows it (``concurrent_reads``), the query
        embedding and the vector searches run on a worker thread in a read session of their
        own while this thread runs the full-text searches (onnxruntime, SQLite and usearch
        release the GIL, so the two overlap on two cores); the steps' timings then add up
        to more than the wall time. No session is ever shared between threads.
        """
        if not query.text.strip():
            return [], dict.fromkeys(TIMING_KEYS, 0.0)
        run = _Run(_seen_at_its_moment(query), None, query.as_of or utcnow(),
                   self._settings.recall_diversity < 1.0)
        if "vector" in query.signals:
            self._storage.search.ensure_dimensions(self._embedder.dimensions)
        beside = (self._workers.submit(self._vector_hits_apart, run)
                  if query.signals == SIGNALS and self._storage.concurrent_reads else None)
        with self._storage.read() as session:
            hits: dict[IndexedKind, dict[str, list[IndexHit]]] = {
                kind: self._text_hits(session, run, kind) for kind in query.kinds}
            found = (beside.result() if beside is not None
                     else self._vector_hits(session, run))
            results: list[RecallResult] = []
            folded: list[RecallResult] = []
            run.vector_best = max((hit.score for by_signal in found.values()
                                   for hit in by_signal.get("vector", ())), default=None)
            for kind in query.kinds:
                ranked, summaries_found = self._recall_kind(
                    session, run, kind, {**hits[kind], **found.get(kind, {})})
                results.extend(ranked)
                folded.extend(summaries_found)
            with run.timed("fusion"):
                results.sort(key=_rank_key)
                head = self._spread(session, run, results[:run.depth])
                results = self._with_additions(session, run, head, folded)
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

    def _spread(self, session: Session, run: _Run,
                pool: list[RecallResult]) -> list[RecallResult]:
        """Step 6: the head of ``k`` picked from the pool by maximal marginal relevance
        (``core.recall.diversity``), each result's score lowered by what it lost (never
        below 0, which keeps the picked order: a later pick never scores above an
        earlier one)."""
        weight, k = self._settings.recall_diversity, run.query.k
        if weight >= 1.0 or len(pool) <= 1:
            return pool[:k]
        vectors: dict[tuple[IndexedKind, int], np.ndarray] = {}
        for kind in {result.kind for result in pool}:
            found = self._storage.search.whole_vectors(
                session, kind, [r.id for r in pool if r.kind is kind])
            vectors.update(((kind, row_id), vector) for row_id, vector in found.items())
        picks = diversity.spread([r.score for r in pool],
                                 [vectors.get((r.kind, r.id)) for r in pool], weight, k)
        head = []
        for pick in picks:
            result = pool[pick.index]
            if pick.penalty > 0 and pick.closest is not None:
                like = pool[pick.closest]
                result = replace(result, score=max(0.0, result.score - pick.penalty), signals={
                    **result.signals, "diversity": {
                        "penalty": pick.penalty, "cosine": pick.cosine,
                        "like": {"kind": like.kind.value, "id": like.id}}})
            head.append(result)
        return head

    def _with_additions(self, session: Session, run: _Run, head: list[RecallResult],
                        folded: list[RecallResult]) -> list[RecallResult]:
        """The head, then the summaries that matched, metadata rows and graph-recovered
        memories (step 7)."""
        query, index = run.query, self._storage.search
        cap = head[-1].score if head else 1.0
        tail: list[RecallResult] = [replace(found, score=min(found.score, cap))
                                    for found in sorted(folded, key=_rank_key)[:query.k]]
        wanted: list[_Addition] = []
        asked = metadata.parse(query.text, run.now.astimezone())
        if asked is not None and asked.indexed_kind in query.kinds:
            signal = {"kind": asked.kind, "phrase": asked.phrase,
                      "since": asked.since.isoformat(), "until": asked.until.isoformat()}
            position = {(r.kind, r.id): i for i, r in enumerate(head)}
            for row_id in metadata.fetch(session, index, asked, query.filters, METADATA_LIMIT):
                at = position.get((asked.indexed_kind, row_id))
                if at is None:
                    wanted.append(_Addition(asked.indexed_kind, row_id, cap,
                                            {"metadata": signal}))
                else:  # already a hit: say so, without moving it
                    head[at] = replace(head[at], signals={**head[at].signals,
                                                          "metadata": signal})
        seeds = {r.id: r.score for r in head if r.kind is IndexedKind.MEMORY}
        seeds = dict(list(seeds.items())[:GRAPH_SEEDS])
        exclude = {r.id for r in [*head, *tail] if r.kind is IndexedKind.MEMORY}
        exclude.update(a.id for a in wanted if a.kind is IndexedKind.MEMORY)
        for found in graph.recover(session, index, seeds, exclude, query.filters, query.graph):
            wanted.append(_Addition(IndexedKind.MEMORY, found.id, min(found.score, cap), {
                "graph": {"from": found.source, "weight": found.weight, "kind": found.kind}}))
        return head + tail + self._additions(session, wanted, run)

    def _additions(self, session: Session, wanted: list[_Addition],
                   run: _Run) -> list[RecallResult]:
        """Tail results for rows found by metadata or an edge, in ``wanted``'s order,
        hydrated with one statement per kind (they were loaded one statement per row:
        up to six round trips per recall); rows that vanished are skipped."""
        rows = {kind: _load(session, HYDRATORS[kind], {a.id for a in wanted if a.kind is kind})
                for kind in {a.kind for a in wanted}}
        results: list[RecallResult] = []
        for addition in wanted:
            row = rows[addition.kind].get(addition.id)
            if row is None:
                continue
            hydrator = HYDRATORS[addition.kind]
            age = age_in_days(row.created_at, run.now)
            results.append(RecallResult(
                kind=addition.kind, id=row.id, text=hydrator.text(row), score=addition.score,
                signals={**addition.signals, "recency": {"age_days": age, "boost": 0.0}},
                provenance=hydrator.describe(row), created_at=row.created_at))
        return results

    def _recall_kind(self, session: Session, run: _Run, kind: IndexedKind,
                     hits: dict[str, list[IndexHit]]
                     ) -> tuple[list[RecallResult], list[RecallResult]]:
        """Ranked results of one kind from its signals' hits, and the archival summaries
        among them that are listed after the head (see ``core.recall.summaries``)."""
        with run.timed("fusion"):
            settings = self._settings
            weights = {"text": settings.recall_text_weight,
                       "vector": settings.recall_vector_weight}
            fused = fuse(hits, weights, settings.recall_min_similarity, run.vector_best)
            self._smooth_by_context(session, run, kind, fused)
            folded = (self._lift_originals(session, run, fused)
                      if kind is IndexedKind.MEMORY else set())
            rows = _load(session, HYDRATORS[kind], fused)
            speakers = {name for row in rows.values()
                        if (name := HYDRATORS[kind].speaker(row))}
            named = cues.named_speakers(run.query.text, speakers)
            kept: dict[int, Fused] = {}
            for row_id, entry in fused.items():
                if row_id in rows:
                    self._add_cues(kind, rows[row_id], entry, run, named)
                    if entry.relevance >= settings.recall_min_relevance:
                        kept[row_id] = entry
            ranked: list[RecallResult] = []
            summaries_found: list[RecallResult] = []
            for row_id in self._contenders(kept, run.depth):
                result = self._result(kind, rows[row_id], kept[row_id], run)
                (summaries_found if row_id in folded else ranked).append(result)
            return ranked, summaries_found

    def _contenders(self, kept: dict[int, Fused], k: int) -> list[int]:
        """The rows that can still reach the top ``k`` once recency, strength and tier
        apply: a row whose relevance plus the largest recency boost is below the k-th best
        relevance times the smallest possible factor cannot (saves building ~70 results
        that would be cut anyway)."""
        if len(kept) <= k:
            return list(kept)
        settings = self._settings
        floor_factor = (1.0 - settings.recall_strength_weight) * min(
            [1.0, *settings.recall_tier_weights.values()])
        kth = sorted((entry.relevance for entry in kept.values()), reverse=True)[k - 1]
        bar = kth * floor_factor - settings.recall_recency_boost
        return [row_id for row_id, entry in kept.items() if entry.relevance >= bar]

    def _lift_originals(self, session: Session, run: _Run,
                        fused: dict[int, Fused]) -> set[int]:
        """Originals among the candidates rise towards a share of their matching summary's
        relevance, in proportion to their own: the best-matching original to
        ``recall_summary_share`` of it, the others by the same factor (so a summary about
        the dog lifts the turn naming the dog school, not every turn that mentions the dog
        above it). Returns the summaries to list after the head (none when the filters ask
        for summaries)."""
        found = summaries.originals_of(session, fused)
        share = self._settings.recall_summary_share
        own = {row_id: entry.relevance for row_id, entry in fused.items()}
        for summary_id, originals in found.items():
            present = [original for original in originals if original in fused]
            best = max((own[original] for original in present), default=0.0)
            if best <= 0:
                continue
            factor = share * fused[summary_id].relevance / best
            for original in present:
                entry, lifted = fused[original], factor * own[original]
                if lifted > entry.relevance:
                    entry.signals["summary"] = {"id": summary_id,
                                                "gain": lifted - entry.relevance}
                    entry.relevance = lifted
        if MemoryTier.ARCHIVAL.value in run.query.filters.tiers:
            return set()
        return set(found)

    def _text_hits(self, session: Session, run: _Run,
                   kind: IndexedKind) -> dict[str, list[IndexHit]]:
        """The full-text hits of one kind (none unless the text signal is asked for)."""
        query = run.query
        if "text" not in query.signals:
            return {}
        with run.timed("text"):
            return {"text": self._storage.search.text_search(
                session, kind, query.text, query.filters, _candidates(run))}

    def _vector_hits(self, session: Session,
                     run: _Run) -> dict[IndexedKind, dict[str, list[IndexHit]]]:
        """Embed the query (once for every kind) and fetch each kind's vector hits at or
        above ``recall_min_similarity`` (none unless the vector signal is asked for)."""
        query, index = run.query, self._storage.search
        if "vector" not in query.signals:
            return {}
        with run.timed("embed"):
            run.vector = self._embedder.embed_query(query.text)
        floor = self._settings.recall_min_similarity
        found: dict[IndexedKind, dict[str, list[IndexHit]]] = {}
        for kind in query.kinds:
            with run.timed("vector"):
                hits = index.vector_search(session, kind, run.vector, query.filters,
                                           _candidates(run))
                found[kind] = {"vector": [hit for hit in hits if hit.score >= floor]}
        return found

    def _vector_hits_apart(self, run: _Run) -> dict[IndexedKind, dict[str, list[IndexHit]]]:
        """``_vector_hits`` on a worker thread, in a read session of its own. It writes
        only ``run.vector`` and the ``embed`` and ``vector`` timings, which the caller's
        thread reads after the result; meanwhile that thread writes only the ``text``
        timing (another key of a dict whose keys are all set up front)."""
        with self._storage.read() as session:
            return self._vector_hits(session, run)

    def _smooth_by_context(self, session: Session, run: _Run, kind: IndexedKind,
                           fused: dict[int, Fused]) -> None:
        """Step 3: each turn gains a share of its best adjacent turn's relevance; the
        neighbours of the best candidates join (if the query's filters allow them)."""
        share = self._settings.recall_neighbour_share
        if share <= 0 or kind not in neighbours.SESSION_MODELS or not fused:
            return
        best = sorted(fused, key=lambda row_id: -fused[row_id].relevance)[:NEIGHBOUR_SEEDS]
        around = neighbours.adjacent(session, kind, fused)
        joining = {other for row_id in best for other in around.get(row_id, ())
                   if other is not None and other not in fused}
        if joining:
            joining &= self._storage.search.matching_ids(session, kind, joining,
                                                         run.query.filters)
        base = {row_id: entry.relevance for row_id, entry in fused.items()}
        for row_id in joining:
            fused[row_id] = Fused()
        for row_id, entry in fused.items():
            previous, following = around.get(row_id, (None, None))
            gain = share * max(base.get(previous or -1, 0.0), base.get(following or -1, 0.0))
            if gain > 0:
                entry.relevance += gain
                entry.signals["context"] = {"gain": gain}

    def _add_cues(self, kind: IndexedKind, row: Any, entry: Fused, run: _Run,
                  named: set[str]) -> None:
        """Step 4: speaker, date and time-word boosts, recorded in ``signals["cues"]``."""
        settings = self._settings
        boosts: dict[str, float] = {}
        speaker = HYDRATORS[kind].speaker(row)
        if speaker in named:
            boosts["speaker"] = settings.recall_speaker_boost
        if run.dates and row.created_at is not None:
            window = settings.recall_date_window_days
            nearest = min(span.distance_days(row.created_at) for span in run.dates)
            if nearest < window:
                boosts["date"] = settings.recall_date_boost * (1.0 - nearest / window)
        if run.asks_when and cues.has_time_words(HYDRATORS[kind].text(row)):
            boosts["time_words"] = settings.recall_time_word_boost
        if boosts:
            entry.relevance += sum(boosts.values())
            entry.signals["cues"] = boosts

    def _result(self, kind: IndexedKind, row: Any, entry: Fused, run: _Run) -> RecallResult:
        """Step 5: recency, strength and tier on top of the relevance."""
        settings = self._settings
        age = age_in_days(row.created_at, run.now)
        boost = recency_boost(age, settings.recall_recency_boost, settings.recall_recency_days)
        signals: dict[str, dict[str, Any]] = {
            **entry.signals,
            "fusion": {"relevance": entry.relevance},
            "recency": {"age_days": age, "boost": boost},
        }
        factor = 1.0
        if kind is IndexedKind.MEMORY:
            strength = strength_factor(row.strength, settings.recall_strength_weight)
            tier = settings.recall_tier_weights.get(row.tier, 1.0)
            signals["strength"] = {"strength": row.strength, "factor": strength}
            signals["tier"] = {"tier": row.tier, "factor": tier}
            factor = strength * tier
        hydrator = HYDRATORS[kind]
        excerpt, passage = None, None
        if entry.chunk is not None:
            passage = (entry.chunk.char_start, entry.chunk.char_end)
            # the window's offsets are into the embedded text; every indexed column is
            # loaded by the kind's hydrator
            excerpt = entry.chunk.excerpt(row_text(kind, row))
        return RecallResult(kind=kind, id=row.id, text=hydrator.text(row),
                            score=(entry.relevance + boost) * factor, signals=signals,
                            provenance=hydrator.describe(row), created_at=row.created_at,
                            excerpt=excerpt, passage=passage)


def _load(session: Session, hydrator: _Hydrator, wanted: Iterable[int]) -> dict[int, Any]:
    """The rows with these ids (rows deleted meanwhile are simply absent)."""
    rows: dict[int, Any] = {}
    connection = session.connection()
    for chunk in batched(sorted(wanted), 500):
        rows.update((row.id, row) for row in connection.execute(hydrator.statement,
                                                                {"ids": list(chunk)}))
    return rows


def _seen_at_its_moment(query: RecallQuery) -> RecallQuery:
    """``query`` with its time window ending at its ``as_of`` moment (included), so every
    search, neighbour, summary, metadata row and graph edge recall reaches passes it."""
    if query.as_of is None:
        return query
    until = seen_until(query.as_of)
    if query.filters.until is not None:
        until = min(until, query.filters.until)
    return replace(query, filters=replace(query.filters, until=until))


def _candidates(run: _Run) -> int:
    """Rows each signal fetches per kind (for the pool the head is picked from)."""
    return max(MIN_CANDIDATES, CANDIDATES_PER_RESULT * run.depth)


def _rank_key(result: RecallResult) -> tuple[float, float, str, int]:
    """Best score first; ties go to the newer record, then a stable order."""
    created = result.created_at.timestamp() if result.created_at else 0.0
    return (-result.score, -created, result.kind.value, result.id)

