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

Nothing is physically deleted. Each undo is audited (``run.undo``, with the run and the
change number, not the text).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core.consolidation.changelog import (
    CONTRADICTED_KIND,
    MERGED,
    PROFILE,
    REPLACED,
    SET_ASIDE,
    Change,
    changes_of,
)
from core.consolidation.merge import EDGE_KIND
from core.consolidation.triage import FORGOTTEN_REASON
from core.errors import InvalidInputError
from core.knowledge.profile import ProfileService
from core.storage.orm import AuditEntry, Memory, MemoryEdge, MemoryTier, Run, utcnow

if TYPE_CHECKING:
    from core.storage.port import StoragePort

UNMERGED_REASON = "Separated again by you: the memories it combined are back on their own."


def undo_change(storage: StoragePort, run_id: int, index: int) -> Change:
    """Undo change ``index`` of run ``run_id``; returns it marked undone."""
    changes = changes_of(storage, run_id).changes
    if not 0 <= index < len(changes):
        raise InvalidInputError(f"Run {run_id} has no change {index + 1}.",
                                f"See its changes with `hearth runs {run_id}`.")
    change = changes[index]
    if not change.undoable:
        raise InvalidInputError(f"“{change.text}” cannot be undone here.",
                                "Change it in its own view (Facts, Follow-ups, Habits).")
    if change.undone:
        return change
    if change.kind == PROFILE:
        _undo_profile(storage, change)
    with storage.write() as session:
        if change.kind != PROFILE:
            _UNDO[change.kind](session, change.data)
        _mark_undone(session, run_id, index)
    return changes_of(storage, run_id).changes[index]


@dataclass(frozen=True)
class RunUndone:
    """What undoing a whole run did: the changes undone, and those kept with why (the
    profile changed since the run)."""

    undone: list[Change]
    kept: list[tuple[Change, str]]


def undo_run(storage: StoragePort, run_id: int) -> RunUndone:
    """Undo every change of the run still in effect, newest first. Memory comes back as it
    was before the run: every memory it set aside, replaced, contradicted or combined is
    findable again on its own."""
    undone: list[Change] = []
    kept: list[tuple[Change, str]] = []
    for change in reversed(changes_of(storage, run_id).open_changes):
        try:
            undone.append(undo_change(storage, run_id, change.index))
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


def _undo_profile(storage: StoragePort, change: Change) -> None:
    profiles = ProfileService(storage)
    current = profiles.current()
    if current is None or current.id != change.data["version"]:
        raise InvalidInputError(
            "Your profile has changed since this run, so it was not put back.",
            "Open About you and restore the version you want from its history.")
    profiles.restore(change.data["before"])


_UNDO = {MERGED: _unmerge, SET_ASIDE: _keep_again, REPLACED: _unreplace,
         CONTRADICTED_KIND: _uncontradict}
