"""The terms every full-text index holds and every question asks (``core.storage.search_terms``),
and what they change for a person searching: a name matches as a name."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.storage.orm import Memory
from core.storage.port import IndexedKind, SearchFilters
from core.storage.search_terms import index_terms, query_terms, term

MEMORY = IndexedKind.MEMORY


@pytest.mark.parametrize(("word", "expected"), [
    ("moving", "move"), ("moved", "move"), ("Running", "run"),  # Porter, as FTS5's porter
    ("Ines", "ines"), ("Andes", "andes"),  # a stem that is a function word: kept whole
    ("in", "in"), ("the", "the"),  # function words stay themselves
    ("café", "cafe"), ("Zürich", "zurich"), ("Ångström", "angstrom"),  # Latin folded
    ("ガラス", "ガラス"), ("東京", "東京"),  # other scripts keep their marks, unstemmed
    ("2024", "2024"), ("ox", "ox"),  # digits, and words under three letters, kept
    ("a" * 65 + "ing", "a" * 65 + "ing"),  # longer than 64: kept whole
])
def test_each_word_becomes_one_term(word: str, expected: str) -> None:
    assert term(word) == expected


def test_a_text_becomes_its_terms_at_the_spaces_and_null_stays_null() -> None:
    assert index_terms("Ines moved to the café; she's 34!") == "ines move to the cafe she s 34"
    assert index_terms("") == ""
    assert index_terms(None) is None


def test_a_question_asks_each_term_once_without_function_words() -> None:
    assert query_terms("What did I share with Ines?") == ["share", "ines"]
    assert query_terms("moving, moved, MOVES") == ["move"]
    assert query_terms('"quoted" OR NEAR(x) col:value*') == ["quot", "near", "x", "col", "valu"]


@pytest.mark.sqlite_only("the terms are what SQLite's FTS5 tables index")
def test_a_question_about_ines_finds_her_not_every_row_with_in(storage) -> None:
    """FTS5's porter stemmed "Ines" to "in": a question about her matched every row with
    "in", and the rows about her lost among them."""
    with storage.write() as session:
        session.add_all(Memory(content=f"We met in the park in spring, day {day}.")
                        for day in range(30))
        session.add_all([Memory(content="Ines shares a flat with me in Lisbon."),
                         Memory(content="I lent my bike to Ines.")])
    with storage.read() as session:
        hits = storage.search.text_search(session, MEMORY, "what do I share with Ines",
                                          SearchFilters(), 10)
        contents = session.execute(text("SELECT id, content FROM memories")).all()
    by_id = dict(contents)
    assert [by_id[hit.id] for hit in hits] == ["Ines shares a flat with me in Lisbon.",
                                                "I lent my bike to Ines."]


@pytest.mark.sqlite_only("the terms are what SQLite's FTS5 tables index")
def test_the_index_holds_terms_only_and_follows_every_change(storage) -> None:
    """Contentless tables keep no copy of the text; an edit re-indexes the row and a
    delete takes it out by id."""
    with storage.write() as session:
        memory = Memory(content="Priya moved to Porto")
        session.add(memory)
        session.flush()
        row = memory.id

    def hits(query: str) -> list[int]:
        with storage.read() as session:
            return [hit.id for hit in storage.search.text_search(
                session, MEMORY, query, SearchFilters(), 5)]

    assert hits("moving Porto") == [row]
    with storage.read() as session:
        assert session.execute(text("SELECT content FROM memories_fts")).scalar_one() is None
    with storage.write() as session:
        session.execute(text("UPDATE memories SET content = 'Priya lives in Braga' "
                             "WHERE id = :id"), {"id": row})
    assert hits("Porto") == [] and hits("living in Braga") == [row]
    with storage.write() as session:
        session.execute(text("DELETE FROM memories WHERE id = :id"), {"id": row})
    assert hits("Braga") == []
