"""Top-k full text on PostgreSQL at 100k and 1M memories: Hearth's BM25 statement against
``ts_rank`` (issue 30: "the same question for tsvector + ts_rank at 1M").

``python -m benchmarks.postgres_fulltext [--sizes 100000,1000000] [--questions N]`` starts
a PostgreSQL server on loopback with the helper the tests use (``tests/support/postgres.py``),
makes Hearth's schema in a new database, loads the generated memories
(``benchmarks.recall.memory_texts``: the texts ``benchmarks.fulltext_engines`` indexes) by
executemany with the full-text GIN index dropped and built again after (the stored
``fulltext`` tsvector column is computed as rows go in), then asks the generated questions:

- ``hearth BM25``: ``SearchIndex.text_search`` as recall calls it (each word through
  ``plainto_tsquery`` ORed; BM25 computed in SQL from every matched row's tsvector);
- ``ts_rank``: PostgreSQL's own ranking over the same GIN match (``ORDER BY
  ts_rank(fulltext, query) DESC LIMIT k``): it also reads every matched row, but only once.

Medians and p95 of the statement's wall time after a warm-up, k = 50, one connection; the
load time and the GIN index's size. Both score every match: neither prunes to the top k.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from sqlalchemy import insert, text

from benchmarks.recall import memory_texts, query_texts
from benchmarks.stats import percentiles
from core.storage.orm import Memory, utcnow
from core.storage.port import IndexedKind, SearchFilters
from core.storage.postgres.adapter import PostgresStorage
from core.storage.postgres.search import TEXT_SEARCH_CONFIG
from core.storage.query_words import query_words

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from support.postgres import PostgresServer, ServerUnavailable

SIZES = (100_000, 1_000_000)
QUESTIONS, WARM_UP, K = 100, 10, 50
LOAD_BATCH = 10_000
GIN_INDEX = "ix_memories_fulltext"


def load(storage: PostgresStorage, texts: Sequence[str]) -> tuple[float, str]:
    """The texts as valid memories, the GIN index built after; seconds and index size."""
    now = utcnow()
    started = time.perf_counter()
    with storage.write() as session:
        connection = session.connection()
        definition = connection.execute(text(
            "SELECT indexdef FROM pg_indexes WHERE indexname = :name"),
            {"name": GIN_INDEX}).scalar_one()
        connection.execute(text(f"DROP INDEX {GIN_INDEX}"))
        for start in range(0, len(texts), LOAD_BATCH):
            session.execute(insert(Memory), [
                {"content": content, "created_at": now, "updated_at": now,
                 "embedding_model": "none"} for content in texts[start:start + LOAD_BATCH]])
        connection.execute(text("SET LOCAL maintenance_work_mem = '512MB'"))
        connection.execute(text(definition))
    with storage.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as plain:
        plain.execute(text("ANALYZE memories"))
        size = plain.execute(text(
            f"SELECT pg_size_pretty(pg_relation_size('{GIN_INDEX}'))")).scalar_one()
    return time.perf_counter() - started, str(size)


def timed_questions(storage: PostgresStorage, questions: Sequence[str]) -> dict[str, list[float]]:
    """Milliseconds per question for each way of ranking, the ways taking turns."""
    times: dict[str, list[float]] = {"hearth BM25": [], "ts_rank": []}
    with storage.read() as session:
        for number, question in enumerate(questions):
            words = query_words(question)
            if not words:
                continue
            tsquery = " || ".join(f"plainto_tsquery('{TEXT_SEARCH_CONFIG}', :w{index})"
                                  for index in range(len(words)))
            params = {f"w{index}": word for index, word in enumerate(words)}
            started = time.perf_counter()
            storage.search.text_search(session, IndexedKind.MEMORY, question,
                                       SearchFilters(), K)
            hearth = (time.perf_counter() - started) * 1000
            started = time.perf_counter()
            session.execute(text(
                f"SELECT id, ts_rank(fulltext, query.q) AS score FROM memories, "
                f"(SELECT {tsquery} AS q) AS query WHERE fulltext @@ query.q "
                f"ORDER BY score DESC, id LIMIT {K}"), params).all()
            ranked = (time.perf_counter() - started) * 1000
            if number >= WARM_UP:
                times["hearth BM25"].append(hearth)
                times["ts_rank"].append(ranked)
    return times


def run(sizes: Sequence[int], question_count: int) -> list[str]:
    """Markdown rows, one per way of ranking and size."""
    server = PostgresServer.start()
    questions = query_texts(question_count + WARM_UP)
    rows = ["| ranking | size | k 50 p50 / p95 | load (GIN built after) | GIN index |",
            "|---|---|---|---|---|"]
    try:
        for size in sizes:
            name = server.create_database()
            storage = PostgresStorage(server.url(name))
            try:
                seconds, gin = load(storage, memory_texts(size))
                for ranking, values in timed_questions(storage, questions).items():
                    p50, p95 = percentiles(values)
                    rows.append(f"| {ranking} | {size:,} | {p50:.1f} / {p95:.1f} ms | "
                                f"{seconds:.0f} s | {gin} |")
                    print(rows[-1], flush=True)
            finally:
                storage.close()
                server.drop_database(name)
    finally:
        server.stop()
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--questions", type=int, default=QUESTIONS)
    args = parser.parse_args(argv)
    try:
        rows = run([int(size) for size in args.sizes.split(",")], args.questions)
    except ServerUnavailable as why:
        print(f"skipped: no PostgreSQL could start ({why})")
        return
    print("\n".join(rows))


if __name__ == "__main__":
    main()
