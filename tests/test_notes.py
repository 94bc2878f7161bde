"""Notes and session summaries: stored with their vectors, recallable at once, upserted."""

from __future__ import annotations

import pytest

from core.config import Settings
from core.errors import InvalidInputError
from core.knowledge.notes import NoteService, summary_title
from core.recall import RecallQuery, RecallService
from core.storage.orm import ChatSession
from core.storage.port import IndexedKind


@pytest.fixture
def notes(storage, embedder) -> NoteService:
    return NoteService(storage, embedder)


def test_a_summary_is_recallable_as_soon_as_it_is_written(notes, storage, embedder) -> None:
    with storage.write() as session:
        session.add(ChatSession(id="s1"))
    note = notes.save_summary("Moving to Porto", "Maya found a flat near the river and "
                              "starts the new job on the 3rd.", session_id="s1")
    assert note.title == "Summary: Moving to Porto"
    assert note.embedding_model == embedder.model_id
    results = RecallService(storage, embedder, Settings()).recall(
        RecallQuery("when does Maya start her new job", kinds=(IndexedKind.NOTE,)))
    assert [r.id for r in results] == [note.id]
    assert results[0].provenance["title"] == "Summary: Moving to Porto"


def test_summaries_with_the_same_topic_are_updated_not_duplicated(notes, storage) -> None:
    with storage.write() as session:
        session.add_all([ChatSession(id="s1"), ChatSession(id="s2")])
    first = notes.save_summary("Garden", "Planted tomatoes.", session_id="s1")
    again = notes.save_summary("Garden", "Planted tomatoes and basil.", session_id="s1")
    other = notes.save_summary("Garden", "Bought a hose.", session_id="s2")
    assert again.id == first.id and other.id != first.id
    assert notes.get(first.id).content == "Planted tomatoes and basil."
    assert [n.id for n in notes.list(summaries_only=True, session_id="s1")] == [first.id]


def test_plain_notes_are_not_summaries_and_empty_ones_are_refused(notes) -> None:
    notes.save("Packing list", "Boxes, tape, labels")
    assert notes.list(summaries_only=True) == []
    with pytest.raises(InvalidInputError):
        notes.save("Empty", "   ")
    with pytest.raises(InvalidInputError):
        summary_title("   ")
