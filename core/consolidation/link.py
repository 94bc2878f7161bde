"""Link: k-nearest-neighbour edges between valid memories (kind ``knn``, weight = cosine).

Each valid memory gets directed edges to at most ``settings.link_max_edges`` of its most
similar valid memories with cosine similarity at least ``settings.link_similarity_floor``
(0.70, calibrated on labelled pairs in ``tests/core/consolidation/test_link_rem.py``).
Recall walks them one hop (``core.recall.graph``) to recover what cosine missed.

``run_link`` relinks everything on the first run (blocked matrix products; clustered or
through the ANN index on large stores) and afterwards, night by night, only the memories
the change queue names (``core.consolidation.link_log``) and those with an edge to one,
offering each changed memory to the lists it enters;
``tests/core/consolidation/test_link_incremental.py`` holds that to a full relink. Writing
is idempotent and paced in short transactions, and the queue is emptied in the run's last
one, so a cancelled or killed run leaves every memory with its old or its new edges and a
rerun finishes it.

See docs/consolidation.md, "kNN links" (the floor, scaling, why a night equals a full
relink, when a full relink runs).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from sqlalchemy import Table, and_, bindparam, delete, func, insert, or_, select, update
from sqlalchemy.orm import Session

from core.config import Settings
from core.consolidation import link_log
from core.storage.affected import affected
from core.storage.orm import Memory, MemoryEdge, utcnow
from core.storage.pacing import WritePacer
from core.storage.port import IndexedKind, StoragePort, batched

KIND = "knn"
EXACT_MAX_ROWS = 12_000
QUERY_BLOCK = 1_024
TARGET_BLOCK = 2_048
PROBE = 12
"""Clusters searched per cluster above ``EXACT_MAX_ROWS`` (including its own)."""
KMEANS_SAMPLE = 20_000
KMEANS_ITERATIONS = 8
FIRST_WRITE = 256
"""Memories whose edges the first transaction replaces; the pacer sizes the next ones
(``core.storage.pacing``), so linking never keeps another writer waiting long."""
WEIGHT_EPSILON = 1e-6
SEED = 20261122
ANN_MIN_ROWS = 200_000
"""Above this many memories the neighbours come from the ANN index of recall, when it is
current (``indexed_neighbours``): the clustered scan's pairs grow as n^1.5 (56 s at 100k on
the loaded 2-core machine, so ~30 minutes extrapolated to 1M). The index's batch search is
not fast enough either (23 minutes at 1M, 0.93 of the exact neighbours:
``docs/benchmarks.md``, the scale table), so a full relink is the first night's cost only;
nights link what changed (from the index whenever it is current)."""
ANN_CANDIDATES = 12
ANN_BLOCK = 4_096
"""Rows per batch query: 4,096 x 12 candidates x 384 floats is 75 MB of gathered vectors."""

FULL_FRACTION = 0.10
"""A night with more changed memories than this share of the valid ones relinks all of
them: past it the changed lists' reads and merges cost about as much as a full pass."""
CHANGE_CANDIDATES = 32
"""ANN candidates per relinked memory: more than a full run's ``ANN_CANDIDATES`` (there are
few such queries), which also widens the net of the reverse direction."""
REVERSE_BLOCK = 64
"""Changed memories scored against every row at once (64 x 100k floats is 26 MB; 256 made
a night's peak memory half again the full run's at 100k)."""

_LINKABLE = and_(Memory.is_valid.is_(True), Memory.superseded_by.is_(None),
                 Memory.embedding_model.is_not(None))

_EDGES = cast(Table, MemoryEdge.__table__)
_SET_WEIGHT = update(_EDGES).where(_EDGES.c.id == bindparam("e_id")).values(
    weight=bindparam("e_weight"))

ProgressCallback = Callable[[int, int], None]
CancelCheck = Callable[[], bool]


class LinkCancelled(Exception):
    """``cancel()`` returned True; batches already written stay written (a rerun resumes)."""


@dataclass(frozen=True)
class Neighbours:
    """Row-aligned top-k: ``index[i]`` are row numbers (-1 = none), ``similarity[i]`` their
    cosines, best first."""

    index: np.ndarray
    similarity: np.ndarray


def normalised(matrix: np.ndarray) -> np.ndarray:
    """``matrix`` with unit rows, divided in place (a copy of 100k vectors is 154 MB). The
    embedder already normalises; this guards vectors from other sources."""
    norms = np.sqrt(np.einsum("ij,ij->i", matrix, matrix))[:, None]  # no n x d temporary
    np.divide(matrix, np.where(norms == 0, 1.0, norms), out=matrix)
    return matrix


def nearest_neighbours(matrix: np.ndarray, k: int, floor: float, *,
                       cancel: CancelCheck | None = None) -> Neighbours:
    """Each row's ``k`` most similar other rows with similarity >= ``floor``."""
    n = matrix.shape[0]
    index = np.full((n, k), -1, dtype=np.int64)
    similarity = np.full((n, k), -np.inf, dtype=np.float32)
    for rows, candidates in _work(matrix, cancel):
        best_j, best_s = _top_k(matrix, rows, candidates, k)
        index[rows], similarity[rows] = best_j, best_s
    order = np.argsort(-similarity, axis=1, kind="stable")
    index = np.take_along_axis(index, order, axis=1)
    similarity = np.take_along_axis(similarity, order, axis=1)
    weak = similarity < floor
    index[weak], similarity[weak] = -1, -np.inf
    return Neighbours(index, similarity)


def _work(matrix: np.ndarray, cancel: CancelCheck | None) -> Iterator[tuple[np.ndarray,
                                                                           np.ndarray | None]]:
    """(query rows, candidate rows or None for all) pieces covering every row once."""
    n = matrix.shape[0]
    if n <= EXACT_MAX_ROWS:
        pieces: Iterator[tuple[np.ndarray, np.ndarray | None]] = (
            (np.arange(start, min(n, start + QUERY_BLOCK)), None)
            for start in range(0, n, QUERY_BLOCK))
    else:
        pieces = _clustered(matrix)
    for piece in pieces:
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        yield piece


def _clustered(matrix: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Each cluster's members (in query blocks) with the members of its nearest clusters."""
    centroids = _kmeans(matrix, max(PROBE, round(math.sqrt(matrix.shape[0]))))
    labels = _assign(matrix, centroids)
    members = [np.flatnonzero(labels == c) for c in range(len(centroids))]
    near = np.argsort(-(centroids @ centroids.T), axis=1)[:, :PROBE]
    for cluster, rows in enumerate(members):
        if rows.size == 0:
            continue
        candidates = np.concatenate([members[other] for other in near[cluster]])
        for start in range(0, rows.size, QUERY_BLOCK):
            yield rows[start:start + QUERY_BLOCK], candidates


def _kmeans(matrix: np.ndarray, clusters: int) -> np.ndarray:
    """Spherical k-means on a seeded sample: unit centroids (deterministic)."""
    rng = np.random.default_rng(SEED)
    sample = matrix[np.sort(rng.choice(matrix.shape[0], min(KMEANS_SAMPLE, matrix.shape[0]),
                                       replace=False))]
    centroids: np.ndarray = sample[rng.choice(sample.shape[0], clusters, replace=False)].copy()
    for _ in range(KMEANS_ITERATIONS):
        labels = _assign(sample, centroids)
        sums = np.zeros_like(centroids)
        np.add.at(sums, labels, sample)
        filled = np.bincount(labels, minlength=clusters) > 0
        centroids[filled] = normalised(sums[filled])
    return centroids


def _assign(matrix: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    labels = np.empty(matrix.shape[0], dtype=np.int64)
    for start in range(0, matrix.shape[0], 8 * QUERY_BLOCK):
        labels[start:start + 8 * QUERY_BLOCK] = np.argmax(
            matrix[start:start + 8 * QUERY_BLOCK] @ centroids.T, axis=1)
    return labels


def _top_k(matrix: np.ndarray, rows: np.ndarray, candidates: np.ndarray | None,
           k: int) -> tuple[np.ndarray, np.ndarray]:
    """The running top-k of ``rows`` over ``candidates`` (all rows if None), block by block."""
    queries = matrix[rows]
    best_j = np.full((rows.size, k), -1, dtype=np.int64)
    best_s = np.full((rows.size, k), -np.inf, dtype=np.float32)
    total = matrix.shape[0] if candidates is None else candidates.size
    for start in range(0, total, TARGET_BLOCK):
        stop = min(total, start + TARGET_BLOCK)
        if candidates is None:
            columns, block = np.arange(start, stop), matrix[start:stop]
        else:
            columns = candidates[start:stop]
            block = matrix[columns]
        scores = queries @ block.T
        scores[rows[:, None] == columns[None, :]] = -np.inf  # never your own neighbour
        if scores.shape[1] > k:
            part = np.argpartition(scores, scores.shape[1] - k, axis=1)[:, -k:]
        else:
            part = np.broadcast_to(np.arange(scores.shape[1]), (rows.size, scores.shape[1]))
        merged_s = np.concatenate([best_s, np.take_along_axis(scores, part, axis=1)], axis=1)
        merged_j = np.concatenate([best_j, columns[part]], axis=1)
        keep = np.argpartition(merged_s, merged_s.shape[1] - k, axis=1)[:, -k:]
        best_s = np.take_along_axis(merged_s, keep, axis=1)
        best_j = np.take_along_axis(merged_j, keep, axis=1)
    return best_j, best_s


def indexed_neighbours(storage: StoragePort, ids: np.ndarray, matrix: np.ndarray, k: int,
                       floor: float, *, cancel: CancelCheck | None = None) -> Neighbours | None:
    """``nearest_neighbours`` through the storage's ANN index (None without a current one):
    each row's ``ANN_CANDIDATES`` candidates (the row itself, invalid memories and rows the
    index knows but ``ids`` lacks are dropped) are rescored exactly from ``matrix``, which
    must have unit rows and ``ids`` ascending."""
    n = ids.size
    index = np.full((n, k), -1, dtype=np.int64)
    similarity = np.full((n, k), -np.inf, dtype=np.float32)
    for start in range(0, n, ANN_BLOCK):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        rows = np.arange(start, min(n, start + ANN_BLOCK))
        with storage.read() as session:
            keys = storage.search.approximate_neighbours(session, IndexedKind.MEMORY,
                                                         matrix[rows], ANN_CANDIDATES)
        if keys is None:
            return None
        position = np.minimum(np.searchsorted(ids, keys), n - 1)
        known = (keys >= 0) & (ids[position] == keys) & (position != rows[:, None])
        scores = np.einsum("id,ijd->ij", matrix[rows], matrix[position])
        scores[~known] = -np.inf
        best = np.argsort(-scores, axis=1, kind="stable")[:, :k]
        picked = np.take_along_axis(scores, best, axis=1)
        index[rows, :best.shape[1]] = np.where(picked >= floor,
                                               np.take_along_axis(position, best, axis=1), -1)
        similarity[rows, :best.shape[1]] = np.where(picked >= floor, picked, -np.inf)
    return Neighbours(index, similarity)


# --- the stage ---------------------------------------------------------------------------


def run_link(storage: StoragePort, settings: Settings, *, full: bool = False,
             progress: ProgressCallback | None = None,
             cancel: CancelCheck | None = None) -> dict[str, Any]:
    """Bring the kNN edges up to date; returns what was done: ``mode`` ("full" or
    "incremental") and the ``reason`` for it, ``changed`` (memories the queue named),
    ``memories`` (valid ones), ``relinked`` / ``merged`` (lists recomputed / offered a new
    neighbour, incremental only), ``edges`` (knn edges now stored), ``added``, ``updated``,
    ``removed``. First the nearest-neighbour index of recall is brought up to date (rebuilt
    if it disagrees with the rows, with ``progress`` in vectors): the nightly dream is where
    that long work belongs. ``full`` relinks every memory whatever changed."""
    if not storage.search.refresh_search_indexes(progress=progress, cancel=cancel):
        raise LinkCancelled("Linking was cancelled.")
    wanted = {"link_max_edges": settings.link_max_edges,
              "link_similarity_floor": settings.link_similarity_floor}
    with storage.read() as session:
        changes = link_log.pending(session)
        recorded = link_log.linked_with(session)
        valid = int(session.execute(select(func.count()).select_from(Memory).where(
            _LINKABLE)).scalar_one())
    reason = ("requested" if full else "first run" if recorded is None
              else "settings changed" if recorded != wanted
              else "many changes" if len(changes.memory_ids) > FULL_FRACTION * valid
              else "")
    counts: dict[str, Any] = {"mode": "full" if reason else "incremental", "reason": reason,
                              "changed": len(changes.memory_ids), "memories": valid,
                              "edges": 0, "added": 0, "updated": 0, "removed": 0}
    if reason:
        _relink_everything(storage, settings, counts, progress, cancel)
    else:
        _relink_changes(storage, settings, changes.memory_ids, counts, progress, cancel)
    with storage.write() as session:
        counts["removed"] += drop_edges_of_invalid(session, KIND)
        link_log.finish(session, changes, wanted)
    if counts["mode"] == "incremental":
        with storage.read() as session:
            counts["edges"] = int(session.execute(select(func.count()).select_from(
                MemoryEdge).where(MemoryEdge.kind == KIND)).scalar_one())
    return counts


def _relink_everything(storage: StoragePort, settings: Settings, counts: dict[str, Any],
                       progress: ProgressCallback | None, cancel: CancelCheck | None) -> None:
    """Every valid memory's list, from one read of every vector (the first night, or after
    a change of settings or of most memories)."""
    with storage.read() as session:
        ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY, valid_only=True)
    counts["memories"] = int(ids.size)
    matrix = normalised(matrix)
    found = None
    if ids.size > ANN_MIN_ROWS:
        found = indexed_neighbours(storage, ids, matrix, settings.link_max_edges,
                                   settings.link_similarity_floor, cancel=cancel)
    if found is None:
        found = nearest_neighbours(matrix, settings.link_max_edges,
                                   settings.link_similarity_floor, cancel=cancel)
    del matrix  # the edges are written from ``found`` alone
    pacer = WritePacer(storage, first_size=FIRST_WRITE)
    for rows in pacer.slices(range(ids.size)):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        wanted = {(int(ids[row]), int(ids[j])): float(s)
                  for row in rows
                  for j, s in zip(found.index[row], found.similarity[row], strict=True) if j >= 0}
        counts["edges"] += len(wanted)
        with pacer.write() as session:
            replace_edges(session, ids[rows.start:rows.stop].tolist(), wanted, KIND, counts)
        if progress is not None:
            progress(rows.stop, int(ids.size))
    if progress is not None and ids.size == 0:
        progress(0, 0)


# --- linking only what changed ------------------------------------------------------------

Lists = dict[int, list[tuple[int, float]]]
"""Memory id -> its (neighbour id, cosine) pairs."""


def _relink_changes(storage: StoragePort, settings: Settings, changed: frozenset[int],
                    counts: dict[str, Any], progress: ProgressCallback | None,
                    cancel: CancelCheck | None) -> None:
    """Recompute the lists of the changed memories and of those that had an edge to one
    (they lost a neighbour, or its weight changed), and offer every changed memory that is
    valid to the lists of the others it is close enough to (the reverse direction):
    docs/consolidation.md ("kNN links") argues why this equals a full relink."""
    k, floor = settings.link_max_edges, settings.link_similarity_floor
    with storage.read() as session:
        lost: set[int] = set()
        for chunk in batched(sorted(changed), 500):
            lost.update(session.execute(select(MemoryEdge.from_id).where(
                MemoryEdge.kind == KIND, MemoryEdge.to_id.in_(chunk))).scalars())
    targets = sorted(changed | lost)
    found = _indexed_lists(storage, targets, changed, k, floor, cancel)
    if found is None:  # no approximate index serves (a small store): score them all
        found = _exact_lists(storage, targets, changed, k, floor, cancel)
    forward, offers = found
    offers = _worth_offering(storage, offers, k)
    counts["relinked"], counts["merged"] = len(targets), len(offers)
    total = len(targets) + len(offers)
    pacer = WritePacer(storage, first_size=FIRST_WRITE)
    done = 0
    for sources in pacer.slices(targets):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        with pacer.write() as session:
            replace_edges(session, list(sources), {
                (source, target): weight for source in sources
                for target, weight in forward.get(source, [])}, KIND, counts)
        done += len(sources)
        if progress is not None:
            progress(done, total)
    for sources in pacer.slices(sorted(offers)):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        with pacer.write() as session:
            kept: Lists = {source: [] for source in sources}
            for row in session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id,
                                              MemoryEdge.weight).where(
                    MemoryEdge.kind == KIND, MemoryEdge.from_id.in_(sources))):
                kept[row.from_id].append((row.to_id, row.weight))
            replace_edges(session, list(sources), {
                (source, target): weight for source in sources
                for target, weight in _best(kept[source] + offers[source], k)}, KIND, counts)
        done += len(sources)
        if progress is not None:
            progress(done, total)
    if progress is not None and total == 0:
        progress(0, 0)


def _worth_offering(storage: StoragePort, offers: Lists, k: int) -> Lists:
    """Only the offers that enter a list: heavier than its weakest stored edge, or to a list
    shorter than ``k`` (an equal weight is a tie: either may stay). One read of every
    offered list's count and weakest weight spares a write transaction for most of them."""
    stored: dict[int, tuple[int, float]] = {}
    with storage.read() as session:
        for chunk in batched(sorted(offers), 500):
            stored.update((row[0], (int(row[1]), float(row[2]))) for row in session.execute(
                select(MemoryEdge.from_id, func.count(), func.min(MemoryEdge.weight)).where(
                    MemoryEdge.kind == KIND, MemoryEdge.from_id.in_(chunk)).group_by(
                    MemoryEdge.from_id)))
    worth: Lists = {}
    for source, pairs in offers.items():
        count, weakest = stored.get(source, (0, -math.inf))
        entering = pairs if count < k else [pair for pair in pairs if pair[1] > weakest]
        if entering:
            worth[source] = entering
    return worth


def _best(pairs: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
    """The ``k`` heaviest of ``pairs``, one per neighbour (a later pair's weight wins: the
    offers come after the stored edges and carry today's cosine)."""
    weights = dict(pairs)
    return sorted(weights.items(), key=lambda pair: (-pair[1], pair[0]))[:k]


def _exact_lists(storage: StoragePort, targets: list[int], changed: frozenset[int], k: int,
                 floor: float, cancel: CancelCheck | None) -> tuple[Lists, Lists]:
    """(each target's list, offers: memory -> changed memories it should consider), scoring
    against every valid vector (read at once: where no current ANN index can name
    candidates)."""
    with storage.read() as session:
        ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY, valid_only=True)
    matrix = normalised(matrix)
    rows = _rows_of(ids, targets)
    forward: Lists = {}
    for start in range(0, rows.size, QUERY_BLOCK):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        block = rows[start:start + QUERY_BLOCK]
        best_j, best_s = _top_k(matrix, block, None, k)
        for row, js, ss in zip(block, best_j, best_s, strict=True):
            forward[int(ids[row])] = _kept(ids[js], ss, js >= 0, floor)
    relinked = np.zeros(ids.size, dtype=bool)
    relinked[rows] = True
    offers: Lists = {}
    new_rows = _rows_of(ids, sorted(changed))
    for start in range(0, new_rows.size, REVERSE_BLOCK):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        block = new_rows[start:start + REVERSE_BLOCK]
        scores = matrix[block] @ matrix.T
        scores[:, relinked] = -np.inf  # their lists are recomputed whole (and no self-pairs)
        for q, c in zip(*np.nonzero(scores >= floor), strict=True):
            offers.setdefault(int(ids[c]), []).append((int(ids[block[q]]), float(scores[q, c])))
    return forward, offers


def _indexed_lists(storage: StoragePort, targets: list[int], changed: frozenset[int], k: int,
                   floor: float, cancel: CancelCheck | None) -> tuple[Lists, Lists] | None:
    """``_exact_lists`` through the ANN index (None without a current one), reading only
    the targets' vectors and their candidates' by id: each target's ``CHANGE_CANDIDATES``
    approximate neighbours are rescored exactly, and a changed memory is offered to those
    of its candidates it is close enough to (the reverse direction, approximate here as
    the index is)."""
    forward: Lists = {}
    offers: Lists = {}
    wanted = set(targets)
    for chunk in batched(targets, ANN_BLOCK):
        if cancel is not None and cancel():
            raise LinkCancelled("Linking was cancelled.")
        with storage.read() as session:
            queries = _valid_vectors(storage, session, chunk)
            if not queries:
                continue
            query_ids = sorted(queries)
            keys = storage.search.approximate_neighbours(
                session, IndexedKind.MEMORY, np.stack([queries[i] for i in query_ids]),
                CHANGE_CANDIDATES)
            if keys is None:
                return None
            candidates = _valid_vectors(storage, session, sorted(set(keys[keys >= 0].tolist())))
        for query_id, row in zip(query_ids, keys, strict=True):
            near = [int(key) for key in dict.fromkeys(row.tolist())
                    if key in candidates and key != query_id]
            if not near:
                forward[query_id] = []
                continue
            scores = np.stack([candidates[key] for key in near]) @ queries[query_id]
            order = np.argsort(-scores, kind="stable")[:k]
            forward[query_id] = [(near[j], float(scores[j])) for j in order
                                 if scores[j] >= floor]
            if query_id in changed:
                for key, score in zip(near, scores.tolist(), strict=True):
                    if score >= floor and key not in wanted:
                        offers.setdefault(key, []).append((query_id, score))
    return forward, offers


def _valid_vectors(storage: StoragePort, session: Session,
                   ids: Sequence[int]) -> dict[int, np.ndarray]:
    """Unit whole-text vectors of those of ``ids`` that are valid memories."""
    valid: list[int] = []
    for chunk in batched(ids, 500):
        valid += session.execute(select(Memory.id).where(Memory.id.in_(chunk),
                                                         _LINKABLE)).scalars()
    found = storage.search.stored_embeddings(session, IndexedKind.MEMORY, valid)
    if not found:
        return {}
    matrix = normalised(np.stack([stored.vector for stored in found]).astype(np.float32))
    return {stored.id: matrix[row] for row, stored in enumerate(found)}


def _rows_of(ids: np.ndarray, wanted: Sequence[int]) -> np.ndarray:
    """Positions in ``ids`` (ascending) of those of ``wanted`` it holds."""
    if ids.size == 0:
        return np.empty(0, dtype=np.int64)
    wanted_ids = np.asarray(wanted, dtype=np.int64)
    position: np.ndarray = np.minimum(np.searchsorted(ids, wanted_ids), ids.size - 1)
    held: np.ndarray = position[ids[position] == wanted_ids]
    return held


def _kept(neighbours: np.ndarray, similarity: np.ndarray, present: np.ndarray,
          floor: float) -> list[tuple[int, float]]:
    keep = present & (similarity >= floor)
    order = np.argsort(-similarity[keep], kind="stable")
    return [(int(j), float(s)) for j, s in zip(neighbours[keep][order],
                                               similarity[keep][order], strict=True)]


def replace_edges(session: Session, sources: list[int], wanted: dict[tuple[int, int], float],
                  kind: str, counts: dict[str, int]) -> None:
    """Make the ``kind`` edges leaving ``sources`` exactly ``wanted`` (pair -> weight)."""
    existing = {(row.from_id, row.to_id): (row.id, row.weight) for row in session.execute(
        select(MemoryEdge.id, MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.weight)
        .where(MemoryEdge.kind == kind, MemoryEdge.from_id.in_(sources)))}
    stale = [edge_id for pair, (edge_id, _) in existing.items() if pair not in wanted]
    changed = [{"e_id": existing[pair][0], "e_weight": weight} for pair, weight in wanted.items()
               if pair in existing and abs(existing[pair][1] - weight) > WEIGHT_EPSILON]
    new = [{"from_id": a, "to_id": b, "kind": kind, "weight": weight, "created_at": utcnow()}
           for (a, b), weight in wanted.items() if (a, b) not in existing]
    for chunk in batched(stale, 500):
        session.execute(delete(MemoryEdge).where(MemoryEdge.id.in_(chunk)))
    # Core statements: the ORM's bulk paths cost several seconds more per 500k edges.
    if changed:
        session.execute(_SET_WEIGHT, changed)
    if new:
        session.execute(insert(_EDGES), new)
    counts["removed"] += len(stale)
    counts["updated"] += len(changed)
    counts["added"] += len(new)


def drop_edges_of_invalid(session: Session, kind: str) -> int:
    """Delete ``kind`` edges that touch an invalid or superseded memory; returns how many."""
    gone = select(Memory.id).where(or_(Memory.is_valid.is_(False),
                                       Memory.superseded_by.is_not(None)))
    result = session.execute(delete(MemoryEdge).where(
        MemoryEdge.kind == kind,
        or_(MemoryEdge.from_id.in_(gone), MemoryEdge.to_id.in_(gone))))
    return affected(result) or 0
