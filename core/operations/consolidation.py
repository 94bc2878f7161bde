"""Consolidation for the front ends: run a reflection or a dream, read what a run changed
(its changelog, the "While you were away…" runs), undo it, list the events waiting (or
failed) and retry failed ones.

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
from core.llm.token_estimates import clip
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
    "RunOutcome", "RunView", "StageView", "Undone", "changes_of", "clip", "events",
    "run_kind", "run_status", "dream", "mark_reviewed", "plural", "queue", "reflect",
    "reflect_with_configured_model",
    "retry_event", "retry_failed_events", "runs", "stage_name", "stage_status",
    "undo_change", "undo_run", "unreviewed",
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
    about_you_diff: str

    @property
    def cancelled(self) -> bool:
        """A dream cancelled at a safe point returns its report, status ``cancelled``."""
        return getattr(self.report, "status", "") == "cancelled"


@dataclass(frozen=True)
class Undone:
    """What an undo did: the lines undone, the lines kept with the reason (the profile
    changed since the run), and the run's changelog after it."""

    undone: tuple[Change, ...]
    kept: tuple[tuple[Change, str], ...]
    run: RunChanges
    message: str
    """What to tell the user: what was undone (or that it already was) and what was kept."""
    already: tuple[Change, ...] = ()
    """The line asked for when it had been undone before: nothing moved."""


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

    with dream_lock(hearth.storage):
        return _reflection(hearth, provider, trigger, cancel)


def reflect_with_configured_model(hearth: Hearth, *, trigger: str = "manual") -> RunOutcome:
    """``reflect`` with the model the settings choose, chosen once the dream lock is held
    (a dream already running is said at once, before any model is asked) and closed
    afterwards."""
    from core.consolidation.dream import dream_lock
    from core.operations.models import configured_provider

    with dream_lock(hearth.storage):
        provider = configured_provider(hearth.settings)
        try:
            return _reflection(hearth, provider, trigger, None)
        finally:
            provider.close()


def _reflection(hearth: Hearth, provider: LLMProvider, trigger: str,
                cancel: CancelToken | None) -> RunOutcome:
    from core.consolidation.reflection import ReflectionEngine

    report = ReflectionEngine(hearth.consolidation(), provider).run(trigger=trigger,
                                                                    cancel=cancel)
    return RunOutcome(REFLECT, report, report.diff)


def dream(hearth: Hearth, provider: LLMProvider, *, trigger: str = "manual",
          only: str | None = None, progress: Progress = lambda *_: None,
          cancel: CancelToken | None = None) -> RunOutcome:
    """Run the dream cycle (backup, stages, changelog; resumes an interrupted one),
    reporting each stage's progress in words."""
    from core.consolidation.wording import stage_doing
    from core.operations import dream as dream_cycle
    from core.operations.dream import STAGES

    def staged(stage: str, done: int, total: int) -> None:
        position = STAGES.index(stage) if stage in STAGES else 0
        fraction = done / total if total else 0.0
        progress(int((position + fraction) * 100), len(STAGES) * 100,
                 stage_doing(stage, done, total))

    before = hearth.about_you.current_id()
    report = dream_cycle.run(hearth, provider, trigger=trigger, only=only, progress=staged,
                             cancel=cancel)
    return RunOutcome(DREAM, report, _profile_diff(hearth, before))


def _profile_diff(hearth: Hearth, before: int | None) -> str:
    current = hearth.about_you.current()
    if current is None or current.id == before:
        return ""
    if before is None:
        return current.content
    return hearth.about_you.diff(before, current.id)


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
    done = () if result.already else (result.change,)
    already = (result.change,) if result.already else ()
    return Undone(done, (), changes_of(hearth, run_id), result.message, already)


def undo_run(hearth: Hearth, run_id: int) -> Undone:
    """Undo every change of the run still in effect; those kept say why."""
    result = undo.undo_run(hearth.consolidation(), run_id)
    message = f"Undid {plural(len(result.undone), 'change')}." + "".join(
        f" Kept: {why}" for _change, why in result.kept)
    return Undone(tuple(result.undone), tuple(result.kept), changes_of(hearth, run_id),
                  message)


# --- runs and the event queue ------------------------------------------------------------------


def runs(hearth: Hearth, kind: str | None = None, limit: int = 20) -> list[RunView]:
    """Recent runs, newest first, optionally of one kind."""
    return activity.list_runs(hearth.storage, kind, limit)


def queue(hearth: Hearth, limit: int = 1000) -> Queue:
    """The events not yet consolidated, oldest first, in the state the settings' attempts
    give them."""
    events = activity.queued_events(hearth.storage, hearth.settings.event_max_attempts, limit)
    return Queue(tuple(events), activity.queue_size(hearth.storage))


def events(hearth: Hearth, *, failed: bool = False, limit: int = 200) -> tuple[EventView, ...]:
    """The events still to be tried, or with ``failed`` those that failed at least once
    and are not consolidated (poisoned ones included), oldest first."""
    from core.consolidation.processor import list_events

    max_attempts = hearth.settings.event_max_attempts
    rows = list_events(hearth.storage, max_attempts, failed=failed, limit=limit)
    return tuple(activity.event_view(row, max_attempts, hearth.storage.claims)
                 for row in rows)


def retry_event(hearth: Hearth, event_id: int) -> Done[EventView]:
    """Give one failed event a fresh set of attempts (after its cause was fixed); the value
    is the event as it now waits."""
    from core.consolidation.processor import retry_event as retry

    event = retry(hearth.storage, event_id)
    viewed = activity.event_view(event, hearth.settings.event_max_attempts,
                                 hearth.storage.claims)
    return Done(viewed, Changes.of(Domain.RUNS))


def retry_failed_events(hearth: Hearth) -> Done[int]:
    """Give every failed event a fresh set of attempts; the value is how many."""
    from core.consolidation.processor import retry_failed_events as retry_all

    retried = retry_all(hearth.storage)
    return Done(retried, Changes.of(Domain.RUNS) if retried else NOTHING)
