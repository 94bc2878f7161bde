"""The journal, the reading list and the user's own note edits, against the real database
(both backends)."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import numpy as np
import pytest
from sqlalchemy import text

from core import clock
from core.daily.journal import JournalService
from core.daily.read_later import MAX_TEXT, ReadLaterService
from core.daily.tags import extract_tags
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.notes import NoteService
from core.storage.port import IndexedKind, SearchFilters


# --- journal -----------------------------------------------------------------------------


def test_journal_entries_are_searched_reflected_once_and_edited(storage) -> None:
    journal = JournalService(storage)
    first = journal.add("Walked along the river with Ana.\n\nFelt calm.")
    second = journal.add("Long day at work; the release slipped.", title="Release")
    assert first.title is None and first.content.endswith("Felt calm.")
    assert [e.id for e in journal.list()] == [second.id, first.id]
    assert [e.id for e in journal.search("RIVER ana")] == [first.id]
    assert [e.id for e in journal.search("release")] == [second.id]
    assert journal.search("river release") == [] and journal.search("  ") == []
    assert journal.search("100%") == []  # the user's % is a character, not a wildcard

    assert [e.id for e in journal.unreflected()] == [first.id, second.id]
    assert journal.mark_reflected([first.id, second.id]) == 2
    assert journal.unreflected() == []
    journal.edit(first.id, title="A calm walk")
    assert journal.unreflected() == []  # a title alone is not new writing
    journal.edit(first.id, content="Walked along the river with Ana and Rui.")
    assert [e.id for e in journal.unreflected()] == [first.id]
    assert journal.delete(second.id).title == "Release"
    with pytest.raises(NotFoundError):
        journal.get(second.id)
    with pytest.raises(InvalidInputError, match="cannot be empty"):
        journal.add("   ")


def test_the_weekly_digest_takes_the_last_seven_local_days(storage) -> None:
    journal = JournalService(storage)
    today = clock.now().astimezone(timezone.utc).date()
    for days_ago in (0, 6, 7):
        with clock.shifted(-timedelta(days=days_ago)):
            journal.add(f"{days_ago} days ago")
    week = journal.week(today, zone="UTC")
    assert [e.content for e in week] == ["6 days ago", "0 days ago"]
    with storage.read() as session:  # never embedded: no vectors table knows journals
        assert session.execute(text("SELECT COUNT(*) FROM journal_entries")).scalar() == 3
    assert "journal" not in {kind.value for kind in IndexedKind}


# --- read later --------------------------------------------------------------------------


ARTICLE = ("Sourdough starters need flour and water. Feed the starter daily; a healthy "
           "starter doubles in size. Bakers keep their starter in the fridge between bakes. "
           "Click here to subscribe.")


def test_tags_are_the_distinctive_words_of_title_and_text() -> None:
    tags = extract_tags("Keeping a sourdough starter alive", ARTICLE)
    assert tags[:2] == ["starter", "sourdough"]
    assert "click" not in tags and "subscribe" not in tags and "the" not in tags
    assert extract_tags("", "one mention only") == []
    assert extract_tags("Same input", ARTICLE) == extract_tags("Same input", ARTICLE)


def test_tags_are_whole_words_not_fragments() -> None:
    """"long-term" and "e-bikes" stay whole; "isn't" and the address give no "isn" or
    "org"; a possessive is its word; a plural counts with its singular."""
    tags = extract_tags("Why you can't sleep: the science of long-term rest",
                        "Don't panic. Long-term sleep debt isn't fixed in a weekend. Read "
                        "https://example.org/sleep-guide. Sleep's rhythm matters; naps don't.")
    assert tags[:2] == ["sleep", "long-term"]
    assert not {"long", "term", "isn", "don", "can", "org", "example", "guide"} & set(tags)
    bikes = extract_tags("The best e-bikes of 2026",
                         "We rode e-bikes for months. One e-bike stood out among the e-bikes.")
    assert bikes[0] == "e-bikes" and "bikes" not in bikes and "e-bike" not in bikes


def test_read_later_items_are_kept_found_and_tidied(storage) -> None:
    read_later = ReadLaterService(storage)
    item = read_later.add(" https://example.org/sourdough ", title="Keeping a sourdough starter",
                     note="For the weekend", text=ARTICLE)
    other = read_later.add("https://example.org/bikes", title="Fixing a bike chain")
    assert item.url == "https://example.org/sourdough" and "starter" in item.tags
    assert [i.id for i in read_later.list()] == [other.id, item.id]
    assert [i.id for i in read_later.search("weekend")] == [item.id]      # the user's note
    assert [i.id for i in read_later.search("fridge")] == [item.id]       # the pasted text
    assert [i.id for i in read_later.search("chain bike")] == [other.id]
    assert read_later.set_status(item.id, "read").status == "read"
    assert [i.id for i in read_later.list("unread")] == [other.id]
    assert read_later.set_status(item.id, "archived").status == "archived"
    assert read_later.set_summary(item.id, "How to keep a starter.").summary
    edited = read_later.edit(other.id, text="The chain of a bike, and the chain tool.")
    assert "chain" in edited.tags
    assert read_later.delete(other.id).title == "Fixing a bike chain"
    assert [i.id for i in read_later.list()] == [item.id]


@pytest.mark.parametrize(("url", "extra", "message"), [
    ("example.org/page", {}, "not a full web address"),
    ("https://", {}, "not a full web address"),
    ("https://example.org/a b", {}, "has spaces"),
    ("https://example.org", {"text": "x" * (MAX_TEXT + 1)}, "more than the 1,000,000"),
])
def test_a_bad_item_is_refused_whole(storage, url, extra, message) -> None:
    read_later = ReadLaterService(storage)
    with pytest.raises(InvalidInputError, match=message):
        read_later.add(url, **extra)
    assert read_later.list() == []


# --- the user's edits of notes -----------------------------------------------------------


def vector(storage, note_id: int) -> np.ndarray | None:
    with storage.read() as session:
        ids, matrix = storage.search.vectors(session, IndexedKind.NOTE)
    found = {int(row_id): row for row_id, row in zip(ids, matrix, strict=True)}
    return found.get(note_id)


def test_a_note_edited_by_hand_is_embedded_again_pinned_and_deleted(storage, embedder) -> None:
    notes = NoteService(storage, embedder)
    note = notes.save("Bike", "The chain needs oil.")
    other = notes.save("Bread", "Feed the starter.")
    before = vector(storage, note.id)
    assert note.pinned is False and note.edited_at is None and before is not None

    edited = notes.edit(note.id, content="The chain and the brakes need oil.")
    assert edited.title == "Bike" and edited.edited_at is not None
    after = vector(storage, note.id)
    expected = embedder.embed_documents(["Bike\nThe chain and the brakes need oil."])[0]
    assert after is not None and np.allclose(after, expected, atol=1e-5)
    assert [n.id for n in notes.search("brakes")] == [note.id]

    assert [n.id for n in notes.list()] == [other.id, note.id]
    assert notes.set_pinned(note.id, True).pinned is True
    assert [n.id for n in notes.list()] == [note.id, other.id]

    notes.delete(note.id)
    assert vector(storage, note.id) is None
    with storage.read() as session:
        assert storage.search.text_search(session, IndexedKind.NOTE, "brakes",
                                          SearchFilters(), 5) == []
    with pytest.raises(NotFoundError):
        notes.edit(note.id, title="Gone")
    with pytest.raises(InvalidInputError, match="needs some text"):
        notes.edit(other.id, content=" ")


def test_days_are_the_users_not_utcs() -> None:
    from core.daily import when

    late_evening = datetime(2026, 11, 25, 23, 30, tzinfo=timezone.utc)
    assert when.today("Asia/Tokyo", late_evening) == date(2026, 11, 26)
    assert when.today("America/New_York", late_evening) == date(2026, 11, 25)
