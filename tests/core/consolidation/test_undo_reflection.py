"""Undoing what a reflection wrote: the facts it added or changed, the follow-ups it noted
and the habits it noticed or saw again come back as they were, through their own services
(a fact's history keeps the value the run had set); a second undo says it is already
undone, and something changed since the run is kept."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from sqlalchemy import select
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.consolidation import changelog, undo
from core.consolidation.reflection import ReflectionEngine
from core.errors import InvalidInputError
from core.storage.orm import AuditEntry, Interaction, utcnow

RULE = "always confirm before deleting anything"


def answer(facts: object = (), follow_ups: object = (), habits: object = ()) -> str:
    return (f"---PROFILE---\n(keep)\n---FACTS---\n{json.dumps(list(facts))}\n"
            f"---INTENTIONS---\n{json.dumps(list(follow_ups))}\n"
            f"---LEARNINGS---\n{json.dumps(list(habits))}\n")


def reflect(hearth: Hearth, reply: str) -> changelog.RunChanges:
    """A reflection on a chat of the last hour, at the real time (so the changelog's time
    window holds what it wrote)."""
    with hearth.storage.write() as session:
        session.add(Interaction(user_message="Talking about my week.", agent_response="Noted.",
                                created_at=utcnow() - timedelta(hours=1)))
    report = ReflectionEngine(hearth.consolidation(), ScriptedLLM([reply])).run()
    return changelog.changes_of(hearth.storage, report.run_id)


def only(run: changelog.RunChanges, kind: str) -> changelog.Change:
    (change,) = [change for change in run.changes if change.kind == kind]
    return change


def test_a_fact_the_reflection_added_is_retired_once(hearth) -> None:
    run = reflect(hearth, answer(facts=[{"key": "locker_code", "value": "4471"}]))
    fact = only(run, "fact")
    assert fact.undoable and fact.text == "Learned that your locker code is “4471”"

    done = undo.undo_change(hearth.consolidation(), run.run_id, fact.index)
    assert done.message == "Undone: Learned that your locker code is “4471”"
    assert hearth.facts.get("locker_code") is None
    assert hearth.facts.search("4471") == []
    again = undo.undo_change(hearth.consolidation(), run.run_id, fact.index)
    assert again.already and again.message.startswith("Already undone: ")
    with hearth.storage.read() as session:
        actions = list(session.scalars(select(AuditEntry.action).where(
            AuditEntry.action.in_(["fact.retire", "run.undo"]))))
    assert actions == ["fact.retire", "run.undo"]  # the second undo changed nothing


def test_a_fact_the_reflection_changed_gets_its_value_back_and_keeps_the_history(
        hearth) -> None:
    hearth.facts.remember("home_city", "Lisbon", category="location", source="chat")
    run = reflect(hearth, answer(facts=[{"key": "home_city", "value": "Porto",
                                         "category": "location"}]))
    fact = only(run, "fact")
    assert fact.text == "Changed your home city from “Lisbon” to “Porto”"
    assert hearth.facts.get("home_city").value == "Porto"

    undo.undo_change(hearth.consolidation(), run.run_id, fact.index)
    restored = hearth.facts.get("home_city")
    assert (restored.value, restored.source, restored.category) == ("Lisbon", "chat", "location")
    assert [entry.value for entry in hearth.facts.history("home_city")] == ["Lisbon", "Porto"]
    assert undo.undo_change(hearth.consolidation(), run.run_id, fact.index).already
    assert hearth.facts.get("home_city").value == "Lisbon"


def test_a_fact_set_again_since_the_run_is_kept(hearth) -> None:
    run = reflect(hearth, answer(facts=[{"key": "employer", "value": "Acme"}]))
    hearth.facts.remember("employer", "Globex")
    with pytest.raises(InvalidInputError, match="set again since this run"):
        undo.undo_change(hearth.consolidation(), run.run_id, only(run, "fact").index)
    assert hearth.facts.get("employer").value == "Globex"
    assert not changelog.changes_of(hearth.storage, run.run_id).changes[0].undone


def test_follow_ups_the_reflection_noted_are_dismissed_unless_answered(hearth) -> None:
    run = reflect(hearth, answer(follow_ups=[
        {"text": "Call the dentist", "follow_up_days": 2},
        {"text": "Renew the passport", "follow_up_days": 5}]))
    follow_ups = only(run, "follow_ups")
    assert follow_ups.undoable
    dentist, passport = sorted(hearth.follow_ups.list("open"), key=lambda item: item.text)
    hearth.follow_ups.resolve(dentist.id)  # the user answered this one since

    undo.undo_change(hearth.consolidation(), run.run_id, follow_ups.index)
    assert hearth.follow_ups.list("open") == []
    assert hearth.follow_ups.get(passport.id).status == "dismissed"
    assert hearth.follow_ups.get(dentist.id).status == "resolved"  # the answer is kept
    assert undo.undo_change(hearth.consolidation(), run.run_id, follow_ups.index).already


def test_habits_noticed_go_and_habits_seen_again_are_as_before(hearth) -> None:
    first = reflect(hearth, answer(habits=[{"rule": RULE, "category": "style"}]))
    second = reflect(hearth, answer(habits=[{"rule": RULE, "category": "style"}]))
    [habit] = hearth.habits.list()
    assert (habit.status, habit.recurrence_count) == ("active", 2)
    seen = only(second, "habits_seen")
    assert seen.text == (f"Saw 1 habit again: “{RULE}”; now follows “{RULE}” in every chat")

    undo.undo_change(hearth.consolidation(), second.run_id, seen.index)
    [habit] = hearth.habits.list()
    assert (habit.status, habit.recurrence_count) == ("candidate", 1)
    assert hearth.habits.active() == []
    assert undo.undo_change(hearth.consolidation(), second.run_id, seen.index).already

    noticed = only(first, "habits")
    assert noticed.text == f"Noticed 1 new habit: “{RULE}”"
    undo.undo_change(hearth.consolidation(), first.run_id, noticed.index)
    assert hearth.habits.list() == []


def test_a_habit_seen_again_since_the_run_is_kept(hearth) -> None:
    first = reflect(hearth, answer(habits=[{"rule": RULE}]))
    reflect(hearth, answer(habits=[{"rule": RULE}]))
    with pytest.raises(InvalidInputError, match="seen again or removed since"):
        undo.undo_change(hearth.consolidation(), first.run_id, only(first, "habits").index)
    assert [item.rule for item in hearth.habits.active()] == [RULE]


def test_undoing_a_whole_reflection_puts_everything_back_once(hearth) -> None:
    hearth.facts.remember("home_city", "Lisbon", source="chat")  # not protected
    run = reflect(hearth, answer(
        facts=[{"key": "home_city", "value": "Porto"}, {"key": "pet_name", "value": "Miso"}],
        follow_ups=[{"text": "Book the vet", "follow_up_days": 3}],
        habits=[{"rule": RULE}]))
    result = undo.undo_run(hearth.consolidation(), run.run_id)
    assert sorted(change.kind for change in result.undone) == [
        "fact", "fact", "follow_ups", "habits"]
    assert result.kept == []
    assert hearth.facts.get("home_city").value == "Lisbon"
    assert hearth.facts.get("pet_name") is None
    assert hearth.follow_ups.list("open") == [] and hearth.habits.list() == []
    assert undo.undo_run(hearth.consolidation(), run.run_id).undone == []
