"""Undo what a dream or a reflection changed, one change or the whole run, by the run's own
record (``core.consolidation.changelog``).

Reverting by record rather than restoring the backup taken before the run keeps everything
that happened since: a chat, a fact the user set, another run. Each undo only touches what
its change names, and only while it is still as the run left it:

* a merge: the summary is retired (invalid, "separated again"), its originals go back to
  the recall tier, and the summary's ``summary_of`` links go (they are the machine's links,
  rebuilt from memories; nothing the user said is in them);
* memories set aside, replaced or contradicted: valid and current again;
* the profile: the version before the run becomes current again as a new version (as
  Restore in the Profile view does), so the undo can itself be undone. If the profile
  changed after the run, the undo is refused rather than dropping that later version from
  the top.

* a fact the reflection added: retired through the facts service (``FactService.retire``);
  one it changed: its earlier value made current again (``FactService.restore``), so the
  fact's history keeps the value the run had set. Only while the fact is as the run left
  it: a fact set again since (by the user or a later run) is kept, and the undo says so;
* follow-ups the reflection noted: dismissed (the Follow-ups view keeps them under
  Dismissed), those the user has not answered yet;
* habits it noticed: deleted, as in the Habits view; habits it saw again: their status,
  count and last sighting as before the run (``HabitService.restore``), unless seen
  again since.

Memories are never physically deleted. Each undo is audited (``run.undo``, with the run and
the change number, not the text); a second undo of the same change changes nothing and says
the change is already undone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core.consolidation.changelog import (
    CONTRADICTED_KIND,
    FACT,
    FOLLOW_UPS,
    HABITS,
    HABITS_SEEN,
    MERGED,
    ABOUT_YOU,
    REPLACED,
    SET_ASIDE,
    Change,
    changes_of,
)
from core.consolidation.merge import EDGE_KIND
from core.consolidation.triage import FORGOTTEN_REASON
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.facts import key_words
from core.knowledge.habits import HabitState
from core.storage.orm import (
    AuditEntry,
    Memory,
    MemoryEdge,
    MemoryTier,
    Run,
    UserFact,
    utcnow,
)

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

UNMERGED_REASON = "Separated again by you: the memories it combined are back on their own."


@dataclass(frozen=True)
class Undone:
    """One change after an undo; ``already``: it had been undone before, so nothing moved."""

    change: Change
    already: bool = False

    @property
    def message(self) -> str:
        return f"{'Already undone' if self.already else 'Undone'}: {self.change.text}"


def undo_change(services: ConsolidationServices, run_id: int, index: int) -> Undone:
    """Undo change ``index`` of run ``run_id``. Undoing it again changes nothing and says it
    is already undone."""
    changes = changes_of(services.storage, run_id).changes
    if not 0 <= index < len(changes):
        raise InvalidInputError(f"Run {run_id} has no change {index + 1}.",
                                f"See its changes with `hearth runs {run_id}`.")
    change = changes[index]
    if not change.undoable:
        raise InvalidInputError(f"“{change.text}” cannot be undone here.",
                                "Change it in its own view (Facts, Follow-ups, Habits).")
    if change.undone:
        return Undone(change, already=True)
    if change.kind in _BY_SERVICE:
        _BY_SERVICE[change.kind](services, change.data)
    with services.storage.write() as session:
        if change.kind in _IN_SESSION:
            _IN_SESSION[change.kind](session, change.data)
        _mark_undone(session, run_id, index)
    return Undone(changes_of(services.storage, run_id).changes[index])


@dataclass(frozen=True)
class RunUndone:
    """What undoing a whole run did: the changes undone, and those kept with why (changed
    since the run)."""

    undone: list[Change]
    kept: list[tuple[Change, str]]


def undo_run(services: ConsolidationServices, run_id: int) -> RunUndone:
    """Undo every change of the run still in effect, newest first. Memory comes back as it
    was before the run: every memory it set aside, replaced, contradicted or combined is
    findable again on its own, and every fact, follow-up and habit it wrote is as before
    unless changed since."""
    undone: list[Change] = []
    kept: list[tuple[Change, str]] = []
    for change in reversed(changes_of(services.storage, run_id).open_changes):
        try:
            undone.append(undo_change(services, run_id, change.index).change)
        except InvalidInputError as exc:
            kept.append((change, exc.message))
    return RunUndone(undone[::-1], kept[::-1])


def _mark_undone(session: Session, run_id: int, index: int) -> None:
    run = session.get(Run, run_id)
    assert run is not None
    entries = [dict(entry) for entry in run.changes]
    entries[index]["undone_at"] = utcnow().isoformat()
    run.changes = entries  # a new list: JSON columns do not track in-place changes
    session.add(AuditEntry(action="run.undo", actor="user",
                           arguments={"run": run_id, "change": index + 1,
                                      "kind": entries[index]["kind"]},
                           result_summary="undone"))


def _unmerge(session: Session, data: dict[str, Any]) -> None:
    summary = session.get(Memory, data["summary"])
    if summary is not None and summary.is_valid:
        summary.is_valid, summary.invalid_reason = False, UNMERGED_REASON
        summary.updated_at = utcnow()
    session.execute(delete(MemoryEdge).where(MemoryEdge.from_id == data["summary"],
                                             MemoryEdge.kind == EDGE_KIND))
    for memory in session.scalars(select(Memory).where(Memory.id.in_(data["originals"]),
                                                       Memory.tier == MemoryTier.SOURCE.value)):
        memory.tier = MemoryTier.RECALL.value
        memory.updated_at = utcnow()


def _keep_again(session: Session, data: dict[str, Any]) -> None:
    for memory in session.scalars(select(Memory).where(
            Memory.id.in_(data["memories"]), Memory.invalid_reason == FORGOTTEN_REASON)):
        memory.is_valid, memory.invalid_reason = True, None
        memory.updated_at = utcnow()


def _unreplace(session: Session, data: dict[str, Any]) -> None:
    memory = session.get(Memory, data["memory"])
    if memory is not None and memory.superseded_by == data["by"]:
        memory.superseded_by = None
        memory.updated_at = utcnow()


def _uncontradict(session: Session, data: dict[str, Any]) -> None:
    memory = session.get(Memory, data["memory"])
    if memory is not None and not memory.is_valid and memory.invalid_reason == data["reason"]:
        memory.is_valid, memory.invalid_reason = True, None
        memory.updated_at = utcnow()


def _undo_about_you(services: ConsolidationServices, data: dict[str, Any]) -> None:
    current = services.about_you.current()
    if current is None or current.id != data["version"]:
        raise InvalidInputError(
            "About you has changed since this run, so it was not put back.",
            "Open About you and restore the version you want from its history.")
    services.about_you.restore(data["before"])


def _undo_fact(services: ConsolidationServices, data: dict[str, Any]) -> None:
    """Retire the fact the run added, or put back the value it replaced."""
    with services.storage.read() as session:
        fact = session.get(UserFact, data["fact"])
        key = fact.key if fact is not None else None
        unchanged = fact is not None and fact.updated_at.isoformat() == data["set_at"]
    if key is None:
        raise InvalidInputError("That fact is no longer there (it was forgotten or removed "
                                "since this run).", "Nothing needed putting back.")
    if not unchanged:
        raise InvalidInputError(
            f"Your {key_words(key)} has been set again since this run, so it was kept.",
            "Change it in Facts, where its history is.")
    if "previous" in data:
        try:
            services.facts.restore(key, data["previous"])
        except NotFoundError as exc:  # its history was forgotten since
            raise InvalidInputError(exc.message, "Change it in Facts.") from exc
    else:
        services.facts.retire(key)


def _dismiss_follow_ups(services: ConsolidationServices, data: dict[str, Any]) -> None:
    """Dismiss the run's follow-ups the user has not answered (they stay under Dismissed)."""
    still_open = [item.id for item in services.follow_ups.list("open")
                  if item.id in set(data["follow_ups"])]
    if not still_open:
        raise InvalidInputError("You have answered these follow-ups since this run, so "
                                "they were kept as you left them.",
                                "See them in Follow-ups.")
    for follow_up_id in still_open:
        services.follow_ups.dismiss(follow_up_id)


def _drop_habits(services: ConsolidationServices, data: dict[str, Any]) -> None:
    """Delete the habits the run noticed, those not seen again since."""
    for habit_id in _as_run_left(services, data["habits"]):
        services.habits.delete(habit_id)


def _unsee_habits(services: ConsolidationServices, data: dict[str, Any]) -> None:
    """Put the habits the run saw again back as they were before it."""
    states = {state["id"]: state for state in data["habits"]}
    for habit_id in _as_run_left(services, data["habits"], key="set_last_seen"):
        state = states[habit_id]
        services.habits.restore(habit_id, HabitState(
            state["status"], state["recurrence_count"],
            datetime.fromisoformat(state["last_seen"])))


def _as_run_left(services: ConsolidationServices, habits: list[dict[str, Any]],
                 key: str = "last_seen") -> list[int]:
    """The ids of ``habits`` last seen when the run saw them (``key``: that time); a habit
    deleted or seen again since is left alone, and if that is every one, the undo says so."""
    current = {item.id: item.last_seen.isoformat() for item in services.habits.list()}
    ids = [habit["id"] for habit in habits if current.get(habit["id"]) == habit[key]]
    if not ids:
        raise InvalidInputError("These habits were seen again or removed since this run, "
                                "so they were kept as they are.", "See them in Habits.")
    return ids


_IN_SESSION: dict[str, Callable[[Session, dict[str, Any]], None]] = {
    MERGED: _unmerge, SET_ASIDE: _keep_again, REPLACED: _unreplace,
    CONTRADICTED_KIND: _uncontradict}
_BY_SERVICE: dict[str, Callable[[ConsolidationServices, dict[str, Any]], None]] = {
    ABOUT_YOU: _undo_about_you, FACT: _undo_fact, FOLLOW_UPS: _dismiss_follow_ups,
    HABITS: _drop_habits, HABITS_SEEN: _unsee_habits}
