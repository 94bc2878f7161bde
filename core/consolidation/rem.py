"""REM: weak, cross-cutting associations between distant memories (kind ``dream``).

kNN links join what is plainly related; REM proposes hypotheses across topics: a pair of
valid memories that differ in namespace or category and whose cosine sits in the middle
band ``BAND`` (``[0.51, 0.68)``). On the labelled pairs in
``tests/core/consolidation/test_link_rem.py``, bge-small gives unrelated pairs 0.32-0.50,
associable cross-topic pairs (knee physio / trail running, a peanut allergy / dinner at that
person's place) 0.515-0.58 and related ones 0.79 and up; the band sits between the noise and
the kNN floor (0.70).

Each run samples ``ANCHORS`` anchor memories (seeded), takes each anchor's most similar
in-band distant partner that is not already linked, and keeps the ``EDGES_PER_RUN`` most
similar of those pairs, at most ``PER_MEMORY`` per memory. The edge goes from the lower id to the
higher (an association has
no direction), with weight ``WEIGHT_SCALE x cosine`` (at most 0.27, below every kNN edge)
so recall trusts it less. Pairs are upserted: the same seed proposes the same pairs and a
rerun adds nothing; another seed may add up to ``EDGES_PER_RUN`` more.
"""

from __future__ import annotations

import numpy as np
from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from core.config import Settings
from core.consolidation.link import replace_edges, drop_edges_of_invalid, normalised
from core.storage.orm import Memory, MemoryEdge
from core.storage.port import IndexedKind, StoragePort, batched

KIND = "dream"
BAND = (0.51, 0.68)
EDGES_PER_RUN = 20
PER_MEMORY = 2
"""New dream edges one memory may get per run: a vague memory ("felt stressed this week")
is mid-band to everything and would otherwise become a hub."""
ANCHORS = 512
WEIGHT_SCALE = 0.4
BLOCK = 4_096


def run_rem(storage: StoragePort, settings: Settings, *,
            rng_seed: int | None = None) -> dict[str, int]:
    """Propose up to ``EDGES_PER_RUN`` dream edges; counts ``anchors``, ``proposed``,
    ``added``, ``updated``, ``removed`` (edges of memories no longer valid)."""
    counts = {"anchors": 0, "proposed": 0, "added": 0, "updated": 0, "removed": 0}
    with storage.read() as session:
        ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY, valid_only=True)
        anchors = np.sort(np.random.default_rng(rng_seed).choice(
            ids.size, min(ANCHORS, ids.size), replace=False))
        namespaces, categories = _labels(session, ids)
        linked = _linked_pairs(session, ids[anchors].tolist())
    if ids.size >= 2:
        counts["anchors"] = int(anchors.size)
        pairs = _proposals(normalised(matrix), anchors, namespaces, categories, ids, linked)
        wanted = {(int(ids[min(a, b)]), int(ids[max(a, b)])): round(WEIGHT_SCALE * s, 4)
                  for a, b, s in pairs}
        counts["proposed"] = len(wanted)
        with storage.write() as session:
            sources = sorted({pair[0] for pair in wanted})
            existing = _existing(session, sources)
            replace_edges(session, sources, {**existing, **wanted}, KIND, counts)
    with storage.write() as session:
        counts["removed"] += drop_edges_of_invalid(session, KIND)
    return counts


def _proposals(matrix: np.ndarray, anchors: np.ndarray, namespaces: np.ndarray,
               categories: np.ndarray, ids: np.ndarray,
               linked: set[tuple[int, int]]) -> list[tuple[int, int, float]]:
    """Each anchor's best in-band, distant, unlinked partner; the most similar few overall."""
    low, high = BAND
    linked_rows, linked_cols = _linked_cells(linked, ids, anchors)
    best = np.full(anchors.size, -1, dtype=np.int64)
    best_s = np.full(anchors.size, -np.inf, dtype=np.float32)
    queries = matrix[anchors]
    for start in range(0, matrix.shape[0], BLOCK):
        stop = min(matrix.shape[0], start + BLOCK)
        scores = queries @ matrix[start:stop].T
        distant = ((namespaces[anchors][:, None] != namespaces[None, start:stop])
                   | (categories[anchors][:, None] != categories[None, start:stop]))
        scores[~(distant & (scores >= low) & (scores < high))] = -np.inf
        inside = (linked_cols >= start) & (linked_cols < stop)
        scores[linked_rows[inside], linked_cols[inside] - start] = -np.inf
        column = np.argmax(scores, axis=1)
        value = scores[np.arange(anchors.size), column]
        better = value > best_s
        best[better], best_s[better] = start + column[better], value[better]
    found = [(int(a), int(b), float(s)) for a, b, s in zip(anchors, best, best_s, strict=True)
             if b >= 0 and np.isfinite(s)]
    chosen: dict[tuple[int, int], tuple[int, int, float]] = {}
    degree: dict[int, int] = {}
    for a, b, s in sorted(found, key=lambda p: -p[2]):
        pair = (min(a, b), max(a, b))
        if pair in chosen or degree.get(a, 0) >= PER_MEMORY or degree.get(b, 0) >= PER_MEMORY:
            continue
        chosen[pair] = (a, b, s)
        degree[a], degree[b] = degree.get(a, 0) + 1, degree.get(b, 0) + 1
        if len(chosen) == EDGES_PER_RUN:
            break
    return list(chosen.values())


def _linked_cells(linked: set[tuple[int, int]], ids: np.ndarray,
                  anchors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(anchor position, row) of every already-linked pair that involves an anchor."""
    position = {int(ids[row]): index for index, row in enumerate(anchors)}
    cells = []
    for a, b in linked:
        for mine, other in ((a, b), (b, a)):
            if mine not in position:
                continue
            row = int(np.searchsorted(ids, other))
            if row < ids.size and ids[row] == other:
                cells.append((position[mine], row))
    if not cells:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    rows, columns = zip(*cells, strict=True)
    return np.array(rows, dtype=np.int64), np.array(columns, dtype=np.int64)


def _labels(session: Session, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Namespace and category of each id, aligned with ``ids``."""
    found: dict[int, tuple[str, str]] = {}
    for chunk in batched(ids.tolist(), 500):
        found.update((row.id, (row.namespace, row.category)) for row in session.execute(
            select(Memory.id, Memory.namespace, Memory.category).where(Memory.id.in_(chunk))))
    labels = [found.get(int(i), ("", "")) for i in ids]
    return (np.array([n for n, _ in labels], dtype=object),
            np.array([c for _, c in labels], dtype=object))


def _linked_pairs(session: Session, anchors: list[int]) -> set[tuple[int, int]]:
    """Unordered pairs with an anchor already joined by a non-dream edge (REM proposes
    only new links)."""
    pairs: set[tuple[int, int]] = set()
    for chunk in batched(anchors, 500):
        pairs.update((min(a, b), max(a, b)) for a, b in session.execute(
            select(MemoryEdge.from_id, MemoryEdge.to_id).where(
                MemoryEdge.kind != KIND,
                or_(MemoryEdge.from_id.in_(chunk), MemoryEdge.to_id.in_(chunk)))))
    return pairs


def _existing(session: Session, sources: list[int]) -> dict[tuple[int, int], float]:
    """The dream edges already leaving ``sources``: kept, since REM only ever adds."""
    return {(row.from_id, row.to_id): row.weight for row in session.execute(
        select(MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.weight).where(
            MemoryEdge.kind == KIND, MemoryEdge.from_id.in_(sources)))}
