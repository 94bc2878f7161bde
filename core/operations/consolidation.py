"""Consolidation for the window: run a reflection or a dream, read what a run changed (its
changelog, the "While you were away…" runs), undo it, and retry failed events.

Runs go through the same entry points as ``hearth dream`` and ``hearth reflect``
(``DreamCycle``, ``ReflectionEngine`` under the dream lock); the changelog and its undo are
``core.consolidation.changelog`` and ``core.consolidation.undo``. What reaches the window is
their frozen records (``RunChanges``, ``Change``) and the ``RunOutcome`` defined here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from core.consolidation import changelog, undo
from core.consolidation.changelog import REVIEWED_KINDS, Change, RunChanges
from core.consolidation.wording import plural, run_kind, run_status, stage_name, stage_status
from core.operations.changes import NOTHING, Changes, Domain
from core.operations.done import Done
from core.views import activity
from core.views.activity import RUN_KINDS, EventView, RunView, StageView

if TYPE_CHECKING:
    from core.app import Hearth
    from core.consolidation.dream import DreamAlreadyRunning as DreamAlreadyRunning
    from core.llm.protocol import CancelToken, LLMProvider

__all__ = [
    "REVIEWED_KINDS", "RUN_KINDS", "Change", "EventView", "Queue", "RunChanges",
    "RunOutcome", "RunView", "StageView", "Undone", "changes_of", "run_kind", "run_status",
    "dream", "mark_reviewed", "queue", "reflect", "retry_event", "retry_failed_events",
    "runs", "stage_name", "stage_status", "undo_change", "undo_run", "unreviewed",
]

REFLECT, DREAM = "reflect", "dream"


def __getattr__(name: str) -> object:
    """``DreamAlreadyRunning`` is read from ``core.consolidation.dream`` when first asked
    for: the dream cycle is not loaded until a run needs it, off the window's cold start."""
    if name == "DreamAlreadyRunning":
        from core.consolidation.dream import DreamAlreadyRunning

        return DreamAlreadyRunning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

Progress = Callable[[int, int, str], None]
"""``(done, total, what is happening)``, as the window's task progress takes it."""


@dataclass(frozen=True)
class RunOutcome:
    """A finished reflection or dream: its report and the profile's diff (empty when the
    profile did not change)."""

    kind: str
    report: Any
    profile_diff: str

    @property
    def cancelled(self) -> bool:
        """A dream cancelled at a safe point returns its report, status ``cancelled``."""
        return getattr(self.report, "status", "") == "cancelled"


@dataclass(frozen=True)
class Undone:
    """What an undo did: the lines undone, the reasons lines were kept (the profile changed
    since the run), and the run's changelog after it."""

    undone: tuple[Change, ...]
    kept: tuple[str, ...]
    run: RunChanges
    message: str
    """What to tell the user: what was undone (or that it already was) and what was kept."""


@dataclass(frozen=True)
class Queue:
    """The events waiting for consolidation (at most the ``limit`` asked) and how many wait
    in all."""

    events: tuple[EventView, ...]
    waiting: int


# --- running ---------------------------------------------------------------------------------


def reflect(hearth: Hearth, provider: LLMProvider, *, trigger: str = "manual",
            cancel: CancelToken | None = None) -> RunOutcome:
    """Reflect on the last day's conversations, never beside a dream (the dream lock).
    Raises ``DreamAlreadyRunning`` when a dream or another reflection holds the lock."""
    from core.consolidation.dream import dream_lock
    from core.consolidation.reflection import ReflectionEngine

    with dream_lock(hearth.storage):
        engine = ReflectionEngine(hearth.consolidation(), provider)
        report = engine.run(trigger=trigger, cancel=cancel)
    return RunOutcome(REFLECT, report, report.diff)


def dream(hearth: Hearth, provider: LLMProvider, *, trigger: str = "manual",
          only: str | None = None, progress: Progress = lambda *_: None,
          cancel: CancelToken | None = None) -> RunOutcome:
    """Run the dream cycle (backup, stages, changelog; resumes an interrupted one),
    reporting each stage's progress in words."""
    from core.consolidation.dream import STAGES, DreamCycle
    from core.consolidation.wording import stage_doing

    def staged(stage: str, done: int, total: int) -> None:
        position = STAGES.index(stage) if stage in STAGES else 0
        fraction = done / total if total else 0.0
        progress(int((position + fraction) * 100), len(STAGES) * 100,
                 stage_doing(stage, done, total))

    before = hearth.profile.current_id()
    cycle = DreamCycle(hearth.consolidation(), provider)
    report = cycle.run(trigger=trigger, only=only, progress=staged, cancel=cancel)
    return RunOutcome(DREAM, report, _profile_diff(hearth, before))


def _profile_diff(hearth: Hearth, before: int | None) -> str:
    current = hearth.profile.current()
    if current is None or current.id == before:
        return ""
    if before is None:
        return current.content
    return hearth.profile.diff(before, current.id)


# --- what a run changed ------------------------------------------------------------------------


def changes_of(hearth: Hearth, run_id: int) -> RunChanges:
    """Run ``run_id``'s changelog (``NotFoundError`` for an unknown run)."""
    return changelog.changes_of(hearth.storage, run_id)


def unreviewed(hearth: Hearth) -> list[RunChanges]:
    """The "While you were away…" runs: finished dreams and reflections not shown yet that
    changed something worth a look, oldest first."""
    return changelog.unreviewed(hearth.storage)


def mark_reviewed(hearth: Hearth, run_ids: list[int]) -> None:
    """These runs' changelogs were shown: not again at the next start."""
    changelog.mark_reviewed(hearth.storage, run_ids)


def undo_change(hearth: Hearth, run_id: int, index: int) -> Undone:
    """Undo one line of a run's changelog (by the run's record: what happened since is
    kept)."""
    result = undo.undo_change(hearth.consolidation(), run_id, index)
    return Undone((result.change,), (), changes_of(hearth, run_id), result.message)


def undo_run(hearth: Hearth, run_id: int) -> Undone:
    """Undo every change of the run still in effect; those kept say why."""
    result = undo.undo_run(hearth.consolidation(), run_id)
    kept = tuple(why for _change, why in result.kept)
    message = f"Undid {plural(len(result.undone), 'change')}." + "".join(
        f" Kept: {why}" for why in kept)
    return Undone(tuple(result.undone), kept, changes_of(hearth, run_id), message)


# --- runs and the event queue ------------------------------------------------------------------


def runs(hearth: Hearth, kind: str | None = None, limit: int = 20) -> list[RunView]:
    """Recent runs, newest first, optionally of one kind."""
    return activity.list_runs(hearth.storage, kind, limit)


def queue(hearth: Hearth, limit: int = 1000) -> Queue:
    """The events not yet consolidated, oldest first, in the state the settings' attempts
    give them."""
    events = activity.queued_events(hearth.storage, hearth.settings.event_max_attempts, limit)
    return Queue(tuple(events), activity.queue_size(hearth.storage))


def retry_event(hearth: Hearth, event_id: int) -> Changes:
    """Give one failed event a fresh set of attempts (after its cause was fixed)."""
    from core.consolidation.processor import retry_event as retry

    retry(hearth.storage, event_id)
    return Changes.of(Domain.RUNS)


def retry_failed_events(hearth: Hearth) -> Done[int]:
    """Give every failed event a fresh set of attempts; the value is how many."""
    from core.consolidation.processor import retry_failed_events as retry_all

    retried = retry_all(hearth.storage)
    return Done(retried, Changes.of(Domain.RUNS) if retried else NOTHING)
