"""A dream you can review: a real dream on a prepared data folder records a plain-language
changelog naming what it merged, set aside and rewrote; each change can be undone, and so
can the whole night, by the run's own record (what happened since is kept)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select
from support.dream_folder import (
    MARATHON,
    PROFILE_BEFORE,
    SUMMARY,
    dreaming_model,
    merge_line,
    prepare,
)
from support.scripted_llm import ScriptedLLM
from typer.testing import CliRunner

from core.app import Hearth
from cli.main import app
from core.consolidation import changelog, undo
from core.consolidation.dream import DreamCycle
from core.consolidation.reflection import ReflectionEngine
from core.errors import InvalidInputError
from core.learning.events import add_event
from core.knowledge.memories import MemorySpec
from core.recall import RecallQuery
from core.storage.orm import AuditEntry, Memory


def states(hearth: Hearth) -> dict[int, tuple[bool, int | None, str]]:
    with hearth.storage.read() as session:
        return {m.id: (m.is_valid, m.superseded_by, m.tier)
                for m in session.scalars(select(Memory))}


def found(hearth: Hearth, text: str) -> bool:
    """The memory with this text comes back, valid and current, when asked for in its own
    words."""
    return any(result.text == text for result in hearth.recall.recall(RecallQuery(text)))


def dream(hearth: Hearth) -> changelog.RunChanges:
    report = DreamCycle(hearth.consolidation(), dreaming_model()).run()
    assert report.status in ("done", "partial")
    assert [change.text for change in report.changes] == \
        [change.text for change in changelog.changes_of(hearth.storage, report.run_id).changes]
    return changelog.changes_of(hearth.storage, report.run_id)


def by_kind(run: changelog.RunChanges, kind: str) -> changelog.Change:
    (change,) = [change for change in run.changes if change.kind == kind]
    return change


def test_a_dreams_changelog_names_its_merge_and_what_else_it_changed(hearth) -> None:
    ids = prepare(hearth)
    run = dream(hearth)
    texts = [change.text for change in run.changes]
    merged = by_kind(run, "merged")
    assert merged.text == merge_line(ids["marathon"])  # which memories, by id and excerpt
    assert sorted(merged.data["originals"]) == sorted(ids["marathon"])
    assert by_kind(run, "set_aside").text == \
        "Set aside 1 new note as not worth keeping, such as “Hello there!”"
    assert by_kind(run, "about_you").text == "Changed the Goals & Values section of About you"
    assert any(text.startswith("Added ") and text.endswith(" links between related memories")
               for text in texts)
    assert "Forgot nothing: every memory is still there." not in texts  # one was set aside
    assert [change.undoable for change in run.changes[:3]] == [True, True, True]
    assert not run.reviewed and [r.run_id for r in changelog.unreviewed(hearth.storage)] \
        == [run.run_id]
    changelog.mark_reviewed(hearth.storage, [run.run_id])
    assert changelog.unreviewed(hearth.storage) == []


def test_undoing_one_change_restores_just_those_memories(hearth) -> None:
    ids = prepare(hearth)
    run = dream(hearth)
    merged, set_aside = by_kind(run, "merged"), by_kind(run, "set_aside")
    assert not hearth.memories.get(ids["greeting"]).is_valid

    undone = undo.undo_change(hearth.consolidation(), run.run_id, set_aside.index)
    assert undone.change.undone and hearth.memories.get(ids["greeting"]).is_valid
    assert all(hearth.memories.get(i).tier == "source" for i in ids["marathon"])  # untouched

    undo.undo_change(hearth.consolidation(), run.run_id, merged.index)
    assert all(hearth.memories.get(i).tier == "recall" for i in ids["marathon"])
    summary = hearth.memories.get(merged.data["summary"])
    assert not summary.is_valid and summary.invalid_reason == undo.UNMERGED_REASON
    assert all(found(hearth, text) for text in MARATHON)
    assert not found(hearth, SUMMARY)
    again = changelog.changes_of(hearth.storage, run.run_id)
    assert [c.undone for c in again.changes if c.undoable] == [True, True, False]
    with hearth.storage.read() as session:
        audits = session.scalars(select(AuditEntry).where(AuditEntry.action == "run.undo"))
        assert [a.arguments["kind"] for a in audits] == ["set_aside", "merged"]


def test_undoing_the_whole_night_brings_memory_back_and_keeps_what_came_after(
        hearth) -> None:
    prepare(hearth)
    before = states(hearth)
    run = dream(hearth)
    assert states(hearth) != before
    said_since = hearth.memories.add("The race is on the 12th of May.", source="user")

    result = undo.undo_run(hearth.consolidation(), run.run_id)
    assert [change.kind for change in result.undone] == ["merged", "set_aside", "about_you"]
    assert result.kept == []
    after = states(hearth)
    assert {i: after[i] for i in before} == before      # every memory as before the night
    assert after[said_since.id] == (True, None, "recall")  # what was said since stays
    with hearth.storage.read() as session:
        texts = list(session.scalars(select(Memory.content).where(Memory.is_valid)))
    assert all(found(hearth, text) for text in texts if text != "Hello there!")
    assert hearth.about_you.current().content == PROFILE_BEFORE
    assert hearth.about_you.current().source == "restore"   # a new version: undo can be undone
    assert undo.undo_run(hearth.consolidation(), run.run_id).undone == []  # nothing left to undo


def test_a_profile_changed_since_the_run_is_not_put_back(hearth) -> None:
    prepare(hearth)
    run = dream(hearth)
    hearth.about_you.save(PROFILE_BEFORE + "\nTrains on Sundays.", "user")
    profile = by_kind(run, "about_you")
    with pytest.raises(InvalidInputError, match="changed since this run"):
        undo.undo_change(hearth.consolidation(), run.run_id, profile.index)
    result = undo.undo_run(hearth.consolidation(), run.run_id)
    assert [c.kind for c in result.undone] == ["merged", "set_aside"]
    assert [c.kind for c, _why in result.kept] == ["about_you"]
    assert hearth.about_you.current().content.endswith("Trains on Sundays.")


def test_hearth_runs_shows_a_changelog_and_undoes_by_number(hearth, isolated_home) -> None:
    ids = prepare(hearth)
    run = dream(hearth)
    hearth.close()
    runner = CliRunner()
    shown = runner.invoke(app, ["runs", str(run.run_id)])
    assert shown.exit_code == 0, shown.output
    assert "1. Combined 3 memories about marathon training" in shown.output
    listed = json.loads(runner.invoke(app, ["runs", str(run.run_id), "--json"]).output)
    assert listed["changes"][0]["kind"] == "merged"
    number = 1 + by_kind(run, "set_aside").index
    undone = runner.invoke(app, ["runs", str(run.run_id), "--undo", "--change", str(number)])
    assert undone.exit_code == 0, undone.output
    assert "Undone: Set aside 1 new note" in undone.output
    whole = runner.invoke(app, ["runs", str(run.run_id), "--undo"])
    assert whole.exit_code == 0 and "Undone 2 changes" in whole.output
    with Hearth.open(isolated_home) as reopened:
        assert reopened.memories.get(ids["greeting"]).is_valid
        assert all(reopened.memories.get(i).tier == "recall" for i in ids["marathon"])


def test_a_reflections_changelog_names_the_fact_and_forgetting_it_scrubs_the_log(
        hearth) -> None:
    """The changelog quotes what was learned, so a forget must reach it too."""
    prepare(hearth)
    reflection = ("---PROFILE---\n(keep)\n---FACTS---\n"
                  '[{"key": "locker_code", "value": "4471", "category": "general"}]\n'
                  "---INTENTIONS---\n[]\n---LEARNINGS---\n[]\n")
    report = ReflectionEngine(hearth.consolidation(), ScriptedLLM([reflection])).run()
    run = changelog.changes_of(hearth.storage, report.run_id)
    assert [c.text for c in run.changes] == ["Learned that your locker code is “4471”"]
    assert run.changes[0].undoable and "4471" not in json.dumps(run.changes[0].data)
    hearth.forgetting.forget("locker_code")
    (text,) = [c.text for c in changelog.changes_of(hearth.storage, report.run_id).changes]
    assert "4471" not in text
    with pytest.raises(InvalidInputError, match="no longer there"):
        undo.undo_change(hearth.consolidation(), report.run_id, 0)


SISTER, SISTER_NOW = "User's sister Maria lives in Madrid.", \
    "User's sister Maria lives in Madrid with her husband."
ALLERGY, NO_ALLERGY = "User is allergic to penicillin.", "User is not allergic to penicillin."


def processing_model(kind: str, messages: Any, extra: dict[str, Any]) -> str:
    """The processor learns two sentences; deduplication updates one memory and
    contradicts the other."""
    fields = extra["schema"].get("properties", {})
    if "updated_scaffold" in fields:
        return json.dumps({"updated_scaffold": {}, "updated_working_memory": "",
                           "facts_to_embed": [SISTER_NOW, NO_ALLERGY]})
    if "Madrid" in messages[-1].content:
        return json.dumps({"action": "UPDATE", "target": 1, "reason": "more detail"})
    return json.dumps({"action": "DELETE", "target": 1, "reason": "the user corrected it"})


def test_memories_replaced_or_contradicted_in_the_night_are_listed_and_come_back(
        hearth) -> None:
    sister = hearth.memories.add(SISTER).id
    allergy = hearth.memories.add(ALLERGY).id
    add_event(hearth.storage, "observation", "Maria married; I am not allergic after all.", {})
    report = DreamCycle(hearth.consolidation(), ScriptedLLM(processing_model)).run(only="process")
    run = changelog.changes_of(hearth.storage, report.run_id)
    replaced, contradicted = by_kind(run, "replaced"), by_kind(run, "contradicted")
    assert replaced.text == f"Replaced “{SISTER}” with “{SISTER_NOW}”"
    assert contradicted.text == f"Stopped believing “{ALLERGY}”, because of “{NO_ALLERGY}”"
    assert not found(hearth, SISTER) and not found(hearth, ALLERGY)

    undo.undo_change(hearth.consolidation(), run.run_id, replaced.index)
    undo.undo_change(hearth.consolidation(), run.run_id, contradicted.index)
    assert hearth.memories.get(sister).superseded_by is None
    assert hearth.memories.get(allergy).is_valid
    assert found(hearth, SISTER) and found(hearth, ALLERGY)


def test_a_night_that_only_linked_memories_does_not_ask_for_a_review(hearth) -> None:
    hearth.memories.add_many([MemorySpec(text) for text in MARATHON])
    report = DreamCycle(hearth.consolidation(), dreaming_model()).run(only="link")
    texts = [c.text for c in changelog.changes_of(hearth.storage, report.run_id).changes]
    assert texts == ["Added 6 links between related memories",
                     "Forgot nothing: every memory is still there."]
    assert changelog.unreviewed(hearth.storage) == []
