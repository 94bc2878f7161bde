"""The knowledge domains' operations (``core.operations`` facts, memories, profile, habits,
follow-ups): what the window gets back is plain, frozen data (never a database row), and
every change names the domains it moved, and only those: a save that changed nothing
moves nothing."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from core.app import Hearth
from core.errors import InvalidInputError, NotFoundError
from core.operations import (
    about_you, deleted, facts, follow_ups, habits, memories, notes_about_you)
from core.operations.changes import NOTHING, Changes, Domain
from core.operations.done import Done
from core.operations.memories import MemoryFilter, Validity
from core.recall import RecallQuery
from core.storage.orm import Base


def assert_plain(value: Any) -> None:
    """``value`` holds no database row anywhere, and every dataclass in it is frozen."""
    assert not isinstance(value, Base), f"a row: {value!r}"
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        assert type(value).__dataclass_params__.frozen, f"{type(value).__name__} is not frozen"
        for field in dataclasses.fields(value):
            assert_plain(getattr(value, field.name))
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            assert_plain(item)
    elif isinstance(value, dict):
        for item in value.values():
            assert_plain(item)


def frozen(value: Any) -> None:
    field = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, field, getattr(value, field))


# --- facts ------------------------------------------------------------------------------------


def test_facts_come_back_as_frozen_data_and_a_save_names_facts(hearth: Hearth) -> None:
    done = facts.remember(hearth, "Home city", "Lisbon", "location")
    assert isinstance(done, Done) and done.changes == Changes.of(Domain.FACTS)
    assert (done.value.key, done.value.action) == ("home_city", "created")

    again = facts.remember(hearth, "home_city", "Lisbon", "location")
    assert again.value.action == "unchanged" and again.changes == NOTHING

    facts.remember(hearth, "home_city", "Porto", "location")
    facts.remember(hearth, "coffee", "black", "preference")
    listed = facts.list_facts(hearth)
    assert isinstance(listed, tuple) and [f.key for f in listed] == ["home_city", "coffee"]
    assert_plain(listed)
    frozen(listed[0])
    assert [f.key for f in facts.list_facts(hearth, "porto")] == ["home_city"]
    assert facts.list_facts(hearth, "", "preference")[0].value == "black"
    assert facts.list_facts(hearth, "porto", "preference") == ()

    history = facts.fact_history(hearth, "home_city")
    assert [h.value for h in history] == ["Lisbon"] and history[0].source == "user"
    assert_plain(history)

    moved = facts.recategorise(hearth, "coffee", "personal")
    assert moved.changes == Changes.of(Domain.FACTS)
    assert facts.recategorise(hearth, "coffee", "personal").changes == NOTHING


def test_a_refused_fact_changes_nothing(hearth: Hearth) -> None:
    with pytest.raises(InvalidInputError, match="needs a value"):
        facts.remember(hearth, "home_city", "   ", "location")
    assert facts.list_facts(hearth) == ()


def test_forgetting_a_fact_names_every_place_its_values_were(hearth: Hearth) -> None:
    facts.remember(hearth, "passport", "X1234567", "personal")
    hearth.memories.add("The user's passport number is X1234567.")

    preview = facts.preview_forget(hearth, "passport")
    assert_plain(preview)
    assert preview.places == {"memories": 1}
    assert "will be replaced" in facts.redactions(preview, done=False)

    done = facts.forget(hearth, "passport")
    assert_plain(done.value.report)
    assert done.changes.touches(Domain.FACTS) and done.changes.touches(Domain.MEMORIES)
    assert done.changes.touches(Domain.CHATS)
    assert facts.list_facts(hearth) == ()
    with pytest.raises(NotFoundError):
        facts.preview_forget(hearth, "passport")


# --- memories ---------------------------------------------------------------------------------


@pytest.fixture
def three(hearth: Hearth) -> Iterator[list[int]]:
    yield [hearth.memories.add(text).id for text in (
        "The user plays the cello on Sunday mornings.",
        "The user has a cat called Miso.",
        "The user works as a nurse in Porto.")]


def test_browsing_searching_and_reading_memories_give_plain_data(
        hearth: Hearth, three: list[int]) -> None:
    listing = memories.list_memories(hearth, "", MemoryFilter(), 50)
    assert_plain(listing)
    assert listing.total == 3 and sorted(row.id for row in listing.rows) == sorted(three)
    assert listing.namespaces == ("user",)

    found = memories.list_memories(hearth, "cello", MemoryFilter(), 50)
    assert found.rows[0].id == three[0] and found.total is None

    detail = memories.read_memory(hearth, three[1])
    assert_plain(detail)
    assert "Miso" in detail.content


def test_invalidate_restore_pin_and_delete_move_memories(hearth: Hearth, three: list[int]) -> None:
    cello, cat, work = three
    assert memories.invalidate(hearth, cello, "I stopped") == Changes.of(Domain.MEMORIES)
    assert memories.read_memory(hearth, cello).state == Validity.INVALID.value
    assert memories.restore(hearth, cello) == Changes.of(Domain.MEMORIES)
    assert memories.read_memory(hearth, cello).state == Validity.VALID.value
    assert memories.pin(hearth, cat) == Changes.of(Domain.MEMORIES)
    assert memories.read_memory(hearth, cat).tier == memories.MemoryTier.CORE.value

    done = memories.delete(hearth, [work])
    assert_plain(done.value)
    assert done.value.item.count == 1 and done.changes.touches(Domain.MEMORIES)
    assert not done.changes.touches(Domain.FACTS, Domain.ABOUT_YOU)
    with pytest.raises(NotFoundError):
        memories.read_memory(hearth, work)
    back = deleted.restore(hearth, done.value.item.id)
    assert back.changes.touches(Domain.MEMORIES) and back.value.ids == (work,)

    erased = memories.erase(hearth, [work])
    assert_plain(erased.value.report)
    assert memories.memories_deleted(erased.value.report, erased=True)[0] == "Erased 1 memory."
    assert erased.changes.touches(Domain.MEMORIES, Domain.CHATS)


def test_the_memory_map_and_what_recall_rings_on_it(hearth: Hearth, three: list[int]) -> None:
    snapshot = memories.memory_map(hearth, 10, valid_only=True)
    assert sorted(snapshot.ids.tolist()) == sorted(three)
    assert isinstance(snapshot.ids, np.ndarray)
    details = memories.map_node(hearth, three[0])
    assert_plain(details)
    assert "cello" in details.content

    ids = memories.recalled_ids(hearth, "cello music", 5, valid_only=True)
    expected = [r.id for r in hearth.recall.recall(RecallQuery(text="cello music", k=5,
                                                               graph=0))]
    assert isinstance(ids, tuple) and list(ids) == expected and ids[0] == three[0]


def test_stats_are_plain_data(hearth: Hearth, three: list[int]) -> None:
    facts.remember(hearth, "coffee", "black", "preference")
    stats = memories.memory_stats(hearth)
    assert stats.facts_by_category == [("preference", 1)]
    assert int(stats.strength.counts.sum()) == len(three)


# --- profile and scaffold ---------------------------------------------------------------------


def test_profile_versions_saves_and_restores(hearth: Hearth) -> None:
    assert about_you.current_about_you(hearth) is None
    first = about_you.save_about_you(hearth, "# Personal\nLives in Lisbon.")
    assert first.changes == Changes.of(Domain.ABOUT_YOU)
    assert_plain(first.value)
    frozen(first.value)
    assert about_you.save_about_you(hearth, "# Personal\nLives in Lisbon.").changes == NOTHING

    second = about_you.save_about_you(hearth, "# Personal\nLives in Porto.")
    versions = about_you.about_you_versions(hearth)
    assert [v.id for v in versions] == [second.value.id, first.value.id]
    assert_plain(versions)
    assert "+Lives in Porto." in about_you.about_you_diff(hearth, first.value.id, second.value.id)
    assert about_you.about_you_version(hearth, first.value.id).content.endswith("Lisbon.")

    restored = about_you.restore_about_you(hearth, first.value.id)
    assert restored.changes == Changes.of(Domain.ABOUT_YOU)
    assert (restored.value.source, restored.value.content) == ("restore", first.value.content)
    assert about_you.current_about_you(hearth) == restored.value


def test_scaffold_saves_as_the_user_and_a_same_save_moves_nothing(hearth: Hearth) -> None:
    assert notes_about_you.current_notes_about_you(hearth) is None
    saved = notes_about_you.save_notes_about_you(hearth, {"Family": {"sister": "Ana"}})
    assert saved.changes == Changes.of(Domain.ABOUT_YOU) and saved.value.source == "user"
    assert_plain(saved.value)
    same = notes_about_you.save_notes_about_you(hearth, {"Family": {"sister": "Ana"}})
    assert same.changes == NOTHING
    assert notes_about_you.current_notes_about_you(hearth) == saved.value
    with pytest.raises(InvalidInputError):
        notes_about_you.save_notes_about_you(hearth, {" ": 1})
    assert notes_about_you.current_notes_about_you(hearth) == saved.value


# --- habits and follow-ups --------------------------------------------------------------------


def test_habits_promote_demote_delete(hearth: Hearth) -> None:
    hearth.habits.observe("Keep answers short", run_started_at=datetime.now(UTC))
    (habit,) = habits.list_habits(hearth)
    assert_plain(habit)
    assert habit.status == "candidate"

    promoted = habits.promote(hearth, habit.id)
    assert promoted.changes == Changes.of(Domain.HABITS) and promoted.value.status == "active"
    assert habits.list_habits(hearth, "active") == (promoted.value,)
    assert habits.demote(hearth, habit.id).value.status == "candidate"
    assert habits.delete(hearth, habit.id) == Changes.of(Domain.HABITS)
    assert habits.list_habits(hearth) == ()


def test_follow_ups_snooze_resolve_dismiss(hearth: Hearth) -> None:
    dentist, _ = hearth.follow_ups.add("call the dentist")
    plants, _ = hearth.follow_ups.add("water the plants")
    listed = follow_ups.list_follow_ups(hearth, "open")
    assert {item.id for item in listed} == {dentist.id, plants.id}
    assert_plain(listed)

    later = datetime.now(UTC) + timedelta(days=2)
    snoozed = follow_ups.snooze(hearth, dentist.id, later)
    assert snoozed.changes == Changes.of(Domain.FOLLOW_UPS)
    assert snoozed.value.follow_up_at == later

    assert follow_ups.resolve(hearth, dentist.id).value.status == "resolved"
    assert follow_ups.dismiss(hearth, plants.id).value.status == "dismissed"
    assert follow_ups.list_follow_ups(hearth, "open") == ()
    with pytest.raises(InvalidInputError, match="already resolved"):
        follow_ups.dismiss(hearth, dentist.id)
