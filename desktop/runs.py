"""Reflection and the dream cycle by hand: run in a child process (``desktop.isolated``),
followed by a worker thread, with a progress dialog that can cancel, and a result summary
(counts per stage, and the profile's diff).

The same controller serves the Memory menu and the tray, so a click in either does the same
thing, and a second click while a run is going brings its dialog back instead of starting
another (the dream lock would refuse it anyway).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from desktop.context import AppContext
from desktop.dialogs.run_dialog import RunDialog
from desktop.isolated import DREAM, REFLECT, RunOutcome, run_in_child
from desktop.workers import Task


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
            return self._in_child(REFLECT, task)

        return self._start(REFLECT, "Reflecting", job, show)

    def dream_now(self, *, show: bool = True, only: str | None = None) -> Task:
        def job(task: Task) -> RunOutcome:
            task.progress(0, 0, "Backing up before dreaming…")
            return self._in_child(DREAM, task, only=only)

        return self._start(DREAM, "Dreaming", job, show)

    def _in_child(self, kind: str, task: Task, only: str | None = None) -> RunOutcome:
        return run_in_child(kind, self.ctx.hearth.paths.home, only=only,
                            provider_factory=self.ctx.custom_provider_factory,
                            progress=task.progress, cancelled=lambda: task.cancelled)

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
