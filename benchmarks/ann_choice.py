"""Which approximate-nearest-neighbour library: usearch against faiss's HNSW, measured.

``python -m benchmarks.ann_choice [--sizes 100000 1000000]`` builds each candidate index
over the bge-shaped vectors of ``benchmarks.scale`` on this machine's cores and prints,
per size and candidate: build time, single-query latency p50/p95 for a shortlist of
``SHORTLIST``, recall@10 of the raw index and after exact rescoring of the shortlist (what
Hearth does), resident size, file size, save / load / memory-map times, and the cost of
adding and removing 1,000 vectors. faiss-cpu is not a dependency of Hearth; install it to
rerun this (``pip install faiss-cpu``). The figures and the choice are in
``docs/benchmarks.md`` ("Choosing the vector index").
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.recall import QUERIES, cached_document_vectors, memory_texts, query_texts
from benchmarks.scale import REAL, bge_shaped
from benchmarks.stats import percentiles
from core import native_libraries

SHORTLIST = 100
K = 10
CHURN = 1_000


@dataclass
class Candidate:
    name: str
    build: Callable[[np.ndarray, np.ndarray], Any]
    search: Callable[[Any, np.ndarray, int], np.ndarray]
    save: Callable[[Any, Path], None]
    load: Callable[[Path], Any]
    view: Callable[[Path], Any] | None
    add: Callable[[Any, np.ndarray, np.ndarray], None]
    remove: Callable[[Any, np.ndarray], None] | None
    resident: Callable[[Any], int]


def _usearch(dtype: str, connectivity: int = 16, expansion_add: int = 128) -> Candidate:
    index_type = native_libraries.usearch_index().Index

    def build(keys: np.ndarray, vectors: np.ndarray) -> Any:
        index = index_type(ndim=vectors.shape[1], metric="cos", dtype=dtype,
                           connectivity=connectivity, expansion_add=expansion_add,
                           expansion_search=128)
        index.add(keys, vectors, threads=os.cpu_count() or 1)
        return index

    def search(index: Any, query: np.ndarray, count: int) -> np.ndarray:
        return np.asarray(index.search(query, count, threads=1).keys)

    def view(path: Path) -> Any:
        return index_type.restore(str(path), view=True)

    return Candidate(f"usearch {dtype} M={connectivity} ef_add={expansion_add}", build, search,
                     lambda index, path: index.save(str(path)),
                     lambda path: index_type.restore(str(path)), view,
                     lambda index, keys, vectors: index.add(keys, vectors, threads=1),
                     lambda index, keys: index.remove(keys),
                     lambda index: int(index.memory_usage))


def _faiss(kind: str, m: int = 32) -> Candidate:
    import faiss

    def build(keys: np.ndarray, vectors: np.ndarray) -> Any:
        faiss.omp_set_num_threads(os.cpu_count() or 1)
        inner = (faiss.IndexHNSWFlat(vectors.shape[1], m, faiss.METRIC_INNER_PRODUCT)
                 if kind == "flat" else
                 faiss.IndexHNSWSQ(vectors.shape[1], faiss.ScalarQuantizer.QT_8bit, m,
                                   faiss.METRIC_INNER_PRODUCT))
        inner.hnsw.efConstruction = 128
        if kind != "flat":
            inner.train(vectors[:50_000])
        index = faiss.IndexIDMap(inner)
        index.add_with_ids(vectors, keys)
        faiss.downcast_index(index.index).hnsw.efSearch = 128
        return index

    def search(index: Any, query: np.ndarray, count: int) -> np.ndarray:
        faiss.omp_set_num_threads(1)
        return index.search(query[None, :], count)[1][0]

    def load(path: Path) -> Any:
        index = faiss.read_index(str(path))
        faiss.downcast_index(index.index).hnsw.efSearch = 128
        return index

    def view(path: Path) -> Any:
        index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP | faiss.IO_FLAG_READ_ONLY)
        faiss.downcast_index(index.index).hnsw.efSearch = 128
        return index

    def resident(index: Any) -> int:
        return int(faiss.serialize_index(index).size)

    return Candidate(f"faiss HNSW{'Flat' if kind == 'flat' else 'SQ8'} M={m}", build, search,
                     lambda index, path: faiss.write_index(index, str(path)), load, view,
                     lambda index, keys, vectors: index.add_with_ids(vectors, keys),
                     None, resident)


def _exact_top(vectors: np.ndarray, queries: np.ndarray) -> np.ndarray:
    """The 10th best exact score per query (ties count as hits)."""
    scores = queries @ vectors.T
    return np.partition(scores, -K, axis=1)[:, -K] - 1e-6


def _measure(candidate: Candidate, vectors: np.ndarray, queries: np.ndarray,
             tenth: np.ndarray, folder: Path) -> dict[str, str]:
    keys = np.arange(vectors.shape[0], dtype=np.int64)
    started = time.perf_counter()
    index = candidate.build(keys, vectors)
    build = time.perf_counter() - started
    latencies, raw, rescored = [], [], []
    for row, query in enumerate(queries):
        begun = time.perf_counter()
        found = candidate.search(index, query, SHORTLIST)
        latencies.append((time.perf_counter() - begun) * 1000)
        found = found[found >= 0]
        scores = vectors[found] @ query
        raw.append(np.sum(scores[:K] >= tenth[row]) / K)
        rescored.append(np.sum(np.sort(scores)[::-1][:K] >= tenth[row]) / K)
    p50, p95 = percentiles(latencies)
    path = folder / "index.bin"
    begun = time.perf_counter()
    candidate.save(index, path)
    save = time.perf_counter() - begun
    begun = time.perf_counter()
    loaded = candidate.load(path)
    load = time.perf_counter() - begun
    if candidate.view is not None:
        begun = time.perf_counter()
        viewed = candidate.view(path)
        view = f"{(time.perf_counter() - begun) * 1000:.0f} ms"
        candidate.search(viewed, queries[0], SHORTLIST)
        del viewed
    else:
        view = "n/a"
    rng = np.random.default_rng(1)
    fresh = vectors[rng.integers(0, vectors.shape[0], CHURN)]
    begun = time.perf_counter()
    candidate.add(loaded, np.arange(vectors.shape[0], vectors.shape[0] + CHURN), fresh)
    add = (time.perf_counter() - begun) * 1000 / CHURN
    if candidate.remove is not None:
        begun = time.perf_counter()
        candidate.remove(loaded, keys[:CHURN])
        remove = f"{(time.perf_counter() - begun) * 1000 / CHURN:.3f} ms each"
    else:
        remove = "not supported (rebuild)"
    size = path.stat().st_size
    path.unlink()
    return {"candidate": candidate.name, "build": f"{build:.1f} s",
            "query p50/p95": f"{p50:.2f} / {p95:.2f} ms",
            "recall@10 raw": f"{np.mean(raw):.4f}",
            f"recall@10 rescored ({SHORTLIST})": f"{np.mean(rescored):.4f}",
            "resident": f"{candidate.resident(index) / 1e6:.0f} MB",
            "file": f"{size / 1e6:.0f} MB", "save": f"{save:.2f} s", "load": f"{load:.2f} s",
            "view": view, "add": f"{add:.3f} ms each", "remove": remove}


def main() -> None:
    from core.config import Settings
    from core.embedding import OnnxEmbedder

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--only", action="append", help="candidates whose name contains this")
    args = parser.parse_args()
    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    real = cached_document_vectors(memory_texts(REAL), embedder)
    queries = np.stack([embedder.embed_query(text) for text in query_texts(QUERIES)])
    candidates = [_usearch("i8"), _usearch("i8", expansion_add=64), _usearch("f16"),
                  _faiss("sq8"), _faiss("flat")]
    if args.only:
        candidates = [c for c in candidates if any(o in c.name for o in args.only)]
    for size in args.sizes:
        vectors = bge_shaped(real, size)
        tenth = _exact_top(vectors, queries)
        for candidate in candidates:
            with tempfile.TemporaryDirectory(prefix="hearth-ann-") as folder:
                row = _measure(candidate, vectors, queries, tenth, Path(folder))
            print(f"{size:>9,} " + " | ".join(f"{key} {value}" for key, value in row.items()),
                  flush=True)


if __name__ == "__main__":
    main()
