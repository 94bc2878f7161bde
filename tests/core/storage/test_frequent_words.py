"""Full-text search with frequent words: bounded at scale, unchanged below the threshold.

Real SQLite and FTS5; the threshold (``FREQUENT_ROWS``, 20,000 rows in use) is lowered so
a few dozen rows show what a million-row database does.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from sqlalchemy import text

from core.storage.orm import Memory
from core.storage.port import IndexedKind, IndexHit, SearchFilters
from core.storage.search_terms import term
from core.storage.sqlite import search as sqlite_search
from core.storage.sqlite.adapter import SqliteStorage

pytestmark = pytest.mark.sqlite_only("the bound on frequent words is the SQLite FTS5 index's own")

MEMORY = IndexedKind.MEMORY


def add(storage: SqliteStorage, contents: Sequence[str]) -> list[int]:
    with storage.write() as session:
        rows = [Memory(content=content) for content in contents]
        session.add_all(rows)
        session.flush()
        return [row.id for row in rows]


def found(storage: SqliteStorage, query: str, limit: int) -> list[IndexHit]:
    with storage.read() as session:
        return storage.search.text_search(session, MEMORY, query, SearchFilters(), limit)


@pytest.fixture
def coffee(storage: SqliteStorage) -> list[int]:
    """40 rows with "coffee" (frequent once the threshold is 10), 6 with "tea" (rare),
    half of those with coffee too; texts of varied length so BM25 scores differ."""
    filler = "and then some more words about the day"
    contents = [f"coffee number {index} {filler * (index % 4)}" for index in range(40)]
    contents += [f"tea {'coffee ' if index % 2 else ''}pot {index} {filler * (index % 3)}"
                 for index in range(6)]
    return add(storage, contents)


def test_rare_and_frequent_word_give_the_unbounded_top_hits(
        storage: SqliteStorage, coffee: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    unbounded = found(storage, "tea coffee", 6)
    monkeypatch.setattr(sqlite_search, "FREQUENT_ROWS", 10)
    monkeypatch.setattr(sqlite_search, "NEWEST_FREQUENT", 5)
    with storage.read() as session:
        assert sqlite_search._frequent_terms(
            session, sqlite_search.KINDS[MEMORY], ["tea", term("coffee")]) == {term("coffee")}
    bounded = found(storage, "tea coffee", 6)
    assert [hit.id for hit in bounded] == [hit.id for hit in unbounded]
    assert [hit.score for hit in bounded] == pytest.approx([hit.score for hit in unbounded])
    assert {hit.id for hit in bounded} == set(coffee[40:])  # every tea row, best first


def test_a_query_of_only_frequent_words_still_answers_from_the_newest_matches(
        storage: SqliteStorage, coffee: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    unbounded = found(storage, "coffee", 20)
    assert len(unbounded) == 20
    monkeypatch.setattr(sqlite_search, "FREQUENT_ROWS", 10)
    monkeypatch.setattr(sqlite_search, "NEWEST_FREQUENT", 8)
    bounded = found(storage, "coffee", 20)
    newest_coffee = [row for index, row in enumerate(coffee) if index < 40 or index % 2][-8:]
    assert sorted(hit.id for hit in bounded) == sorted(newest_coffee)
    scores = {hit.id: hit.score for hit in found_all(storage, "coffee")}
    assert [hit.score for hit in bounded] == pytest.approx([scores[hit.id] for hit in bounded])
    assert [hit.score for hit in bounded] == sorted((hit.score for hit in bounded), reverse=True)


def found_all(storage: SqliteStorage, query: str) -> list[IndexHit]:
    """Every match with its unbounded score (the threshold restored for this call)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sqlite_search, "FREQUENT_ROWS", 20_000)
        return found(storage, query, 1_000)


def test_below_the_threshold_nothing_is_frequent(storage: SqliteStorage,
                                                 coffee: list[int]) -> None:
    with storage.read() as session:  # terms in 43, 6 and 0 rows, under 20,000
        assert sqlite_search._frequent_terms(
            session, sqlite_search.KINDS[MEMORY], ["tea", term("coffee"), "absent"]) == set()


def test_narrowing_filters_apply_to_every_bounded_search(
        storage: SqliteStorage, coffee: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    with storage.write() as session:
        travel = [Memory(content=text, namespace="travel")
                  for text in ("coffee in Lisbon", "tea and coffee on the train", "tea in Kyoto")]
        session.add_all(travel)
        session.flush()
        travel_ids = {row.id for row in travel}
    filters = SearchFilters(namespaces=("travel",))

    def search() -> list[IndexHit]:
        with storage.read() as session:
            return storage.search.text_search(session, MEMORY, "tea coffee", filters, 10)

    unbounded = search()
    monkeypatch.setattr(sqlite_search, "FREQUENT_ROWS", 10)
    bounded = search()
    assert {hit.id for hit in bounded} == travel_ids
    assert [hit.id for hit in bounded] == [hit.id for hit in unbounded]


def test_ranking_by_the_bm25_column_keeps_fts5s_own_rank_order(
        storage: SqliteStorage, coffee: list[int]) -> None:
    """The search sorts by ``bm25()`` as a column (cheaper than ``ORDER BY rank``): the same
    scores and order as FTS5's ``rank``, ties going to the lower id."""
    query = sqlite_search.fts_query("tea coffee pot")
    with storage.read() as session:
        by_rank = session.execute(text(
            "SELECT rowid, -rank FROM memories_fts WHERE memories_fts MATCH :query "
            "ORDER BY rank, rowid"), {"query": query}).all()
    hits = found(storage, "tea coffee pot", 30)
    assert len(by_rank) == 46 and len(hits) == 30
    assert [hit.id for hit in hits] == [row[0] for row in by_rank[:30]]
    assert [hit.score for hit in hits] == pytest.approx([row[1] for row in by_rank[:30]])
