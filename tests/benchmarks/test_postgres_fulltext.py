"""The PostgreSQL full-text benchmark (``benchmarks/postgres_fulltext.py``) on a tiny corpus:
its load keeps the GIN index (dropped for the load, built again after) and both ways of
ranking answer every question, Hearth's own putting first the one row a question singles out."""

from __future__ import annotations

from sqlalchemy import text

from benchmarks import postgres_fulltext as bench
from benchmarks.recall import memory_texts, query_texts
from core.storage.port import IndexedKind, SearchFilters
from core.storage.postgres.adapter import PostgresStorage

BEEKEEPING = "Uma's beekeeping hives stand behind the Reykjavik library."


def test_the_load_keeps_the_index_and_both_rankings_answer(postgres_server) -> None:
    name = postgres_server.create_database()
    storage = PostgresStorage(postgres_server.url(name))
    try:
        _seconds, size = bench.load(storage, [*memory_texts(200), BEEKEEPING])
        assert size
        with storage.read() as session:
            assert session.execute(text("SELECT count(*) FROM pg_indexes WHERE indexname = "
                                        ":name"), {"name": bench.GIN_INDEX}).scalar_one() == 1
            [first, *_] = storage.search.text_search(
                session, IndexedKind.MEMORY, "beekeeping in Reykjavik", SearchFilters(), 5)
            assert session.execute(text("SELECT content FROM memories WHERE id = :id"),
                                   {"id": first.id}).scalar_one() == BEEKEEPING
        times = bench.timed_questions(storage, query_texts(bench.WARM_UP + 3))
        assert {key: len(values) for key, values in times.items()} == {
            "hearth BM25": 3, "ts_rank": 3}
        assert all(value > 0 for values in times.values() for value in values)
    finally:
        storage.close()
        postgres_server.drop_database(name)
