"""The cost of encryption at rest (``docs/encryption.md``): the same 10k-memory store, plain
and encrypted, compared on recall and on inserting memories, printed as ratios.

Both folders are copies of the scale suite's cached 10k store (``benchmarks/scale.py``;
the cache itself is never changed); the encrypted one is converted by ``hearth encrypt``'s
own code, whose time is a figure too. Recall queries alternate between the two folders, so
the noise of a shared machine falls on both alike. Inserting writes ``INSERT_ROWS`` of the
store's memories with their vectors into a new empty folder of each kind, alternating.

The ANN index of an encrypted folder is sealed (``core/storage/sqlite/ann_seal.py``) and
decrypted into memory where a plain folder's is mapped: ``bench_index_sealing`` writes one
``INDEX_SIZE``-vector index both ways and times loading it (alternating, the page cache
warm for both) and shortlist searches on each loaded graph. Its vectors are generated
(unit vectors with a decaying spread per axis, seeded), not the cached real ones: the
load's cost depends on the file's size, and the search compares one graph with itself.
"""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.stats import percentiles

SIZE = 10_000
INSERT_ROWS = 5_000
INSERT_REPEATS = 3
INDEX_SIZE = 100_000
INDEX_LOADS = 9
INDEX_QUERIES = 200
SHORTLIST = 100
"""Inserts alternate plain, encrypted, plain, …; the median rate of each counts."""
PASSPHRASE = "benchmark passphrase"


def bench_encryption() -> list[dict[str, str]]:
    from benchmarks.recall import cached_document_vectors, memory_texts, query_texts
    from benchmarks.scale import QUERY_COUNT, REAL, WARM_UP, _cached_store
    from core.config import Settings
    from core.embedding import OnnxEmbedder

    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    real = cached_document_vectors(memory_texts(REAL), embedder)
    questions = query_texts(QUERY_COUNT)
    cached, _ = _cached_store(SIZE, real, embedder.model_id)
    with tempfile.TemporaryDirectory(prefix="hearth-bench-encryption-") as scratch:
        plain, encrypted = Path(scratch) / "plain", Path(scratch) / "encrypted"
        for home in (plain, encrypted):
            home.mkdir()
            shutil.copy2(cached / "hearth.db", home / "hearth.db")
        converted = _encrypt(encrypted, settings)
        recall = _recall(plain, encrypted, questions, settings, embedder, WARM_UP)
        rates: dict[str, list[float]] = {"plain": [], "encrypted": []}
        for repeat in range(INSERT_REPEATS):
            for name, samples in rates.items():
                samples.append(_insert_rate(Path(scratch) / f"insert-{name}-{repeat}",
                                            name == "encrypted", real, embedder.model_id,
                                            settings))
        inserts = {name: float(np.median(samples)) for name, samples in rates.items()}
    rows = [{"benchmark": f"hearth encrypt ({SIZE // 1000}k memories, one database file)",
             "value": f"{converted:.1f} s"}]
    for label, (plain_ms, encrypted_ms) in recall.items():
        (p50, p95), (e50, e95) = percentiles(plain_ms), percentiles(encrypted_ms)
        rows.append({"benchmark": f"{label} p50 / p95, plain → encrypted",
                     "value": f"{p50:.1f} / {p95:.1f} ms → {e50:.1f} / {e95:.1f} ms "
                              f"(×{e50 / p50:.2f} / ×{e95 / p95:.2f})"})
    rows += bench_index_sealing()
    rows.append({"benchmark": f"insert {INSERT_ROWS:,} memories with vectors (median of "
                              f"{INSERT_REPEATS}), plain → encrypted",
                 "value": f"{inserts['plain']:,.0f} → {inserts['encrypted']:,.0f} rows/s "
                          f"(×{inserts['encrypted'] / inserts['plain']:.2f})"})
    return rows


def bench_index_sealing(size: int = INDEX_SIZE) -> list[dict[str, str]]:
    """Loading and searching a ``size``-vector ANN index, plain (mapped) and sealed
    (decrypted into memory)."""
    from core.storage.sqlite import ann
    from core.storage.sqlite.ann_seal import subkey

    rng = np.random.default_rng(11)
    dimensions = 384
    spread = (1.0 / np.sqrt(1.0 + np.arange(dimensions))).astype(np.float32)
    vectors = rng.standard_normal((size, dimensions)).astype(np.float32) * spread
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[rng.choice(size, INDEX_QUERIES, replace=False)]
    queries = queries + 0.05 * rng.standard_normal(queries.shape).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    key = subkey("ab" * 32)
    graph = ann.new_graph(dimensions)
    started = time.perf_counter()
    graph.add(np.arange(size), vectors, threads=0)
    built = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="hearth-bench-ann-seal-") as scratch:
        files = {"plain": (Path(scratch) / "plain.usearch", None),
                 "sealed": (Path(scratch) / "sealed.usearch", key)}
        sealing: list[float] = []
        for path, file_key in files.values():
            started = time.perf_counter()
            ann.write_graph(graph, path, file_key)
            if file_key is not None:
                sealing.append(time.perf_counter() - started)
        del graph
        loads: dict[str, list[float]] = {"plain": [], "sealed": []}
        for _ in range(INDEX_LOADS):
            for name, (path, file_key) in files.items():
                started = time.perf_counter()
                ann.load_graph(path, file_key, view=True)
                loads[name].append(_since(started))
        graphs = {name: ann.load_graph(path, file_key, view=True)
                  for name, (path, file_key) in files.items()}
        searches: dict[str, list[float]] = {"plain": [], "sealed": []}
        same = 0
        for query in queries:
            found = {}
            for name, loaded in graphs.items():
                started = time.perf_counter()
                found[name] = loaded.search(query, SHORTLIST, threads=1).keys
                searches[name].append(_since(started))
            same += int(np.array_equal(found["plain"], found["sealed"]))
        sizes = {name: path.stat().st_size for name, (path, _k) in files.items()}
    (l50, l95), (s50, s95) = percentiles(loads["plain"]), percentiles(loads["sealed"])
    (q50, q95), (e50, e95) = percentiles(searches["plain"]), percentiles(searches["sealed"])
    label = f"{size // 1000}k-vector ANN index"
    return [
        {"benchmark": f"{label}: file size plain → sealed (built in {built:.0f} s)",
         "value": f"{sizes['plain'] / 2**20:.1f} → {sizes['sealed'] / 2**20:.1f} MiB, "
                  f"sealing it {sealing[0] * 1000:.0f} ms"},
        {"benchmark": f"{label}: first load p50 / p95 (over {INDEX_LOADS} loads), "
                      "mapped → decrypted into memory",
         "value": f"{l50:.1f} / {l95:.1f} ms → {s50:.1f} / {s95:.1f} ms "
                  f"(×{s50 / l50:.0f} / ×{s95 / l95:.0f})"},
        {"benchmark": f"{label}: shortlist search (k = {SHORTLIST}) p50 / p95, "
                      "plain → sealed",
         "value": f"{q50:.2f} / {q95:.2f} ms → {e50:.2f} / {e95:.2f} ms "
                  f"(×{e50 / q50:.2f} / ×{e95 / q95:.2f}); same results for "
                  f"{same}/{len(queries)} queries"},
    ]


def _encrypt(home: Path, settings: Any) -> float:
    from core.home.paths import HearthPaths
    from core.storage.folder_cipher import encrypt_folder

    started = time.perf_counter()
    encrypt_folder(settings, HearthPaths(home), passphrase=PASSPHRASE)
    return time.perf_counter() - started


def _recall(plain: Path, encrypted: Path, questions: Sequence[str], settings: Any,
            embedder: Any, warm_up: int) -> dict[str, tuple[list[float], list[float]]]:
    """Per figure, the plain and the encrypted timings (ms), queries alternating."""
    from core.app import Hearth
    from core.recall import RecallQuery
    from core.storage.port import IndexedKind, SearchFilters

    figures: dict[str, tuple[list[float], list[float]]] = {
        "recall (query embedding included)": ([], []),
        "full-text search (k = 50)": ([], []),
        "vector search (k = 10)": ([], []),
    }
    with Hearth.open(plain, settings=settings, embedder=embedder) as first, \
            Hearth.open(encrypted, settings=settings, embedder=embedder) as second:
        for hearth in (first, second):
            for question in questions[:warm_up]:
                hearth.recall.recall(RecallQuery(question))
        for question in questions:
            vector = embedder.embed_query(question)
            for side, hearth in enumerate((first, second)):
                search = hearth.storage.search
                started = time.perf_counter()
                hearth.recall.recall(RecallQuery(question))
                figures["recall (query embedding included)"][side].append(_since(started))
                with hearth.storage.read() as session:
                    started = time.perf_counter()
                    search.text_search(session, IndexedKind.MEMORY, question,
                                       SearchFilters(), 50)
                    figures["full-text search (k = 50)"][side].append(_since(started))
                    started = time.perf_counter()
                    search.vector_search(session, IndexedKind.MEMORY, vector,
                                         SearchFilters(), 10)
                    figures["vector search (k = 10)"][side].append(_since(started))
    return figures


def _insert_rate(home: Path, encrypted: bool, real: np.ndarray, model_id: str,
                 settings: Any) -> float:
    """Rows per second inserting ``INSERT_ROWS`` memories into a new folder."""
    from benchmarks.recall import SEED, Corpus, _fill, memory_texts
    from benchmarks.scale import bge_shaped
    from core.home import encryption
    from core.storage.sqlite.adapter import SqliteStorage

    home.mkdir()
    if encrypted:
        marker = encryption.Marker.new("passphrase")
        encryption.write_marker(home, marker)
        encryption.remember(home, encryption.derive_key(PASSPHRASE, marker))
    corpus = Corpus(memory_texts(INSERT_ROWS), bge_shaped(real, INSERT_ROWS),
                    np.random.default_rng(SEED).random(INSERT_ROWS) >= 0.02)
    storage = SqliteStorage(home / "hearth.db", settings.busy_timeout_ms)
    try:
        seconds = _fill(storage, corpus, INSERT_ROWS, model_id)
    finally:
        storage.close()
    return INSERT_ROWS / seconds


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
