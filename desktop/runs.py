"""Reflection and the dream cycle by hand: run off the UI thread, with a progress dialog that
can cancel, and a result summary (counts per stage, and the profile's diff).

The same controller serves the Memory menu and the tray, so a click in either does the same
thing, and a second click while a run is going brings its dialog back instead of starting
another (the dream lock would refuse it anyway).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from PySide6.QtWidgets import QWidget

from core.consolidation.dream import STAGES, DreamCycle, dream_lock
from core.consolidation.reflection import ReflectionEngine
from desktop.context import AppContext
from desktop.dialogs.run_dialog import RunDialog
from desktop.workers import Task

REFLECT, DREAM = "reflect", "dream"


@dataclass(frozen=True)
class RunOutcome:
    """What a finished run hands the window: its report and the profile's diff (empty when
    the profile did not change)."""

    kind: str
    report: Any
    profile_diff: str


def _profile_diff(ctx: AppContext, before: int | None) -> str:
    current = ctx.hearth.profile.current()
    if current is None or current.id == before:
        return ""
    if before is None:
        return current.content
    return ctx.hearth.profile.diff(before, current.id)


def _profile_id(ctx: AppContext) -> int | None:
    current = ctx.hearth.profile.current()
    return None if current is None else current.id


class RunController:
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        self.ctx = ctx
        self._parent = parent
        self.dialogs: dict[str, RunDialog] = {}
        self.tasks: dict[str, Task] = {}
        self.last_reports: dict[str, RunOutcome] = {}

    def running(self, kind: str) -> bool:
        task = self.tasks.get(kind)
        return task is not None and task.running

    def reflect_now(self, *, show: bool = True) -> Task:
        def job(task: Task) -> RunOutcome:
            task.progress(0, 0, "Reading the last day's conversations…")
            provider = self.ctx.provider()
            try:
                with dream_lock(self.ctx.hearth.paths.home):
                    report = ReflectionEngine(self.ctx.hearth, provider).run(
                        trigger="manual", cancel=task.cancel_token)
            finally:
                provider.close()
            return RunOutcome(REFLECT, report, report.diff)

        return self._start(REFLECT, "Reflecting", job, show)

    def dream_now(self, *, show: bool = True, only: str | None = None) -> Task:
        def job(task: Task) -> RunOutcome:
            def progress(stage: str, done: int, total: int) -> None:
                position = STAGES.index(stage) if stage in STAGES else 0
                fraction = done / total if total else 0.0
                task.progress(int((position + fraction) * 100), len(STAGES) * 100,
                              f"{stage}: {done} of {total}" if total else stage)

            before = _profile_id(self.ctx)
            provider = self.ctx.provider()
            try:
                report = DreamCycle(self.ctx.hearth, provider).run(
                    trigger="manual", only=only, progress=progress, cancel=task.cancel_token)
            finally:
                provider.close()
            return RunOutcome(DREAM, report, _profile_diff(self.ctx, before))

        return self._start(DREAM, "Dreaming", job, show)

    def backup_now(self) -> Task:
        def job(_task: Task) -> str:
            return str(self.ctx.hearth.backup().path)

        return self.ctx.workers.start(
            "Backing up", job,
            on_done=lambda path: self.ctx.hub.status_message.emit(f"Backed up to {path}"),
            on_failed=lambda message, hint: self.ctx.hub.status_message.emit(
                f"Backup failed: {message} {hint}"))

    def _start(self, kind: str, title: str, job: Any, show: bool) -> Task:
        if self.running(kind):
            if show:
                self._dialog(kind, title).show_and_raise()
            return self.tasks[kind]
        dialog = self._dialog(kind, title)
        task = self.ctx.workers.start(title, job)
        self.tasks[kind] = task
        dialog.follow(task)
        task.succeeded.connect(self._finished)
        task.failed.connect(lambda message, hint: self.ctx.hub.notify.emit(
            f"{title} failed", f"{message} {hint}".strip()))
        if show:
            dialog.show_and_raise()
        return task

    def _dialog(self, kind: str, title: str) -> RunDialog:
        if kind not in self.dialogs:
            self.dialogs[kind] = RunDialog(title, self._parent)
        return self.dialogs[kind]

    def _finished(self, outcome: RunOutcome) -> None:
        self.last_reports[outcome.kind] = outcome
        self.ctx.hub.run_finished.emit(outcome.kind, outcome)
        self.ctx.hub.memory_changed.emit()
        self.ctx.hub.notify.emit(*summary(outcome))


def summary(outcome: RunOutcome) -> tuple[str, str]:
    """A title and one line for a finished run (the tray balloon and the dialog)."""
    report = outcome.report
    if outcome.kind == REFLECT:
        if report.skipped:
            return "Reflection skipped", report.reason
        return "Reflection done", (
            f"facts +{report.facts_added} ~{report.facts_updated} · intentions "
            f"+{report.intentions_added} · learnings +{report.learnings_added} (promoted "
            f"{report.learnings_promoted}) · profile "
            f"{'changed' if report.profile_changed else 'unchanged'}")
    done = sum(1 for stage in report.stages.values() if stage.status in ("done", "resumed"))
    return f"Dream cycle {report.status}", f"{done} of {len(report.stages)} stages done"
