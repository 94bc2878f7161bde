"""Reflection and the dream cycle by hand: run in a child process (``desktop.isolated``),
followed by a worker thread, with a progress dialog that can cancel, and a result summary
(in plain words; the steps and the profile's diff behind "Details").

The same controller serves the Memory menu and the tray, so a click in either does the same
thing, and a second click while a run is going brings its dialog back instead of starting
another (the dream lock would refuse it anyway).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QWidget

from core.operations import consolidation, data
from core.operations.consolidation import DREAM, REFLECT, RunChanges, RunOutcome
from desktop.context import AppContext
from desktop.dialogs.away import AwayDialog
from desktop.dialogs.settings_form import data_size
from desktop.dialogs.run_dialog import RunDialog
from desktop.isolated import run_in_child
from desktop.run_summary import NOUN, summary
from desktop.workers import Task


class RunController:
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        self.ctx = ctx
        self._parent = parent
        self.dialogs: dict[str, RunDialog] = {}
        self.tasks: dict[str, Task] = {}
        self.last_reports: dict[str, RunOutcome] = {}
        self.away: AwayDialog | None = None

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
        hearth = self.ctx.hearth
        return self.ctx.workers.start(
            "Backing up", lambda _task: data.backup(hearth),
            on_done=lambda made: self.ctx.hub.status_message.emit(
                f"Backed up: {data.backup_words(made.path)} ({data_size(made.size_bytes)}), "
                "with the others in the backups folder (File → Settings → Data)."),
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
        task.failed.connect(lambda message, hint: self._failed(kind, task, message, hint))
        if show:
            dialog.show_and_raise()
        return task

    def _dialog(self, kind: str, title: str) -> RunDialog:
        if kind not in self.dialogs:
            self.dialogs[kind] = RunDialog(kind, title, self.ctx, self._parent)
        return self.dialogs[kind]

    def _finished(self, outcome: RunOutcome) -> None:
        self.last_reports[outcome.kind] = outcome
        self.ctx.hub.run_finished.emit(outcome.kind, outcome)
        if self.dialogs[outcome.kind].isVisible():  # seen here: not again at the next start
            self._mark_reviewed([outcome.report.run_id])
        if not outcome.cancelled:  # the user asked for it: no balloon telling them so
            self.ctx.hub.notify.emit(*summary(outcome))

    # --- while you were away -----------------------------------------------------------------

    def offer_review(self) -> Task:
        """At the window's start: show what the dreams and reflections the user has not
        seen yet changed ("While you were away…"), once."""
        hearth = self.ctx.hearth
        return self.ctx.workers.start(
            "Reading what changed while you were away",
            lambda _task: consolidation.unreviewed(hearth), on_done=self._show_away)

    def _show_away(self, runs: list[RunChanges]) -> None:
        if not runs:
            return
        self.away = AwayDialog(self.ctx, runs, self._parent)
        self.away.show()
        self._mark_reviewed([run.run_id for run in runs])

    def _mark_reviewed(self, run_ids: list[int]) -> None:
        hearth = self.ctx.hearth
        self.ctx.workers.start("Noting what you have seen",
                               lambda _task: consolidation.mark_reviewed(hearth, run_ids),
                               writes=True)

    def _failed(self, kind: str, task: Task, message: str, hint: str) -> None:
        """A cancelled reflection ends with ``LLMCancelled``: the dialog says "cancelled"
        and nothing is announced; a real failure is announced in a sentence."""
        if task.cancelled:
            return
        self.ctx.hub.notify.emit(f"{NOUN[kind]} did not finish", f"{message} {hint}".strip())
