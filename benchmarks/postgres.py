"""Recall and turn assembly on PostgreSQL beside SQLite, at 10k and 100k memories.

The same generated memories, vectors and queries as ``benchmarks.recall`` (the corpus of
the largest size; each size takes its first rows) and the same turn as
``benchmarks.conversation`` (1,000 facts, the profile, a 20-exchange history), measured on
a SQLite file and on a PostgreSQL database of a server this benchmark starts on loopback
with the helper the tests use (``tests/support/postgres.py``: the ``pgserver`` wheel's
PostgreSQL 16 with pgvector, or Debian's). Without one, the suite prints why and skips.

Loading: SQLite through ``recall._fill`` as its own benchmark does. PostgreSQL through its
ordinary write path takes ~51 s per 10k rows (each vector inserted into the HNSW graph, the
GIN index updated row by row), so it is bulk-loaded instead: the memories by executemany in
batches of 10,000, their vectors by ``COPY``, with the tables' secondary indexes (HNSW,
GIN, B-trees) dropped first and created again after, then ``ANALYZE``. The seconds it took
are a row of the table. The server lives in a temporary folder, so nothing is cached
between runs (the vectors are: ``benchmarks/.cache``).

Each row gives p50 / p95 for both backends and PostgreSQL's as a multiple of SQLite's.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import insert, text

from benchmarks.conversation import FACTS, assembly_times, seed_conversation
from benchmarks.recall import (
    QUERIES,
    SEED,
    WARM_UP,
    Corpus,
    _fill,
    cached_document_vectors,
    memory_texts,
    query_texts,
)
from benchmarks.stats import percentiles
from core.config import Settings
from core.embedding import Embedder, OnnxEmbedder
from core.recall import RecallQuery, RecallService
from core.storage.orm import Memory, utcnow
from core.storage.port import StoragePort
from core.storage.postgres.adapter import PostgresStorage
from core.storage.postgres.search import vector_literal
from core.storage.sqlite.adapter import SqliteStorage

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.postgres import PostgresServer, ServerUnavailable

CORPUS = 100_000
"""Memories generated (and their vectors cached) whatever the sizes: a quick run at 10k
reuses the cached vectors of the 100k corpus instead of embedding 10k texts again."""
LOAD_BATCH = 10_000
BULK_TABLES = ("memories", "memories_vec")
"""The tables a bulk load fills, whose secondary indexes are dropped and rebuilt."""


def bench_postgres(sizes: Sequence[int] = (10_000, 100_000)) -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}``: recall and turn assembly per size on
    both backends, and how long PostgreSQL took to load."""
    try:
        server = PostgresServer.start()
    except ServerUnavailable as why:
        return [_row("PostgreSQL beside SQLite", f"skipped: no PostgreSQL could start ({why})")]
    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    texts = memory_texts(max(CORPUS, *sizes))
    corpus = Corpus(texts, cached_document_vectors(texts, embedder),
                    np.random.default_rng(SEED).random(len(texts)) >= 0.02)
    rows: list[dict[str, str]] = []
    try:
        with tempfile.TemporaryDirectory(prefix="hearth-bench-pg-") as folder:
            for size in sizes:
                label = f"@{size // 1000}k"
                sqlite = SqliteStorage(Path(folder) / f"pg-beside-{size}.db")
                name = server.create_database()
                postgres = PostgresStorage(server.url(name))
                try:
                    _fill(sqlite, corpus, size, embedder.model_id)
                    seconds = bulk_fill(postgres, corpus, size, embedder.model_id)
                    rows.append(_row(f"PostgreSQL bulk load {label} (executemany + COPY, "
                                     "indexes rebuilt)", f"{seconds:.0f} s"))
                    measured = {kind: _measure(kind, embedder, settings)
                                for kind in (sqlite, postgres)}
                    for index, what in enumerate(("recall k=10",
                                                  f"turn assembly ({FACTS:,} facts)")):
                        rows.append(_compare(f"{what} p50 / p95 {label}",
                                             measured[sqlite][index],
                                             measured[postgres][index]))
                finally:
                    sqlite.close()
                    postgres.close()
                    server.drop_database(name)
    finally:
        server.stop()
    return rows


def _measure(storage: StoragePort, embedder: Embedder,
             settings: Settings) -> tuple[list[float], list[float]]:
    """Milliseconds per recall and per assembled turn on ``storage``."""
    recall = _recall_times(storage, embedder, settings)
    seed_conversation(storage)
    turns, _ = assembly_times(storage, embedder, settings, "bench")  # type: ignore[arg-type]
    return recall, turns


def _recall_times(storage: StoragePort, embedder: Embedder, settings: Settings) -> list[float]:
    service = RecallService(storage, embedder, settings)
    questions = query_texts(QUERIES)
    for question in questions[:WARM_UP]:
        service.recall(RecallQuery(question))
    times = []
    for question in questions:
        started = time.perf_counter()
        service.recall(RecallQuery(question))
        times.append((time.perf_counter() - started) * 1000)
    return times


def bulk_fill(storage: PostgresStorage, corpus: Corpus, size: int, model_id: str) -> float:
    """The first ``size`` memories with their vectors, loaded in bulk with the indexes
    rebuilt after; the same rows as ``recall._fill`` writes. Returns the seconds taken."""
    rng = random.Random(SEED)
    now = utcnow()
    storage.search.ensure_dimensions(corpus.vectors.shape[1])
    started = time.perf_counter()
    with storage.write() as session:
        connection = session.connection()
        definitions = connection.execute(text(
            "SELECT i.indexname, i.indexdef FROM pg_indexes i JOIN pg_class c ON "
            "c.relname = i.indexname JOIN pg_index x ON x.indexrelid = c.oid "
            "WHERE i.tablename = ANY(:tables) AND NOT x.indisprimary AND NOT x.indisunique"),
            {"tables": list(BULK_TABLES)}).all()
        for index_name, _definition in definitions:
            connection.execute(text(f'DROP INDEX "{index_name}"'))
        for start in range(0, size, LOAD_BATCH):
            stop = min(size, start + LOAD_BATCH)
            values = [{
                "content": corpus.texts[i],
                "created_at": now - timedelta(days=rng.uniform(0, 730)),
                "updated_at": now, "strength": rng.uniform(0.2, 1.0),
                "is_valid": bool(corpus.valid[i]),
                "namespace": rng.choice(["user", "user/health", "user/work", "user/family"]),
                "category": rng.choice(["general", "health", "work", "people", "errands"]),
                "memory_type": rng.choice(["semantic", "semantic", "episodic", "procedural"]),
                "embedding_model": model_id,
            } for i in range(start, stop)]
            ids = session.scalars(insert(Memory).returning(Memory.id,
                                                           sort_by_parameter_order=True),
                                  values).all()
            _copy_vectors(connection, ids, corpus.vectors[start:stop])
        connection.execute(text("SET LOCAL maintenance_work_mem = '512MB'"))
        for _index_name, definition in definitions:
            connection.execute(text(definition))
    with storage.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as plain:
        for table in BULK_TABLES:
            plain.execute(text(f"ANALYZE {table}"))
    return time.perf_counter() - started


def _copy_vectors(connection: object, ids: Sequence[int], vectors: np.ndarray) -> None:
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[attr-defined]
    with cursor.copy("COPY memories_vec (id, embedding) FROM STDIN") as copy:
        for row_id, vector in zip(ids, vectors, strict=True):
            copy.write_row((row_id, vector_literal(vector)))


def _compare(benchmark: str, sqlite: list[float], postgres: list[float]) -> dict[str, str]:
    (s50, s95), (p50, p95) = percentiles(sqlite), percentiles(postgres)
    return _row(benchmark,
                f"SQLite {s50:.1f} / {s95:.1f} ms · PostgreSQL {p50:.1f} / {p95:.1f} ms",
                f"PostgreSQL ×{p50 / s50:.1f} / ×{p95 / s95:.1f}")


def _row(benchmark: str, value: str, target: str = "") -> dict[str, str]:
    return {"benchmark": benchmark, "value": value, "target": target}

