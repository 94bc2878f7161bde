"""The dream cycle: every consolidation stage, in order, while the user is away.

A run takes an exclusive lock, backs the database up, then runs the stages in ``STAGES``
order, recording each one (counts, seconds, status) in one ``runs`` row of kind ``dream``.

Decisions (documented in docs/consolidation.md, "The dream cycle"):

* **One at a time.** The database's ``dream`` lock (``StoragePort.exclusive``), taken
  without waiting: a second run gets ``DreamAlreadyRunning``, whether it is in another
  process on this device or, on a shared PostgreSQL database, on another device. On SQLite
  it is an exclusive ``flock`` on ``dream.lock`` beside the database (``<home>/dream.lock``),
  on PostgreSQL a session advisory lock; the system drops either when its process dies,
  so a crash never leaves a stale lock behind.
* **Backup first.** ``create_backup`` runs before any stage writes; its path is recorded.
  A backup that cannot be taken (on PostgreSQL, most often no ``pg_dump`` as new as the
  server) stops the run, its hint naming the way on: with ``dream_without_backup`` set, the
  run goes on without one, never silently: the backup stage is recorded ``skipped`` with
  the reason, the run's error and the report's ``warnings`` say "No backup was taken…",
  and the log warns.
* **Resume, never redo.** A dream run still marked ``running`` while we hold the lock was
  killed: it is marked ``interrupted``. If the newest full run ended unfinished (killed,
  cancelled, failed) and started less than ``RESUME_WINDOW`` ago, the stages it finished are carried
  over (recorded with ``resumed_from``) and not run again,
  because reflection is not safe to repeat within a night (a learning seen in "two runs"
  would be promoted by one night twice). Otherwise every stage runs again: each stage is
  idempotent, so nothing is duplicated. The stage that was cut short always runs again.
* **Failures are per stage.** A stage that raises is recorded failed with its error and the
  run goes on with the next stage (they guard their own writes: a failing model leaves
  nothing half-written); the run ends ``partial``. A stage whose module is not installed is
  listed as unavailable, never faked, and also makes the run ``partial``.
* **Cancellation** is checked between stages and passed into the stages that accept it; the
  run is recorded ``cancelled`` and the stage that was cut short stays unfinished.
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from core.consolidation.services import ConsolidationServices
from core.consolidation import changelog
from core.consolidation.decay import run_decay
from core.consolidation.link import LinkCancelled, run_link
from core.consolidation.processor import MemoryProcessor
from core.consolidation.reflection import ReflectionEngine
from core.consolidation.rem import run_rem
from core.consolidation.runs import CANCELLED, RunRecorder, StageCancelled, StageSkipped
from core.consolidation.stages import STAGES as STAGES  # re-exported: the order the cycle runs in
from core.errors import HearthError, InvalidInputError
from core.llm.capability import Job, profile_of
from core.llm.protocol import (
    CancelToken,
    LLMCancelled,
    LLMProvider,
    LLMUnavailableError,
)
from core.storage.orm import Run, utcnow
from core.storage.port import StoragePort

log = logging.getLogger(__name__)

KIND = "dream"
LOCK_NAME = "dream"
RESUME_WINDOW = timedelta(hours=20)
"""A killed run younger than this is resumed: the same night's cycle, caught up in the
morning. Older ones are history; the next night starts afresh."""

GO_ON_WITHOUT_BACKUP = ("Or set dream_without_backup to true (in settings.json, or "
                        "HEARTH_DREAM_WITHOUT_BACKUP=true for one run) to let the dream go on "
                        "without a backup.")
"""The way on when no backup can be taken, added to the reason the dream stopped."""

RESUMABLE = frozenset({"interrupted", "cancelled", "failed"})
"""How a run ends unfinished: killed, cancelled, or stopped by an error outside the stages
(the backup, a second Ctrl-C). A ``partial`` run finished; the next night starts afresh."""

StageProgress = Callable[[int, int], None]
StageFn = Callable[[ConsolidationServices, LLMProvider, StageProgress, CancelToken], dict[str, Any]]
DreamProgress = Callable[[str, int, int], None]


class DreamAlreadyRunning(HearthError):
    """Another dream cycle holds the lock of this data folder."""


@dataclass
class StageResult:
    status: str                      # done, failed, unavailable, waiting, resumed, not run
    counts: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None


@dataclass
class DreamReport:
    run_id: int
    status: str = "running"          # done, partial, cancelled, failed
    backup: str | None = None
    resumed_from: int | None = None
    interrupted: list[int] = field(default_factory=list)
    stages: dict[str, StageResult] = field(default_factory=dict)
    changes: list[changelog.Change] = field(default_factory=list)
    """What the run changed, in plain words (``core.consolidation.changelog``)."""
    warnings: list[str] = field(default_factory=list)
    """What the person must know about how the run went, although it finished (it went on
    without a backup)."""


@contextmanager
def dream_lock(storage: StoragePort) -> Iterator[None]:
    """Hold the database's dream lock, or raise ``DreamAlreadyRunning`` at once."""
    busy = DreamAlreadyRunning("A dream cycle is already running on this database.",
                               "Wait for it to finish (see `hearth runs`), then try again.")
    with storage.exclusive(LOCK_NAME, busy):
        yield


# --- the stages ----------------------------------------------------------------------------

def _process(services: ConsolidationServices, provider: LLMProvider, progress: StageProgress,
             cancel: CancelToken) -> dict[str, Any]:
    report = MemoryProcessor(services, provider).run(trigger=KIND, progress=progress,
                                                   cancel=cancel)
    if report.status == "cancelled":
        raise StageCancelled("Cancelled while going through recent conversations.")
    if report.status == "unavailable":  # the events wait for the model; the night goes on
        raise LLMUnavailableError(report.unavailable)
    return {**report.counts(), "run_id": report.run_id, "status": report.status}


def _decay(services: ConsolidationServices, _provider: LLMProvider, _progress: StageProgress,
           _cancel: CancelToken) -> dict[str, Any]:
    return run_decay(services.storage, services.settings)


def _link(services: ConsolidationServices, _provider: LLMProvider, progress: StageProgress,
          cancel: CancelToken) -> dict[str, Any]:
    try:
        return run_link(services.storage, services.settings, progress=progress,
                        cancel=lambda: cancel.cancelled)
    except LinkCancelled as exc:
        raise StageCancelled("Cancelled while linking memories.") from exc


def _rem(services: ConsolidationServices, _provider: LLMProvider, _progress: StageProgress,
         _cancel: CancelToken) -> dict[str, Any]:
    return run_rem(services.storage, services.settings)


def _reflect(services: ConsolidationServices, provider: LLMProvider, _progress: StageProgress,
             cancel: CancelToken) -> dict[str, Any]:
    try:
        report = ReflectionEngine(services, provider).run(trigger=KIND, cancel=cancel,
                                                        review=False)
    except LLMCancelled as exc:
        raise StageCancelled("Cancelled while reflecting.") from exc
    counts = {key: value for key, value in report.counts().items()
              if key not in ("run_id", "warnings")}
    return {**counts, "run_id": report.run_id}


def load_pluggable(name: str) -> StageFn | None:
    """The ``run`` of ``core.consolidation.<name>``, imported when the cycle runs so a build
    without it still dreams; None when the module is missing (a broken one raises)."""
    module_name = f"core.consolidation.{name}"
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name != module_name:
            raise
        return None

    def stage(services: ConsolidationServices, provider: LLMProvider, progress: StageProgress,
              cancel: CancelToken) -> dict[str, Any]:
        counts: dict[str, Any] = module.run(services, provider, progress=progress, cancel=cancel)
        return counts

    return stage


def _for_stage(progress: DreamProgress | None, name: str) -> StageProgress:
    """The stage's ``(done, total)`` callback, reporting as ``(name, done, total)``."""
    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(name, done, total)
    return report


STAGE_JOBS: dict[str, Job] = {
    "process": Job.CONSOLIDATION, "distil": Job.CONSOLIDATION, "enrich": Job.CONSOLIDATION,
    "merge": Job.CONSOLIDATION, "reflect": Job.REFLECTION, "summaries": Job.SUMMARIES,
}
"""The model's job in each stage that needs one: a model that may not do it
(``core.llm.capability``) leaves the stage waiting, its work where it is, for a capable
model. Triage judges what is certain by rules and asks the model only for the rest, so it
checks for itself; decay, link and REM need no model."""

BUILT_IN: dict[str, StageFn] = {
    "process": _process, "decay": _decay, "link": _link, "rem": _rem, "reflect": _reflect,
}


# --- the cycle -----------------------------------------------------------------------------

class DreamCycle:
    """Runs the dream cycle for one opened data folder with one language model.

    ``stages`` replaces stage functions by name (tests inject slow or failing ones); the
    order is always ``STAGES``.
    """

    def __init__(self, services: ConsolidationServices, provider: LLMProvider, *,
                 stages: Mapping[str, StageFn] | None = None) -> None:
        unknown = set(stages or {}) - set(STAGES)
        if unknown:
            raise ValueError(f"unknown dream stages: {sorted(unknown)}")
        self._services = services
        self._provider = provider
        self._stages: dict[str, StageFn] = {**BUILT_IN, **(stages or {})}

    def run(self, *, trigger: str = "manual", only: str | None = None,
            progress: DreamProgress | None = None,
            cancel: CancelToken | None = None) -> DreamReport:
        if only is not None and only not in STAGES:
            raise InvalidInputError(f"There is no dream stage called {only!r}.",
                                    f"Choose one of: {', '.join(STAGES)}.")
        cancel = cancel or CancelToken()
        with dream_lock(self._services.storage):
            interrupted, carried = self._close_interrupted(resumable=only is None)
            recorder = RunRecorder(self._services.storage, KIND, trigger)
            report = DreamReport(run_id=recorder.run_id, interrupted=interrupted)
            if only is not None:
                self._set_counts(recorder.run_id, {"only": only})
            try:
                self._backup(recorder, report)
                self._run_stages([only] if only else list(STAGES), carried, recorder,
                                 report, progress, cancel)
            except BaseException as exc:
                report.status = "failed"
                recorder.fail(f"{type(exc).__name__}: {exc}", self._summary(report, only))
                raise
            recorder.finish(self._summary(report, only), status=report.status,
                            error=" ".join(report.warnings) or None)
            report.changes = changelog.record(self._services.storage, report.run_id).changes
        self._read_back(report)
        return report

    def _run_stages(self, names: list[str], carried: tuple[int, dict[str, Any]] | None,
                    recorder: RunRecorder, report: DreamReport,
                    progress: DreamProgress | None, cancel: CancelToken) -> None:
        report.status = "done"
        profile = profile_of(self._provider, self._services.settings.model_jobs)
        for name in names:
            if cancel.cancelled:
                report.status = "cancelled"
                return
            if carried is not None and carried[1].get(name, {}).get("status") == "done":
                report.resumed_from = carried[0]
                with recorder.stage(name) as counts:
                    counts.update(carried[1][name]["counts"], resumed_from=carried[0])
                continue
            job = STAGE_JOBS.get(name)
            if job is not None and not profile.may(job):
                recorder.waiting(name)
                continue
            stage = self._stages.get(name) or load_pluggable(name)
            if stage is None:
                report.stages[name] = StageResult(
                    "unavailable", error=f"core.consolidation.{name} is not installed")
                report.status = "partial"
                continue
            on_progress = _for_stage(progress, name)
            on_progress(0, 0)
            try:
                with recorder.stage(name) as counts:
                    counts.update(stage(self._services, self._provider, on_progress, cancel))
            except CANCELLED:
                report.status = "cancelled"
                return
            except Exception:  # recorded (with its traceback) by recorder.stage; the
                # independent stages go on, and the log keeps the traceback too
                log.exception("dream stage %s failed (run %s)", name, recorder.run_id)
                report.status = "partial"

    def _backup(self, recorder: RunRecorder, report: DreamReport) -> None:
        """Back up before any stage writes. A backup that fails stops the run, saying how
        to go on; with ``dream_without_backup`` the run goes on, the reason recorded as the
        stage's (``skipped``) and the report's warning."""
        with recorder.stage("backup") as counts:
            try:
                info = self._services.backup()
            except HearthError as exc:
                if not self._services.settings.dream_without_backup:
                    exc.hint = f"{exc.hint} {GO_ON_WITHOUT_BACKUP}".strip()
                    raise
                warning = (f"No backup was taken before this dream: {exc.message} It went on "
                           "without one because dream_without_backup is on.")
                report.warnings.append(warning)
                log.warning("dream run %s goes on without a backup (dream_without_backup is "
                            "on): %s", recorder.run_id, exc.message)
                raise StageSkipped(warning) from exc
            counts.update(path=str(info.path), bytes=info.size_bytes)
            report.backup = str(info.path)

    def _close_interrupted(self, *, resumable: bool
                           ) -> tuple[list[int], tuple[int, dict[str, Any]] | None]:
        """Mark dream runs left ``running`` (we hold the lock, so their process is gone)
        as interrupted. When ``resumable``, return the newest full run's id and stages if
        it ended unfinished less than ``RESUME_WINDOW`` ago."""
        with self._services.storage.write() as session:
            dead = session.scalars(select(Run).where(Run.kind == KIND,
                                                     Run.status == "running")).all()
            for run in dead:
                run.status, run.finished_at = "interrupted", utcnow()
                run.error = "the process stopped before the run finished"
            newest = session.scalars(select(Run).where(Run.kind == KIND)
                                     .order_by(Run.id.desc()).limit(1)).first()
            carried = None
            if (resumable and newest is not None and "only" not in (newest.counts or {})
                    and newest.status in RESUMABLE
                    and utcnow() - newest.started_at < RESUME_WINDOW):
                carried = (newest.id, dict(newest.stages))
            return sorted(run.id for run in dead), carried

    def _set_counts(self, run_id: int, counts: dict[str, Any]) -> None:
        with self._services.storage.write() as session:
            run = session.get(Run, run_id)
            assert run is not None
            run.counts = counts

    @staticmethod
    def _summary(report: DreamReport, only: str | None) -> dict[str, Any]:
        summary: dict[str, Any] = {"backup": report.backup}
        if only is not None:
            summary["only"] = only
        if report.resumed_from is not None:
            summary["resumed_from"] = report.resumed_from
        if report.interrupted:
            summary["interrupted"] = report.interrupted
        unavailable = [n for n, s in report.stages.items() if s.status == "unavailable"]
        if unavailable:
            summary["unavailable"] = unavailable
        return summary

    def _read_back(self, report: DreamReport) -> None:
        """Fill the report's stages from the run record, the one source of truth."""
        with self._services.storage.read() as session:
            run = session.get(Run, report.run_id)
            assert run is not None
            for name, entry in run.stages.items():
                counts = dict(entry.get("counts", {}))
                status = "resumed" if "resumed_from" in counts else entry["status"]
                report.stages[name] = StageResult(status, counts, entry.get("seconds", 0.0),
                                                  entry.get("error"))
        order = ("backup", *STAGES)
        report.stages = dict(sorted(report.stages.items(), key=lambda item: order.index(
            item[0])))
