"""The user's scaffold edits: a new version on change, none without one, and the processor's
bounds enforced on what the user writes too."""

from __future__ import annotations

import pytest

from core.consolidation.processor import current_notes_about_you
from core.knowledge.notes_about_you import NOTES_ABOUT_YOU_MAX_DEPTH, NOTES_ABOUT_YOU_MAX_KEYS
from core.errors import InvalidInputError
from core.knowledge.notes_about_you import current_version, save_notes_about_you
from core.storage.orm import AuditEntry, NotesAboutYouVersion


def _versions(storage) -> list[NotesAboutYouVersion]:
    with storage.read() as session:
        return list(session.query(NotesAboutYouVersion).order_by(NotesAboutYouVersion.id))


def test_save_adds_a_version_that_becomes_current(storage) -> None:
    assert current_version(storage) is None
    first = save_notes_about_you(storage, {"Family": {"sister": "Rita"}}, "processor")
    second = save_notes_about_you(storage, {"Family": {"sister": "Rita", "partner": "Ana"}}, "user")
    assert second.id > first.id and second.source == "user"
    assert current_notes_about_you(storage) == {"Family": {"sister": "Rita", "partner": "Ana"}}
    newest = current_version(storage)
    assert newest is not None and newest.id == second.id and newest.source == "user"
    with storage.read() as session:
        audit = session.query(AuditEntry).filter_by(action="notes_about_you.save").all()
    assert [entry.arguments["version_id"] for entry in audit] == [first.id, second.id]


def test_saving_the_current_data_writes_nothing(storage) -> None:
    first = save_notes_about_you(storage, {"Running": {"weekly_km": 25}}, "user")
    again = save_notes_about_you(storage, {"Running": {"weekly_km": 25}}, "user")
    assert again.id == first.id
    assert len(_versions(storage)) == 1


@pytest.mark.parametrize(("data", "words"), [
    (["not", "an", "object"], "JSON object"),
    ({f"k{n}": n for n in range(NOTES_ABOUT_YOU_MAX_KEYS + 1)}, "top-level keys"),
    ({"a": {"b": {"c": {"d": {"e": 1}}}}}, "levels deep"),
    ({"notes": "x" * 7000}, "characters long"),
    ({"Family": {"  ": "Rita"}}, "blank"),
])
def test_out_of_bounds_scaffolds_are_refused_and_nothing_is_written(
        storage, data, words) -> None:
    save_notes_about_you(storage, {"kept": True}, "processor")
    with pytest.raises(InvalidInputError, match=words):
        save_notes_about_you(storage, data, "user")
    assert current_notes_about_you(storage) == {"kept": True}
    assert len(_versions(storage)) == 1


def test_depth_limit_matches_the_processor(storage) -> None:
    data: dict = {"leaf": 1}
    for level in range(NOTES_ABOUT_YOU_MAX_DEPTH - 1):
        data = {f"level{level}": data}
    assert save_notes_about_you(storage, data, "user").data == data


def test_a_source_is_required(storage) -> None:
    with pytest.raises(InvalidInputError, match="source"):
        save_notes_about_you(storage, {"a": 1}, "  ")
