"""The search index: full-text safety, vector consistency, filters, planner, quantisation.

Every test runs on SQLite (FTS5, sqlite-vec) and on PostgreSQL (tsvector, pgvector), with the
real bge-small model throughout: the point is that the SQL, the triggers and the quantised
(HNSW on PostgreSQL) search behave the same on the real thing.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

import numpy as np
import pytest
from sqlalchemy import delete, text, update

from core.storage.orm import ChatSession, Interaction, Memory, Note, UserFact
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from support.backends import search_index

from core.storage.port import IndexedKind, SearchFilters, SearchIndex, StoragePort
from core.storage.sqlite.search import fts_query

MEMORY = IndexedKind.MEMORY
DEFAULT = SearchFilters()
NOW = datetime.now(timezone.utc)
CORPUS = [
    "My sister Ines lives in Porto and works as a nurse.",
    "The garden shed roof leaks in heavy rain.",
    "I prefer green tea over coffee in the morning.",
    "The unbalanced washing machine walks across the floor during the spin cycle.",
    "Dentist appointment with Dr. Okafor next Tuesday.",
    "Remember the café on Rua Augusta serves great pastries.",
]


# --- helpers -----------------------------------------------------------------------------


def add_memories(storage: StoragePort, embedder: Any, contents: Sequence[str],
                 **fields: Any) -> list[int]:
    """Insert memories with their vectors (the index must be prepared)."""
    vectors = embedder.embed_documents(list(contents))
    with storage.write() as session:
        rows = [Memory(content=content, **fields) for content in contents]
        session.add_all(rows)
        session.flush()
        ids = [row.id for row in rows]
        storage.search.store_embeddings(session, MEMORY, ids, vectors, embedder.model_id)
    return ids


def text_ids(storage: StoragePort, query: str, kind: IndexedKind = MEMORY,
             filters: SearchFilters = DEFAULT, limit: int = 20) -> list[int]:
    with storage.read() as session:
        return [hit.id for hit in storage.search.text_search(session, kind, query, filters,
                                                               limit)]


def vector_ids(storage: StoragePort, embedder: Any, query: str,
               kind: IndexedKind = MEMORY, filters: SearchFilters = DEFAULT,
               limit: int = 20, index: SearchIndex | None = None) -> list[int]:
    search = index or storage.search
    with storage.read() as session:
        return [hit.id for hit in search.vector_search(
            session, kind, embedder.embed_query(query), filters, limit)]


def vector_rows(storage: StoragePort, table: str = "memories") -> set[int]:
    """Ids present in the vector tables of ``table`` (on SQLite, asserting that the float
    and bit tables agree)."""
    with storage.read() as session:
        floats = set(session.scalars(text(f"SELECT id FROM {table}_vec")))
        if session.get_bind().dialect.name == "sqlite":
            bits = set(session.scalars(text(f"SELECT id FROM {table}_vec_bits")))
            assert floats == bits
    return floats


def model_of(storage: StoragePort, memory_id: int) -> str | None:
    with storage.read() as session:
        return session.get(Memory, memory_id).embedding_model


@pytest.fixture
def prepared(storage: StoragePort, embedder: Any) -> StoragePort:
    storage.search.ensure_dimensions(embedder.dimensions)
    return storage


@pytest.fixture
def corpus(prepared: StoragePort, embedder: Any) -> list[int]:
    return add_memories(prepared, embedder, CORPUS)


# --- full text: user text is never syntax ----------------------------------------------

NASTY = [
    ('"unbalanced', 3),
    ("foo AND", None),
    ("sister AND", 0),
    ("NEAR(shed roof)", 1),
    ("a*", None),
    ("-coffee", 2),
    ("(((", None),
    ("col:val", None),
    ("content:Porto", 0),
    ("^start", None),
    ("", None),
    ("   \t\n ", None),
    ("🙂🎉", None),
    ("'; DROP TABLE memories; --", None),
    ('tea" OR "x', 2),
    ("NOT", None),
    ("OR OR AND", None),
    ("{shed roof}", 1),
    ("Ines\x00Porto", 0),
    ("café", 5),
]


@pytest.mark.parametrize(("query", "expected_first"), NASTY)
def test_user_text_is_never_fts_syntax(corpus: list[int], prepared: StoragePort,
                                       query: str, expected_first: int | None) -> None:
    found = text_ids(prepared, query)
    if expected_first is not None:
        assert found[0] == corpus[expected_first]
    with prepared.read() as session:
        assert session.scalar(text("SELECT count(*) FROM memories")) == len(CORPUS)


def test_empty_and_symbol_only_queries_return_nothing(corpus: list[int],
                                                       prepared: StoragePort) -> None:
    for query in ("", "   ", "🙂🎉", "(((", "*", "^", '"'):
        assert fts_query(query) == ""
        assert text_ids(prepared, query) == []


def test_query_words_are_quoted_and_ored_without_function_words() -> None:
    assert fts_query('where does my "sister" live?') == '"sister" OR "live"'
    assert fts_query("who is it") == '"who" OR "is" OR "it"'
    assert fts_query("XK-4471") == '"xk" OR "4471"'


def test_bm25_ranks_rows_matching_more_words_higher(prepared: StoragePort,
                                                    embedder: Any) -> None:
    ids = add_memories(prepared, embedder, [
        "The roof needs new tiles.", "The shed roof leaks and the shed door sticks.",
        "The shed is painted green."])
    with prepared.read() as session:
        hits = prepared.search.text_search(session, MEMORY, "shed roof", SearchFilters(), 10)
    assert hits[0].id == ids[1]
    assert [hit.rank for hit in hits] == [1, 2, 3]
    assert hits[0].score > hits[1].score > 0


# --- consistency through insert, update and delete -----------------------------------------


def test_insert_is_found_by_both_signals_and_needs_no_embedding(
        corpus: list[int], prepared: StoragePort, embedder: Any) -> None:
    assert text_ids(prepared, "Porto nurse")[0] == corpus[0]
    assert vector_ids(prepared, embedder, "where does my sister live")[0] == corpus[0]
    assert vector_rows(prepared) == set(corpus)
    with prepared.read() as session:
        assert prepared.search.rows_needing_embedding(
            session, MEMORY, embedder.model_id, 0, 100) == []


def test_text_update_drops_the_stale_vector_until_re_embedded(
        corpus: list[int], prepared: StoragePort, embedder: Any) -> None:
    target = corpus[1]
    new_text = "The bicycle chain snapped on the way to work."
    with prepared.write() as session:
        session.get(Memory, target).content = new_text
    assert target not in text_ids(prepared, "shed roof leaks")
    assert text_ids(prepared, "bicycle chain") == [target]
    assert target not in vector_rows(prepared)
    assert model_of(prepared, target) is None
    assert target not in vector_ids(prepared, embedder, "garden shed roof leaking")
    with prepared.write() as session:
        pending = prepared.search.rows_needing_embedding(
            session, MEMORY, embedder.model_id, 0, 100)
        assert pending == [(target, new_text)]
        prepared.search.store_embeddings(session, MEMORY, [target],
                                         embedder.embed_documents([new_text]), embedder.model_id)
    assert vector_ids(prepared, embedder, "broken bike chain")[0] == target
    assert model_of(prepared, target) == embedder.model_id


def test_non_text_updates_keep_the_vector(corpus: list[int], prepared: StoragePort,
                                          embedder: Any) -> None:
    with prepared.write() as session:
        session.get(Memory, corpus[2]).tier = "archival"
        session.execute(update(Memory).where(Memory.id == corpus[3])
                        .values(content=CORPUS[3], strength=0.3))
    assert {corpus[2], corpus[3]} <= vector_rows(prepared)
    assert model_of(prepared, corpus[2]) == embedder.model_id


def test_delete_removes_text_and_vectors(corpus: list[int], prepared: StoragePort,
                                         embedder: Any) -> None:
    with prepared.write() as session:
        session.execute(delete(Memory).where(Memory.id == corpus[0]))
    assert text_ids(prepared, "Porto nurse") == []
    assert corpus[0] not in vector_rows(prepared)
    assert corpus[0] not in vector_ids(prepared, embedder, "where does my sister live")


def test_store_embeddings_ignores_rows_deleted_meanwhile(prepared: StoragePort,
                                                         embedder: Any) -> None:
    with prepared.write() as session:
        prepared.search.store_embeddings(session, MEMORY, [999],
                                         embedder.embed_documents(["gone"]), embedder.model_id)
    assert vector_rows(prepared) == set()


def test_store_embeddings_rejects_the_wrong_width(corpus: list[int],
                                                  prepared: StoragePort) -> None:
    with pytest.raises(ValueError, match="width"), prepared.write() as session:
        prepared.search.store_embeddings(session, MEMORY, [corpus[0]],
                                         np.ones((1, 8), dtype=np.float32), "m")


def test_vector_scores_are_cosine_similarities(corpus: list[int], prepared: StoragePort,
                                               embedder: Any) -> None:
    query = embedder.embed_query("morning drinks")
    with prepared.read() as session:
        hits = prepared.search.vector_search(session, MEMORY, query, SearchFilters(), 3)
    expected = embedder.embed_documents(CORPUS) @ query
    for hit in hits:
        assert hit.score == pytest.approx(float(expected[corpus.index(hit.id)]), abs=1e-5)
    assert [hit.rank for hit in hits] == [1, 2, 3]


def test_vector_search_needs_a_prepared_index(storage: StoragePort) -> None:
    with storage.read() as session, pytest.raises(RuntimeError, match="ensure_dimensions"):
        storage.search.vector_search(session, MEMORY, np.ones(384, np.float32),
                                     SearchFilters(), 5)


# --- the dimension change ------------------------------------------------------------


def test_dimension_change_rebuilds_and_queues_everything_for_re_embedding(
        corpus: list[int], prepared: StoragePort, embedder: Any) -> None:
    assert prepared.search.ensure_dimensions(embedder.dimensions) is False
    fresh = search_index(prepared)
    assert fresh.ensure_dimensions(embedder.dimensions) is False
    assert vector_rows(prepared) == set(corpus)

    assert fresh.ensure_dimensions(8) is True
    assert vector_rows(prepared) == set()
    assert all(model_of(prepared, memory_id) is None for memory_id in corpus)
    with prepared.write() as session:
        pending = fresh.rows_needing_embedding(session, MEMORY, "tiny", 0, 100)
        assert [row_id for row_id, _ in pending] == corpus
        fresh.store_embeddings(session, MEMORY, corpus[:1], np.ones((1, 8), np.float32), "tiny")
    assert search_index(prepared).ensure_dimensions(8) is False
    assert vector_rows(prepared) == {corpus[0]}


# --- filters, on every search path ---------------------------------------------------


@pytest.fixture(params=["exact", "quantised"])
def index(request: pytest.FixtureRequest, prepared: StoragePort) -> SearchIndex:
    """The prepared index, and one forced onto the bits with a shortlist smaller than the
    data, so both planner branches are checked against the same expectations."""
    if request.param == "exact":
        return prepared.search  # type: ignore[return-value]
    forced = search_index(prepared, exact_max_rows=0, shortlist_factor=1,
                               min_shortlist=3)
    forced.ensure_dimensions(384)
    return forced


@pytest.fixture
def varied(prepared: StoragePort, embedder: Any) -> dict[str, int]:
    """Memories about coffee that differ in one filterable field each."""
    with prepared.write() as session:
        session.add(ChatSession(id="s1"))
    specs: dict[str, dict[str, Any]] = {
        "plain": {},
        "episodic": {"memory_type": "episodic"},
        "archival": {"tier": "archival"},
        "health": {"category": "health", "namespace": "user/health"},
        "username": {"namespace": "username"},
        "upper": {"namespace": "User/x"},
        "deep": {"namespace": "user/health/teeth"},
        "old": {"created_at": NOW - timedelta(days=400)},
        "invalid": {"is_valid": False, "invalid_reason": "wrong"},
        "session": {"session_id": "s1"},
    }
    ids = {}
    for name, fields in specs.items():
        (ids[name],) = add_memories(prepared, embedder, [f"I drink black coffee ({name})."],
                                    **fields)
    (ids["superseded"],) = add_memories(prepared, embedder,
                                        ["I drink black coffee (superseded)."],
                                        superseded_by=ids["plain"])
    return ids


def both_signals(storage: StoragePort, embedder: Any, index: SearchIndex,
                 filters: SearchFilters) -> Iterator[set[int]]:
    with storage.read() as session:
        yield {hit.id for hit in index.text_search(session, MEMORY, "black coffee", filters,
                                                   50)}
        yield {hit.id for hit in index.vector_search(
            session, MEMORY, embedder.embed_query("black coffee"), filters, 50)}


def names(ids: dict[str, int], found: set[int]) -> set[str]:
    return {name for name, memory_id in ids.items() if memory_id in found}


FILTER_CASES = [
    (SearchFilters(), {"plain", "episodic", "archival", "health", "username", "upper",
                       "deep", "old", "session"}),
    (SearchFilters(memory_types=frozenset({"episodic"})), {"episodic"}),
    (SearchFilters(tiers=frozenset({"archival"})), {"archival"}),
    (SearchFilters(categories=frozenset({"health"})), {"health"}),
    (SearchFilters(namespaces=("user",)), {"plain", "episodic", "archival", "health", "deep",
                                           "old", "session"}),
    (SearchFilters(namespaces=("user/health/",)), {"health", "deep"}),
    (SearchFilters(namespaces=("username", "User")), {"username", "upper"}),
    (SearchFilters(namespaces=("use",)), set()),
    (SearchFilters(since=NOW - timedelta(days=30)),
     {"plain", "episodic", "archival", "health", "username", "upper", "deep", "session"}),
    (SearchFilters(until=NOW - timedelta(days=30)), {"old"}),
    (SearchFilters(valid_only=None), {"plain", "episodic", "archival", "health", "username",
                                      "upper", "deep", "old", "session", "invalid",
                                      "superseded"}),
    (SearchFilters(valid_only=False), {"invalid", "superseded"}),
    (SearchFilters(session_ids=frozenset({"s1"})), {"session"}),
    (SearchFilters(tiers=frozenset({"recall"}), categories=frozenset({"general"}),
                   namespaces=("user",), since=NOW - timedelta(days=30)),
     {"plain", "episodic", "deep", "session"}),
]


@pytest.mark.parametrize(("filters", "expected"), FILTER_CASES)
def test_filters_apply_to_both_signals(varied: dict[str, int], prepared: StoragePort,
                                       embedder: Any, index: SearchIndex,
                                       filters: SearchFilters, expected: set[str]) -> None:
    for found in both_signals(prepared, embedder, index, filters):
        assert names(varied, found) == expected


def test_exclude_ids(varied: dict[str, int], prepared: StoragePort, embedder: Any,
                     index: SearchIndex) -> None:
    filters = SearchFilters(exclude_ids=frozenset({varied["plain"], varied["old"]}))
    for found in both_signals(prepared, embedder, index, filters):
        assert not names(varied, found) & {"plain", "old"}
        assert "episodic" in names(varied, found)


def test_filters_applied_after_ranking_still_hold(prepared: StoragePort, embedder: Any,
                                                  index: SearchIndex) -> None:
    """The best matches are invalid; a small limit makes the post-filtered path answer."""
    add_memories(prepared, embedder, ["Black coffee.", "Black coffee, black coffee."],
                 is_valid=False)
    valid = add_memories(prepared, embedder, [
        "I drink black coffee every morning.", "Black coffee after lunch.",
        "Tea, not black coffee.", "Black coffee beans from Lisbon."])
    with prepared.read() as session:
        text_hits = index.text_search(session, MEMORY, "black coffee", SearchFilters(), 2)
        vector_hits = index.vector_search(session, MEMORY, embedder.embed_query("black coffee"),
                                          SearchFilters(), 2)
    for hits in (text_hits, vector_hits):
        assert len(hits) == 2
        assert {hit.id for hit in hits} <= set(valid)


def test_post_filtered_shortlist_falls_back_when_too_few_survive(
        prepared: StoragePort, embedder: Any) -> None:
    valid = add_memories(prepared, embedder, ["I drink black coffee.", "Coffee with milk."])
    add_memories(prepared, embedder, [f"Coffee note {n}." for n in range(12)], is_valid=False)
    forced = search_index(prepared, exact_max_rows=0, shortlist_factor=1,
                               min_shortlist=3)
    forced.ensure_dimensions(embedder.dimensions)
    found = vector_ids(prepared, embedder, "coffee", limit=5, index=forced)
    assert sorted(found) == sorted(valid)


# --- other kinds -----------------------------------------------------------------------


def test_notes_interactions_and_facts_are_indexed_and_embedded_as_documents(
        prepared: StoragePort, embedder: Any) -> None:
    old = NOW - timedelta(days=100)
    with prepared.write() as session:
        session.add(ChatSession(id="s1"))
        session.add_all([
            Note(title="Trip to Porto", content="Pack sunscreen.", session_id="s1"),
            Note(title="Old", content="Porto wine list.", created_at=old),
            Interaction(user_message="  Where is Porto? ", agent_response="In Portugal.  "),
            UserFact(key="home_city", value="Porto"),
        ])
    search = prepared.search
    expected = {
        IndexedKind.NOTE: [(1, "Trip to Porto\nPack sunscreen."), (2, "Old\nPorto wine list.")],
        IndexedKind.INTERACTION: [(1, "Where is Porto? \nIn Portugal.")],
        IndexedKind.FACT: [(1, "home city: Porto")],
    }
    with prepared.write() as session:
        for kind, rows in expected.items():
            assert search.rows_needing_embedding(session, kind, embedder.model_id, 0, 10) == rows
            search.store_embeddings(session, kind, [row_id for row_id, _ in rows],
                                    embedder.embed_documents([t for _, t in rows]),
                                    embedder.model_id)
            assert search.rows_needing_embedding(session, kind, embedder.model_id, 0, 10) == []
    recent = SearchFilters(since=NOW - timedelta(days=30))
    assert text_ids(prepared, "Porto", IndexedKind.NOTE, recent) == [1]
    assert vector_ids(prepared, embedder, "holiday packing", IndexedKind.NOTE, recent) == [1]
    sessions = SearchFilters(session_ids=frozenset({"s1"}))
    assert text_ids(prepared, "Porto", IndexedKind.NOTE, sessions) == [1]
    assert text_ids(prepared, "Porto", IndexedKind.INTERACTION, sessions) == []
    assert text_ids(prepared, "Porto", IndexedKind.FACT, sessions) == [1]  # facts have none
    assert vector_ids(prepared, embedder, "which city do I live in", IndexedKind.FACT) == [1]
    with prepared.write() as session:
        session.get(UserFact, 1).value = "Lisbon"
    assert vector_rows(prepared, "user_facts") == set()


# --- quantised search against exact --------------------------------------------------

SUBJECTS = ["My sister", "The landlord", "Our neighbour", "My manager", "The dentist",
            "My cousin", "The plumber", "My best friend", "The vet", "Our teacher"]
ACTIONS = ["moved to {place}", "called about {thing}", "recommended {thing}",
           "complained about {thing}", "is travelling to {place}", "fixed {thing}"]
PLACES = ["Porto", "Berlin", "Osaka", "the coast", "the mountains", "Toronto"]
THINGS = ["the leaking boiler", "a thriller novel", "the rent increase", "the broken fence",
          "a new budgeting app", "the cat's vaccination"]


def generated_memories() -> list[str]:
    texts = []
    for subject in SUBJECTS:
        for action in ACTIONS:
            for slot in range(5):
                texts.append(f"{subject} {action.format(place=PLACES[slot], thing=THINGS[slot])}.")
    return texts


def test_quantised_search_agrees_with_exact(prepared: StoragePort, embedder: Any) -> None:
    texts = generated_memories()
    add_memories(prepared, embedder, texts)
    # a shortlist of 40 of 300 rows: the bits alone decide what gets rescored
    quantised = search_index(prepared, exact_max_rows=0, shortlist_factor=4,
                                  min_shortlist=40)
    quantised.ensure_dimensions(embedder.dimensions)
    queries = ["who moved to Japan", "problems with heating", "book suggestions",
               "housing costs going up", "pet health", "trips abroad", "garden repairs",
               "apps for money", "family travel", "who fixed something"]
    overlaps = []
    with prepared.read() as session:
        for query in queries:
            vector = embedder.embed_query(query)
            exact = prepared.search.vector_search(session, MEMORY, vector, SearchFilters(), 10)
            approx = quantised.vector_search(session, MEMORY, vector, SearchFilters(), 10)
            tenth = exact[-1].score - 1e-6
            overlaps.append(sum(hit.score >= tenth for hit in approx) / 10)
            assert approx[0].score == pytest.approx(exact[0].score, abs=1e-6)
    assert len(texts) == 300
    assert float(np.mean(overlaps)) >= 0.95
