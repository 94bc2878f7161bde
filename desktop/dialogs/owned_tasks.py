"""The background tasks one dialog started, so that closing it never pulls the widgets out
from under a job that is still running.

A dialog hands this to its parts, which start their jobs through it. When the dialog is
closed it asks ``release_when_idle``: it is deleted at once if nothing runs, else after the
last task has finished (its callbacks still land on live, hidden widgets, which pass the
outcome to the status bar).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QObject, Signal

from desktop.workers import Job, Task, Workers


class OwnedTasks(QObject):
    idle = Signal()

    def __init__(self, workers: Workers, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._workers = workers
        self._tasks: set[Task] = set()

    def start(self, name: str, job: Job, **callbacks: Any) -> Task:
        """``Workers.start`` (same callbacks), remembering the task until it finishes."""
        task = self._workers.start(name, job, **callbacks)
        self._tasks.add(task)
        task.finished.connect(self._finished)
        return task

    @property
    def running(self) -> bool:
        return any(task.running for task in self._tasks)

    def release_when_idle(self, owner: QObject) -> None:
        """Delete ``owner`` now if nothing runs, else once the last task has finished."""
        if self.running:
            self.idle.connect(owner.deleteLater)
        else:
            owner.deleteLater()

    def _finished(self) -> None:
        self._tasks = {task for task in self._tasks if task.running}
        if not self._tasks:
            self.idle.emit()
