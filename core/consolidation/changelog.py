"""A dream you can review: what a dream or a reflection changed, in plain words, stored with
its run (``runs.changes``) so the window can show it ("While you were away…", Activity) and
each change can be undone (``core.consolidation.undo``).

The changelog is built when the run ends, from the records the stages already keep, not
from a guess: merge summaries (source ``merge``, ``origin.merged`` naming the originals),
memories set aside by triage (their ``invalid_reason``), memories replaced or contradicted
by one learned during the run (``superseded_by`` / "Contradicted by memory N"), the profile
version the run's reflection saved (``run_id``), the facts, follow-ups and habits a
reflection wrote (their source and times), and the link counts of the run's stages. Changes
are found by the run's time window and by who alone writes them (only the dream merges and
triages, and one dream or reflection runs at a time under the dream lock); each entry keeps
the ids its undo needs, so undoing is by record, never by restoring a file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.consolidation.triage import FORGOTTEN_REASON
from core.consolidation.wording import plural, run_kind
from core.llm.token_estimates import clip
from core.errors import NotFoundError
from core.knowledge.facts import key_words
from core.storage.orm import (
    Habit,
    FactHistory,
    Memory,
    FollowUp,
    AboutYouVersion,
    Run,
    UserFact,
    utcnow,
)
from core.storage.port import StoragePort

REVIEWED_KINDS = ("dream", "reflection")
"""Runs that get a changelog: the ones that reshape memory while the user is away."""

QUOTE_CHARS = 90
EXCERPT_CHARS = 40
"""Of each original a merge line names: enough to recognise it, short enough for five."""
CONTRADICTED = re.compile(r"^Contradicted by memory (\d+):")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$")

MERGED, SET_ASIDE, REPLACED, CONTRADICTED_KIND, ABOUT_YOU = (
    "merged", "set_aside", "replaced", "contradicted", "about_you")
FACT, FOLLOW_UPS, HABITS, HABITS_SEEN = "fact", "follow_ups", "habits", "habits_seen"
UNDOABLE = frozenset({MERGED, SET_ASIDE, REPLACED, CONTRADICTED_KIND, ABOUT_YOU, FACT,
                      FOLLOW_UPS, HABITS, HABITS_SEEN})
ROUTINE = frozenset({"links", "nothing_forgotten"})
"""Lines every night has: listed, but not a reason to open "While you were away…"."""


@dataclass(frozen=True)
class Change:
    """One line of a run's changelog. ``undoable`` changes carry what undoing needs in
    ``data``; an undone one keeps its line, marked ``undone``."""

    index: int
    kind: str
    text: str
    undoable: bool
    undone: bool
    data: dict[str, Any]


@dataclass(frozen=True)
class RunChanges:
    """A run with its changelog, as the window and `hearth runs ID` show it."""

    run_id: int
    kind: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    reviewed: bool
    changes: list[Change]

    @property
    def title(self) -> str:
        """``Dream of Tue 24 Nov, 02:00`` (local time)."""
        return f"{run_kind(self.kind)} of {self.started_at.astimezone():%a %d %b, %H:%M}"

    @property
    def open_changes(self) -> list[Change]:
        return [change for change in self.changes if change.undoable and not change.undone]


# --- reading -----------------------------------------------------------------------------


def changes_of(storage: StoragePort, run_id: int) -> RunChanges:
    """The run's changelog (empty for runs before this version or of other kinds)."""
    with storage.read() as session:
        run = session.get(Run, run_id)
        if run is None:
            raise NotFoundError(f"There is no run {run_id}.",
                                "List the runs with `hearth runs`.")
        return _view(run)


def unreviewed(storage: StoragePort) -> list[RunChanges]:
    """Finished dreams and reflections whose changelog the window has not shown yet and
    that changed something worth a look, oldest first. A night that only linked memories
    and forgot nothing stays in Activity without opening a dialog every morning."""
    with storage.read() as session:
        runs = session.scalars(select(Run).where(
            Run.kind.in_(REVIEWED_KINDS), Run.reviewed_at.is_(None),
            Run.finished_at.is_not(None)).order_by(Run.id)).all()
        return [_view(run) for run in runs
                if any(entry["kind"] not in ROUTINE for entry in run.changes or [])]


def mark_reviewed(storage: StoragePort, run_ids: list[int]) -> None:
    """The window has shown these runs' changelogs: not again at the next start."""
    if not run_ids:
        return
    with storage.write() as session:
        for run in session.scalars(select(Run).where(Run.id.in_(run_ids))):
            run.reviewed_at = run.reviewed_at or utcnow()


def _view(run: Run) -> RunChanges:
    changes = [Change(index=index, kind=entry["kind"], text=entry["text"],
                      undoable=entry["kind"] in UNDOABLE and bool(entry.get("data")),
                      undone=entry.get("undone_at") is not None,
                      data=dict(entry.get("data") or {}))
               for index, entry in enumerate(run.changes or [])]
    return RunChanges(run.id, run.kind, run.status, run.started_at, run.finished_at,
                      run.reviewed_at is not None, changes)


# --- building ----------------------------------------------------------------------------


def record(storage: StoragePort, run_id: int) -> RunChanges:
    """Build the finished run's changelog from the records and store it with the run."""
    with storage.write() as session:
        run = session.get(Run, run_id)
        assert run is not None
        start, end = run.started_at, run.finished_at or utcnow()
        entries: list[dict[str, Any]] = []
        if run.kind == "dream":
            entries += _memory_changes(session, start, end)
        reflection_id = _reflection_run(run)
        entries += _profile_change(session, reflection_id)
        entries += _reflection_changes(session, start, end)
        entries += _habits_seen(session, reflection_id)
        if run.kind == "dream":
            entries += _link_changes(run.stages or {})
            if not any(entry["kind"] in (SET_ASIDE, CONTRADICTED_KIND) for entry in entries):
                entries.append(_entry("nothing_forgotten",
                                      "Forgot nothing: every memory is still there."))
        run.changes = entries
        return _view(run)


def _entry(kind: str, text: str, **data: Any) -> dict[str, Any]:
    return {"kind": kind, "text": text, "data": data, "undone_at": None}


def _quote(text: str) -> str:
    return f"“{clip(' '.join(text.split()), QUOTE_CHARS)}”"


def _memory_changes(session: Session, start: datetime, end: datetime) -> list[dict[str, Any]]:
    new = {memory.id: memory for memory in session.scalars(select(Memory).where(
        Memory.learned_at >= start, Memory.learned_at <= end))}
    entries = [_merge_entry(session, summary) for summary in new.values()
               if summary.source == "merge" and (summary.origin or {}).get("merged")]
    set_aside = session.scalars(select(Memory).where(
        Memory.invalid_reason == FORGOTTEN_REASON, Memory.updated_at >= start,
        Memory.updated_at <= end).order_by(Memory.id)).all()
    if set_aside:
        examples = "; ".join(_quote(memory.content) for memory in set_aside[:2])
        entries.append(_entry(
            SET_ASIDE, f"Set aside {plural(len(set_aside), 'new note')} as not worth "
                       f"keeping, such as {examples}",
            memories=[memory.id for memory in set_aside]))
    if new:
        for old in session.scalars(select(Memory).where(
                Memory.superseded_by.in_(list(new))).order_by(Memory.id)):
            entries.append(_entry(
                REPLACED, f"Replaced {_quote(old.content)} with "
                          f"{_quote(new[old.superseded_by].content)}",  # type: ignore[index]  # matched in new
                memory=old.id, by=old.superseded_by))
        for old in session.scalars(select(Memory).where(
                Memory.is_valid.is_(False),
                Memory.invalid_reason.like("Contradicted by memory %"),
                Memory.updated_at >= start).order_by(Memory.id)):
            match = CONTRADICTED.match(old.invalid_reason or "")
            if match and int(match.group(1)) in new:
                entries.append(_entry(
                    CONTRADICTED_KIND,
                    f"Stopped believing {_quote(old.content)}, because of "
                    f"{_quote(new[int(match.group(1))].content)}",
                    memory=old.id, reason=old.invalid_reason))
    return entries


def _merge_entry(session: Session, summary: Memory) -> dict[str, Any]:
    """The summary and which memories it combined: each original's id and the start of
    its text, so the line can be checked against what was folded."""
    originals = list(summary.origin["merged"])  # type: ignore[index]  # a merge has one
    topics = (summary.entities or {}).get("topics") or []
    about = f" about {' and '.join(topics[:2])}" if topics else ""
    texts = dict(session.execute(select(Memory.id, Memory.content)
                                 .where(Memory.id.in_(originals))).all())
    combined = ", ".join(f"#{memory_id} {_excerpt(texts[memory_id])}"
                         for memory_id in originals if memory_id in texts)
    return _entry(MERGED, f"Combined {plural(len(originals), 'memory')}{about} into one "
                          f"summary: {_quote(summary.content)}, from {combined}",
                  summary=summary.id, originals=originals)


def _excerpt(text: str) -> str:
    return f"“{clip(' '.join(text.split()), EXCERPT_CHARS)}”"


def _reflection_run(run: Run) -> int | None:
    """The reflection whose profile version belongs to this run: itself, or a dream's
    ``reflect`` stage's own run."""
    if run.kind == "reflection":
        return run.id
    reflect = (run.stages or {}).get("reflect", {})
    counts = reflect.get("counts", {})
    return counts.get("run_id") if "resumed_from" not in counts else None


def _profile_change(session: Session, reflection_id: int | None) -> list[dict[str, Any]]:
    if reflection_id is None:
        return []
    saved = session.scalars(select(AboutYouVersion).where(
        AboutYouVersion.run_id == reflection_id).order_by(AboutYouVersion.id.desc())).first()
    if saved is None:
        return []
    before = session.scalars(select(AboutYouVersion).where(AboutYouVersion.id < saved.id)
                             .order_by(AboutYouVersion.id.desc())).first()
    if before is None:
        return [_entry(ABOUT_YOU, "Wrote the first version of About you")]
    sections = changed_sections(before.content, saved.content)
    if not sections:
        text = "Reworded About you"
    elif len(sections) == 1:
        text = f"Changed the {sections[0]} section of About you"
    else:
        text = (f"Changed the {', '.join(sections[:-1])} and {sections[-1]} sections "
                "of About you")
    return [_entry(ABOUT_YOU, text, version=saved.id, before=before.id)]


def changed_sections(before: str, after: str) -> list[str]:
    """The headings of the sections whose text differs (added or removed ones too), in the
    new profile's order."""
    old, new = _sections(before), _sections(after)
    names = list(new) + [name for name in old if name not in new]
    return [name for name in names if old.get(name) != new.get(name) and name]


def _sections(text: str) -> dict[str, str]:
    sections: dict[str, list[str]] = {}
    name = ""
    for line in text.splitlines():
        heading = HEADING.match(line.strip())
        if heading:
            name = heading.group(1)
            sections.setdefault(name, [])
        elif line.strip():
            sections.setdefault(name, []).append(" ".join(line.split()))
    return {key: "\n".join(lines) for key, lines in sections.items()}


def _reflection_changes(session: Session, start: datetime,
                        end: datetime) -> list[dict[str, Any]]:
    """Facts, follow-ups and habits a reflection wrote. Each entry keeps ids and the time
    the run set the fact (never a value: a forget must not have more copies to find), so
    undoing can tell whether it is still as the run left it."""
    entries: list[dict[str, Any]] = []
    for fact in session.scalars(select(UserFact).where(
            UserFact.source == "reflection", UserFact.created_at >= start,
            UserFact.created_at <= end).order_by(UserFact.id)):
        entries.append(_entry(FACT, f"Learned that your {key_words(fact.key)} is "
                                    f"{_quote(fact.value)}",
                              fact=fact.id, set_at=fact.updated_at.isoformat()))
    for old, fact in session.execute(select(FactHistory, UserFact).join(
            UserFact, FactHistory.fact_id == UserFact.id).where(
            UserFact.source == "reflection", FactHistory.replaced_at >= start,
            FactHistory.replaced_at <= end).order_by(FactHistory.id)).all():
        entries.append(_entry(FACT, f"Changed your {key_words(fact.key)} from "
                                    f"{_quote(old.value)} to {_quote(fact.value)}",
                              fact=fact.id, previous=old.id,
                              set_at=fact.updated_at.isoformat()))
    follow_ups = session.scalars(select(FollowUp).where(
        FollowUp.created_at >= start, FollowUp.created_at <= end)
        .order_by(FollowUp.id)).all()
    if follow_ups:
        entries.append(_entry(FOLLOW_UPS, f"Will follow up on "
                              f"{'; '.join(_quote(item.text) for item in follow_ups)}",
                              follow_ups=[item.id for item in follow_ups]))
    habits = session.scalars(select(Habit).where(
        Habit.first_seen >= start, Habit.first_seen <= end)
        .order_by(Habit.id)).all()
    if habits:
        entries.append(_entry(HABITS, f"Noticed {plural(len(habits), 'new habit')}: "
                              f"{'; '.join(_quote(item.rule) for item in habits)}",
                              habits=[{"id": item.id, "last_seen": item.last_seen.isoformat()}
                                      for item in habits]))
    return entries


def _habits_seen(session: Session, reflection_id: int | None) -> list[dict[str, Any]]:
    """Habits the reflection saw again: one more sighting, and maybe followed from now on.
    Their earlier states are what the reflection kept with its ``apply`` stage."""
    reflection = session.get(Run, reflection_id) if reflection_id is not None else None
    if reflection is None:
        return []
    before = (reflection.stages or {}).get("apply", {}).get("habits_before", [])
    seen = {item.id: item for item in session.scalars(select(Habit).where(
        Habit.id.in_([state["id"] for state in before])))}
    kept = [state for state in before if state["id"] in seen]
    if not kept:
        return []
    promoted = [seen[state["id"]] for state in kept if state["status"] != "active"
                and seen[state["id"]].status == "active"]
    text = (f"Saw {plural(len(kept), 'habit')} again: "
            f"{'; '.join(_quote(seen[state['id']].rule) for state in kept)}")
    if promoted:
        text += (f"; now follows {'; '.join(_quote(item.rule) for item in promoted)} "
                 "in every chat")
    return [_entry(HABITS_SEEN, text, habits=[
        {**state, "set_last_seen": seen[state["id"]].last_seen.isoformat()} for state in kept])]


def _link_changes(stages: dict[str, Any]) -> list[dict[str, Any]]:
    def added(stage: str) -> int:
        entry = stages.get(stage, {})
        counts = entry.get("counts", {})
        return 0 if "resumed_from" in counts else int(counts.get("added", 0) or 0)

    entries = []
    if added("link"):
        entries.append(_entry("links", f"Added {plural(added('link'), 'link')} between "
                                       "related memories"))
    if added("rem"):
        entries.append(_entry("links", f"Found {plural(added('rem'), 'unexpected connection')}"
                                       " between distant memories"))
    return entries
