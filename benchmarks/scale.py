"""Vectors for a million memories without embedding a million texts.

Embedding 1M generated memories with bge-small takes over half an hour on the 2-core
machine, and a benchmark of *scale* needs the vectors' shape, not their meaning. So the
first ``REAL`` rows are the real (cached) embeddings of the recall benchmark's generated
memories, and each further vector is one of them moved by noise drawn from the real
embeddings' own covariance (their principal axes and variances), scaled so that its cosine
to its source lies around 0.85 (0.75-0.92: the range of two paraphrases or two memories on
the same topic, ``core.consolidation.link``). The result keeps what makes bge's vectors
hard or easy for an index: the shared mean direction (anisotropy), the uneven variance
across dimensions, and clusters of near neighbours around every topic.

The text of a generated row is the generator's own sentence for that row, which does not
match its vector; full-text figures at 1M measure the index's cost, not relevance.
"""

from __future__ import annotations

import hashlib
import json
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.recall import cached_document_vectors, memory_texts, query_texts
from benchmarks.stats import percentiles

REAL = 100_000
"""Rows that are real embeddings; the rest are derived from them."""

SEED = 20261122
_BLOCK = 50_000


def bge_shaped(real: np.ndarray, count: int, seed: int = SEED) -> np.ndarray:
    """``count`` unit float32 vectors: ``real`` (unit rows) first, then vectors derived from
    them as the module says. The same inputs always give the same output."""
    if count <= real.shape[0]:
        return np.ascontiguousarray(real[:count], dtype=np.float32)
    rng = np.random.default_rng(seed)
    sample = real[rng.choice(real.shape[0], min(20_000, real.shape[0]), replace=False)]
    centred = sample - sample.mean(axis=0)
    _, singular, axes = np.linalg.svd(centred, full_matrices=False)
    spread = (singular / np.sqrt(sample.shape[0] - 1)).astype(np.float32)
    variance = float((spread ** 2).sum())
    out = np.empty((count, real.shape[1]), dtype=np.float32)
    out[:real.shape[0]] = real
    for start in range(real.shape[0], count, _BLOCK):
        stop = min(count, start + _BLOCK)
        n = stop - start
        sources = real[rng.integers(0, real.shape[0], n)]
        target = rng.uniform(0.75, 0.92, n).astype(np.float32)
        # |noise|^2 = 1/cos^2 - 1 gives the wanted cosine for a unit source (on average)
        scale = np.sqrt((1.0 / target ** 2 - 1.0) / variance)[:, None]
        noise = (rng.standard_normal((n, real.shape[1]), dtype=np.float32) * spread) @ axes
        block = sources + noise.astype(np.float32) * scale
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start:stop] = block
    return out


# --- the cost curve: 10k → 100k → 1M ---------------------------------------------------------

SIZES = (10_000, 100_000, 1_000_000)
STORE_VERSION = "scale-2"
"""Part of the cached stores' key: change it when the generator, the fill or what a store
holds beside its database changes (scale-2: the full-text index)."""
CACHE_DIR = Path(__file__).resolve().parent / ".cache"
QUERY_COUNT = 200
WARM_UP = 5
REPEATS = 5
SPLIT = "recall split p50: embed · full text · vector · fusion (embed + vector beside full text)"
TARGETS = {
    "recall p50 / p95 (query embedding included)": "p95 ≤ 15 ms @100k, ≤ 30 ms @1M",
    "vector recall@10 vs exact search": "≥ 0.98",
    "link stage, first run (full): seconds · peak RSS": "",
    "link stage, a night after a day (incremental): seconds · peak RSS": "≤ 5 min @1M",
}
DAY_NEW = 0.01
DAY_EDITED = 0.002
DAY_INVALIDATED = 0.001
"""A "day" before the measured night, as shares of the store: new memories, memories whose
text was edited (a new vector), memories invalidated. Generated with ``DAY_SEED``."""
DAY_SEED = SEED + 365
NIGHTS = 3
"""Nights measured, each on a fresh copy of the linked store after the same day."""


def bench_scale(sizes: Sequence[int] = SIZES) -> list[dict[str, str]]:
    """One row per figure, its values at every size side by side (the cost curve)."""
    from core.config import Settings
    from core.embedding import OnnxEmbedder

    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    real = cached_document_vectors(memory_texts(REAL), embedder)
    questions = query_texts(QUERY_COUNT)
    queries = np.stack([embedder.embed_query(question) for question in questions])
    curve: dict[str, dict[int, str]] = {}
    for size in sizes:
        home, made = _cached_store(size, real, embedder.model_id)
        for figure, value in [*made.items(), *_measure(home, size, real, queries, questions,
                                                       settings, embedder).items()]:
            curve.setdefault(figure, {})[size] = value
    return [{"benchmark": figure, "value": "  →  ".join(f"{_label(size)}: {value}"
                                                       for size, value in values.items()),
             "target": TARGETS.get(figure, "")} for figure, values in curve.items()]


def _label(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k"


def _cached_store(size: int, real: np.ndarray, model_id: str) -> tuple[Path, dict[str, str]]:
    """A data folder with ``size`` generated memories, their vectors and the ANN index,
    made once and kept under ``benchmarks/.cache`` (git-ignored); returns it and the
    figures of making it (rows per second, index build time)."""
    from benchmarks.recall import SEED as RECALL_SEED
    from benchmarks.recall import Corpus, _fill
    from core.storage.sqlite.adapter import SqliteStorage

    digest = hashlib.sha256(f"{STORE_VERSION}|{size}|{model_id}".encode())
    digest.update(real[:64].tobytes())
    home = CACHE_DIR / f"scale-{_label(size)}-{digest.hexdigest()[:12]}"
    marker = home / "made.json"
    if marker.exists():
        return home, json.loads(marker.read_text())
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    texts = memory_texts(size)
    corpus = Corpus(texts, bge_shaped(real, size),
                    np.random.default_rng(RECALL_SEED).random(size) >= 0.02)
    storage = SqliteStorage(home / "hearth.db")
    try:
        seconds = _fill(storage, corpus, size, model_id)
        started = time.perf_counter()
        storage.search.refresh_search_indexes()
        built = time.perf_counter() - started
    finally:
        storage.close()
    made = {"insert given vectors (generating the store)": f"{size / seconds:,.0f} rows/s",
            "ANN and full-text index build": f"{built:.1f} s" if built > 0.5 else
            "none (scan, FTS5)"}
    marker.write_text(json.dumps(made))
    return home, made


def bench_recall(sizes: Sequence[int] = SIZES[1:]) -> list[dict[str, str]]:
    """Recall and full-text latency at each size, with the full-text index and with FTS5
    alone, side by side in one run (the stores as ``bench_scale`` makes them). A first,
    untimed pass reads the store into the page cache, so neither engine pays for a cold
    start the other does not."""
    from core.config import Settings
    from core.embedding import OnnxEmbedder
    from core.storage.sqlite import text_index

    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    real = cached_document_vectors(memory_texts(REAL), embedder)
    questions = query_texts(QUERY_COUNT)
    curve: dict[str, dict[int, str]] = {}
    for size in sizes:
        home, _ = _cached_store(size, real, embedder.model_id)
        _recall_figures(home, questions, settings, embedder)  # into the page cache: dropped
        for engine, threshold in (("tantivy", text_index.TEXT_MIN_ROWS),
                                  ("FTS5 alone", sys.maxsize)):
            original, text_index.TEXT_MIN_ROWS = text_index.TEXT_MIN_ROWS, threshold
            try:
                figures = _recall_figures(home, questions, settings, embedder)
            finally:
                text_index.TEXT_MIN_ROWS = original
            for figure, value in figures.items():
                curve.setdefault(f"{figure}, {engine}", {})[size] = value
        curve.setdefault("full-text index size", {})[size] = _text_index_size(home)
    return [{"benchmark": figure, "value": "  →  ".join(f"{_label(size)}: {value}"
                                                       for size, value in values.items()),
             "target": ""} for figure, values in curve.items()]


def _recall_figures(home: Path, questions: Sequence[str], settings: Any,
                    embedder: Any) -> dict[str, str]:
    """Recall p50 / p95 over ``questions`` (after ``WARM_UP``), its split, and the full-text
    search alone (k 50)."""
    from core.app import Hearth
    from core.storage.port import IndexedKind, SearchFilters

    with Hearth.open(home, settings=settings, embedder=embedder) as hearth:
        figures = _recall_timings(hearth, questions)
        text_ms = []
        with hearth.storage.read() as session:
            for question in questions:
                started = time.perf_counter()
                hearth.storage.search.text_search(session, IndexedKind.MEMORY, question,
                                                  SearchFilters(), 50)
                text_ms.append((time.perf_counter() - started) * 1000)
    figures["full-text search p50 / p95 (k = 50)"] = "{:.2f} / {:.2f} ms".format(
        *percentiles(text_ms))
    return figures


def _recall_timings(hearth: Any, questions: Sequence[str]) -> dict[str, str]:
    """End-to-end recall (k 10) over ``questions`` after ``WARM_UP`` of them: p50 / p95,
    and the median of each step."""
    from core.recall import RecallQuery

    for question in questions[:WARM_UP]:
        hearth.recall.recall(RecallQuery(question))
    totals, steps = [], []
    for question in questions:
        started = time.perf_counter()
        _, timings = hearth.recall.recall_with_timings(RecallQuery(question))
        totals.append((time.perf_counter() - started) * 1000)
        steps.append(timings)
    return {
        "recall p50 / p95 (query embedding included)":
            "{:.1f} / {:.1f} ms".format(*percentiles(totals)),
        SPLIT: " · ".join(f"{percentiles([step[key] for step in steps])[0]:.1f}"
                          for key in ("embed", "text", "vector", "fusion")) + " ms",
    }


def _measure(home: Path, size: int, real: np.ndarray, queries: np.ndarray,
             questions: Sequence[str], settings: Any, embedder: Any) -> dict[str, str]:
    from core.app import Hearth
    from core.operations.memories import list_memories, more_memories
    from core.storage.port import IndexedKind, SearchFilters
    from core.views.memory_browse import MemoryFilter

    with Hearth.open(home, settings=settings, embedder=embedder) as hearth:
        search = hearth.storage.search
        figures = _recall_timings(hearth, questions)
        with hearth.storage.read() as session:
            vector_ms, text_ms, hits = [], [], []
            for question, query in zip(questions, queries, strict=True):
                started = time.perf_counter()
                found = search.vector_search(session, IndexedKind.MEMORY, query,
                                             SearchFilters(), 10)
                vector_ms.append((time.perf_counter() - started) * 1000)
                hits.append([hit.id for hit in found])
                started = time.perf_counter()
                search.text_search(session, IndexedKind.MEMORY, question, SearchFilters(), 50)
                text_ms.append((time.perf_counter() - started) * 1000)
        figures["vector search p50 / p95 (k = 10)"] = "{:.1f} / {:.1f} ms".format(
            *percentiles(vector_ms))
        figures["full-text search p50 / p95 (k = 50)"] = "{:.1f} / {:.1f} ms".format(
            *percentiles(text_ms))
        figures["vector recall@10 vs exact search"] = f"{_agreement(real, size, queries, hits):.4f}"
        listing = [_timed(lambda: list_memories(hearth, "", MemoryFilter(), 50))
                   for _ in range(REPEATS)]
        page = list_memories(hearth, "", MemoryFilter(), 50)
        assert page.next_page is not None
        following = [_timed(lambda: more_memories(hearth, MemoryFilter(), page.next_page))
                     for _ in range(REPEATS)]
        searched = [_timed(lambda: list_memories(hearth, "knee pain physiotherapy",
                                                 MemoryFilter(), 50)) for _ in range(REPEATS)]
        figures["Memories inspector: first page + count · next page · search (median)"] = (
            f"{np.median(listing):.0f} · {np.median(following):.0f} · "
            f"{np.median(searched):.0f} ms")
    figures.update(_link_figures(home, size, real))
    figures["database size"] = f"{_database_mb(home):,.0f} MB"
    figures["ANN index size"] = _index_size(home)
    figures["full-text index size"] = _text_index_size(home)
    return figures


def _timed(action: Any) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


def _agreement(real: np.ndarray, size: int, queries: np.ndarray,
               hits: list[list[int]]) -> float:
    """recall@10 of the index's answers against an exact scan in numpy over the valid rows
    (ids are 1..size in insertion order); ties with the 10th count as hits."""
    from benchmarks.recall import SEED as RECALL_SEED

    vectors = bge_shaped(real, size)
    valid = np.random.default_rng(RECALL_SEED).random(size) >= 0.02
    scores = []
    for query, found in zip(queries, hits, strict=True):
        exact = np.where(valid, vectors @ query, -np.inf)
        tenth = np.partition(exact, -10)[-10] - 1e-6
        scores.append(sum(exact[row - 1] >= tenth for row in found) / 10)
    return float(np.mean(scores))


def _link_figures(home: Path, size: int, real: np.ndarray) -> dict[str, str]:
    """The link stage on a copy of the store, each run in a fresh process (its peak
    resident memory is the stage's: vectors, scores, SQLite's cache and the mapped index):
    the first run (a full link); then ``NIGHTS`` times, on a fresh copy of the linked store,
    a day's changes (``_a_day``) and the night after it (incremental); then the graph
    snapshot of the linked copy."""
    with tempfile.TemporaryDirectory(prefix="hearth-scale-", dir=CACHE_DIR) as folder:
        copy = Path(folder) / "home"
        shutil.copytree(home, copy, ignore=shutil.ignore_patterns("*.lock", "made.json"))
        first = _link_child(copy)
        nights = []
        for night in range(NIGHTS):
            tonight = Path(folder) / f"night-{night}"
            shutil.copytree(copy, tonight, ignore=shutil.ignore_patterns("*.lock"))
            day = _a_day(tonight, size, real)
            nights.append(_link_child(tonight))
            shutil.rmtree(tonight)
        from core.storage.sqlite.adapter import SqliteStorage
        from core.views.graph import load_graph

        storage = SqliteStorage(copy / "hearth.db")
        try:
            loads = [_timed(lambda: load_graph(storage)) for _ in range(REPEATS)]
        finally:
            storage.close()
    seconds = [night["seconds"] for night in nights]
    last = nights[-1]
    return {
        "link stage, first run (full): seconds · peak RSS":
            f"{first['seconds']:.1f} s · {first['peak_mb']:,.0f} MB",
        "link stage: edges · true neighbours found (sample of 500)":
            f"{first['edges']:,} · {first['found']:.3f}",
        "link stage, a night after a day (incremental): seconds · peak RSS":
            f"{np.median(seconds):.1f} s (median of {NIGHTS}, max {max(seconds):.1f}) · "
            f"{np.median([night['peak_mb'] for night in nights]):,.0f} MB "
            f"({last['mode']}; {day}; {last['relinked']:,} lists relinked, "
            f"{last['merged']:,} merged)",
        "link stage after the night: true neighbours found (sample of 500)":
            f"{last['found']:.3f}",
        "graph snapshot (5,000 most important, their edges), median": f"{np.median(loads):.0f} ms",
    }


def _link_child(home: Path) -> dict[str, Any]:
    result = subprocess.run([sys.executable, "-m", "benchmarks.scale", "--link", str(home)],
                            capture_output=True, text=True, check=True)
    return dict(json.loads(result.stdout.strip().splitlines()[-1]))


def _a_day(home: Path, size: int, real: np.ndarray) -> str:
    """A day of changes, the same every time: ``DAY_NEW`` new memories, ``DAY_EDITED``
    re-embedded, ``DAY_INVALIDATED`` invalidated (vectors derived as ``bge_shaped`` does,
    with a seed of the day's own); returns what it did, in words."""
    from sqlalchemy import insert, select, update

    from core.storage.orm import Memory
    from core.storage.port import IndexedKind
    from core.storage.sqlite.adapter import SqliteStorage

    new, edited, invalid = (round(size * share)
                            for share in (DAY_NEW, DAY_EDITED, DAY_INVALIDATED))
    vectors = bge_shaped(real, real.shape[0] + new + edited, seed=DAY_SEED)[real.shape[0]:]
    rng = np.random.default_rng(DAY_SEED)
    chosen = rng.choice(np.arange(1, size + 1), edited + invalid, replace=False)
    storage = SqliteStorage(home / "hearth.db")
    try:
        with storage.write() as session:
            model = session.execute(select(Memory.embedding_model).where(
                Memory.embedding_model.is_not(None)).limit(1)).scalar_one()
            ids = session.scalars(insert(Memory).returning(Memory.id,
                                                           sort_by_parameter_order=True),
                                  [{"content": f"a new memory of the day, {i}"}
                                   for i in range(new)]).all()
            search = storage.search
            search.store_embeddings(session, IndexedKind.MEMORY, ids, vectors[:new], model)
            search.store_embeddings(session, IndexedKind.MEMORY, chosen[:edited].tolist(),
                                    vectors[new:], model)
            session.execute(update(Memory).where(Memory.id.in_(chosen[edited:].tolist()))
                            .values(is_valid=False, invalid_reason="a day of the benchmark"))
    finally:
        storage.close()
    return f"a day = {new:,} new, {edited:,} edited, {invalid:,} invalidated"


def _run_link(home: Path) -> None:
    """The child process of ``_link_child``: one run of the stage, one JSON line."""
    from benchmarks.dream import _neighbour_recall
    from core.config import Settings
    from core.consolidation.link import run_link
    from core.storage.sqlite.adapter import SqliteStorage

    settings = Settings()
    storage = SqliteStorage(home / "hearth.db")
    try:
        started = time.perf_counter()
        counts = run_link(storage, settings)
        seconds = time.perf_counter() - started
        peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        found = _neighbour_recall(storage, settings)
    finally:
        storage.close()
    print(json.dumps({"seconds": seconds, "peak_mb": peak_mb, "edges": counts["edges"],
                      "mode": counts["mode"], "relinked": counts.get("relinked", 0),
                      "merged": counts.get("merged", 0), "found": found}))


def _database_mb(home: Path) -> float:
    from sqlalchemy import text

    from core.storage.sqlite.adapter import SqliteStorage

    storage = SqliteStorage(home / "hearth.db")
    try:
        with storage.engine.connect() as connection:
            connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    finally:
        storage.close()
    return (home / "hearth.db").stat().st_size / 1e6


def _index_size(home: Path) -> str:
    from core.storage.sqlite.ann import index_folder

    files = list(index_folder(home / "hearth.db").glob("*.usearch"))
    if not files:
        return "none (scanned)"
    return f"{sum(file.stat().st_size for file in files) / 1e6:,.0f} MB"


def _text_index_size(home: Path) -> str:
    from core.storage.sqlite.text_index import index_folder

    files = [path for path in index_folder(home / "hearth.db").rglob("*") if path.is_file()]
    if not files:
        return "none (FTS5)"
    return f"{sum(file.stat().st_size for file in files) / 1e6:,.1f} MB"


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--link":
        _run_link(Path(sys.argv[2]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "--recall":
        sizes = tuple(int(size) for size in sys.argv[2].split(",")) if len(sys.argv) > 2 \
            else SIZES[1:]
        for row in bench_recall(sizes):
            print(f"{row['benchmark']}: {row['value']}")
    else:
        for row in bench_scale():
            print(f"{row['benchmark']}: {row['value']}  [{row['target']}]")
