"""Dream-cycle engine cost: the link, REM and decay stages at 10k and 100k memories.

Uses the recall benchmark's generated corpus and cached vectors (``benchmarks/recall.py``),
so no LLM and no embedding is timed: these stages are pure engine work. Each stage is
timed untraced, then run again under ``tracemalloc`` for its peak Python/numpy memory
(numpy reports its buffers to tracemalloc). Link runs before decay: the generated store
has two years of never-accessed memories, and decay invalidates most of them. Decay's
traced run works on a backup copy so it sees the same rows as the timed one.

Also reported: the share of true (exact) nearest neighbours the link stage finds, on a
sample of memories, which is below 1 only above ``link.EXACT_MAX_ROWS`` (clustered search).
"""

from __future__ import annotations

import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import select

from benchmarks.recall import SEED, Corpus, _fill, cached_document_vectors, memory_texts
from core.config import Settings
from core.consolidation import link
from core.consolidation.decay import run_decay
from core.consolidation.rem import run_rem
from core.embedding import OnnxEmbedder
from core.storage.orm import MemoryEdge
from core.storage.port import IndexedKind
from core.storage.sqlite.adapter import SqliteStorage

TARGETS_SECONDS = {("link", 100_000): 60.0, ("decay", 100_000): 2.0}
QUALITY_SAMPLE = 500


def bench_dream(sizes: Sequence[int] = (10_000, 100_000)) -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}`` per stage and size."""
    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    texts = memory_texts(max(sizes))
    corpus = Corpus(texts, cached_document_vectors(texts, embedder),
                    np.random.default_rng(SEED).random(len(texts)) >= 0.02)
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="hearth-dream-") as folder:
        for size in sizes:
            storage = SqliteStorage(Path(folder) / f"dream-{size}.db")
            try:
                _fill(storage, corpus, size, embedder.model_id)
                rows.extend(_stage_rows(storage, settings, size, Path(folder)))
            finally:
                storage.close()
    return rows


def _stage_rows(storage: SqliteStorage, settings: Settings, size: int,
                folder: Path) -> list[dict[str, str]]:
    label = f"@{size // 1000}k"
    rows = []
    for name, stage in (("link", lambda db: link.run_link(db, settings)),
                        ("rem", lambda db: run_rem(db, settings, rng_seed=SEED))):
        seconds, counts = _timed(lambda: stage(storage))
        peak = _peak(lambda: stage(storage))
        rows.append(_row(name, size, label, seconds, peak, counts))
    rows.append({"benchmark": f"link: true neighbours found {label}",
                 "value": f"{_neighbour_recall(storage, settings):.3f}",
                 "target": "1.000 up to 12k (exact)"})
    copy = folder / f"decay-copy-{size}.db"
    storage.backup_to(copy)
    seconds, counts = _timed(lambda: run_decay(storage, settings))
    twin = SqliteStorage(copy)
    try:
        peak = _peak(lambda: run_decay(twin, settings))
    finally:
        twin.close()
    rows.append(_row("decay", size, label, seconds, peak, counts))
    return rows


def _timed(work: Callable[[], Any]) -> tuple[float, Any]:
    started = time.perf_counter()
    result = work()
    return time.perf_counter() - started, result


def _peak(work: Callable[[], Any]) -> int:
    tracemalloc.start()
    try:
        work()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def _row(name: str, size: int, label: str, seconds: float, peak: int,
         counts: dict[str, int]) -> dict[str, str]:
    target = TARGETS_SECONDS.get((name, size))
    shown = ", ".join(f"{key} {value:,}" for key, value in counts.items())
    return {"benchmark": f"{name} stage {label}",
            "value": f"{seconds:.2f} s · peak {peak / 1e6:.0f} MB · {shown}",
            "target": f"≤ {target:.0f} s" if target else ""}


def _neighbour_recall(storage: SqliteStorage, settings: Settings) -> float:
    """Share of each sampled memory's exact top-k (above the floor) that has a knn edge."""
    with storage.read() as session:
        ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY)
        stored: dict[int, list[int]] = {}
        for a, b in session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id)
                                    .where(MemoryEdge.kind == link.KIND)):
            stored.setdefault(a, []).append(b)
    matrix = link.normalised(matrix)
    sample = np.random.default_rng(SEED).choice(ids.size, min(QUALITY_SAMPLE, ids.size),
                                                replace=False)
    scores = matrix[sample] @ matrix.T
    scores[np.arange(sample.size), sample] = -np.inf
    k = settings.link_max_edges
    found = wanted = 0
    for row, index in enumerate(sample):
        top = np.argpartition(scores[row], -k)[-k:]
        # a neighbour tied with the k-th is as good as it: count by score, not identity
        kth = np.min(scores[row, top])
        truth = [j for j in top if scores[row, j] >= settings.link_similarity_floor]
        linked = stored.get(int(ids[index]), [])
        wanted += len(truth)
        position = np.searchsorted(ids, linked)
        found += min(len(truth), int(np.sum(scores[row, position] >= kth - 1e-6)))
    return found / wanted if wanted else 1.0
