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


@pytest.mark.parametrize(("content", "title"), [
    ("the wifi password at the cabin is on the fridge", "the wifi password at the cabin is "
                                                        "on the fridge"),
    ("Buy milk. And eggs, and bread for the weekend.", "Buy milk"),
    ("- [ ] Renew the passport!\nThe photo booth is at the post office", "Renew the passport"),
    ("Dr. Silva's new number is 555 0101", "Dr. Silva's new number is 555 0101"),
    ("Passwords", "Passwords"),
    ("\n\n---\n\u200b  # Cabin: how to turn the water on.", "Cabin: how to turn the water on"),
    ("Café Müller opens at nine, says Zoë", "Café Müller opens at nine, says Zoë"),
    ("我的猫叫咪咪。它很可爱", "我的猫叫咪咪"),
    ("كلمة السر في الثلاجة؟ نعم", "كلمة السر في الثلاجة"),
    ("one two three four five six seven eight nine ten eleven twelve",
     "one two three four five six seven eight nine ten"),
])
def test_a_note_without_a_title_is_titled_by_its_first_words(notes, content, title) -> None:
    assert notes.save(None, content).title == title
    assert notes.save("   ", content).title == title  # an empty title field: the same


def test_a_title_from_a_very_long_first_line_is_cut_between_words_or_letters(notes) -> None:
    words = "Remember to ask the landlord about the boiler service contract renewal"
    titled = notes.save(None, words + " and the spare keys").title
    assert titled == "Remember to ask the landlord about the boiler service"
    assert len(titled) <= 60

    one_long_word = "https://example.org/" + "a" * 300
    assert notes.save(None, one_long_word).title == one_long_word[:60]
    filler = "a" * 59
    for cut_within in ("e\u0301", "\U0001f44b\U0001f3fd"):  # é as e + accent; a toned hand
        assert notes.save(None, filler + cut_within).title == filler  # kept whole or left out
    joined = "a" * 58 + "\U0001f469\u200d\U0001f467"  # a family: two emoji and a joiner
    assert notes.save(None, joined).title == "a" * 58


@pytest.mark.parametrize("content", ["...", "?!\n—\n\u200b\u200b", "* * *"])
def test_a_note_with_no_words_and_no_title_is_refused_plainly(notes, content) -> None:
    with pytest.raises(InvalidInputError) as refused:
        notes.save(None, content)
    assert refused.value.message == "The note has no words to take a title from."
    assert refused.value.hint == "Give it a title, or write some words in it."
    assert notes.save("Divider", content).title == "Divider"  # with a title it is a note
