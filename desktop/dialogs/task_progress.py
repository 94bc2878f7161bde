"""A progress bar, a Stop button and a result line that follow one background task.

Pulling a model, rebuilding vectors, importing, exporting and backing up all run as
workers; this is how each of them shows that it is working, lets the user stop it, and
says in a sentence what it did or why it failed (a stop the user asked for is not shown as
an error). A job outlives a closed dialog: its sentence then goes to ``announce`` (the
window's status bar) instead, so no outcome is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout, QWidget

from desktop.dialogs.settings_form import show_status, status_label
from desktop.workers import Task

BAR_STEPS = 1000
"""The bar's range: byte counts of a multi-gigabyte pull do not fit Qt's int."""

Describe = Callable[[Any], str]


class TaskProgress(QWidget):
    """Follows one task at a time; ``finished(ok)`` fires on the UI thread when it ends."""

    finished = Signal(bool)

    def __init__(self, announce: Callable[[str], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._announce = announce
        self._describe: Describe = str
        self.bar = QProgressBar()
        self.bar.setRange(0, BAR_STEPS)
        self.bar.setTextVisible(False)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setToolTip("Stop this job (what is already done is kept).")
        self.stop_button.clicked.connect(self.stop)
        self.result = status_label()
        self.result.setObjectName("task-result")
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.bar, 1)
        row.addWidget(self.stop_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(row)
        column.addWidget(self.result)
        self._task: Task | None = None
        self._set_running(False)

    @property
    def running(self) -> bool:
        return self._task is not None and self._task.running

    def follow(self, task: Task, doing: str, describe: Describe = str, *,
               stoppable: bool = True) -> None:
        """Show ``task`` until it ends; ``doing`` is the line meanwhile ("Exporting…"),
        ``describe(result)`` the sentence after a success. A job that cannot stop midway
        (``stoppable=False``) gets no Stop button rather than one that does nothing."""
        self._task, self._describe = task, describe
        self.bar.setRange(0, 0)  # busy until the first report
        show_status(self.result, doing)
        self._set_running(True, stoppable=stoppable)
        task.progressed.connect(self.set_progress)
        task.succeeded.connect(self._succeeded)
        task.failed.connect(self._failed)

    def set_progress(self, done: int, total: int, label: str = "") -> None:
        """``done`` of ``total`` (any unit; a total of 0 means "not known yet")."""
        if total > 0:
            self.bar.setRange(0, BAR_STEPS)
            self.bar.setValue(round(BAR_STEPS * min(done, total) / total))
        else:
            self.bar.setRange(0, 0)
        if label:
            show_status(self.result, label)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self.stop_button.setEnabled(False)

    def _succeeded(self, result: object) -> None:
        self._ended(self._describe(result), ok=True)

    def _failed(self, message: str, hint: str) -> None:
        stopped = self._task is not None and self._task.cancelled
        self._ended(f"{message} {hint}".strip(), ok=None if stopped else False)

    def _ended(self, text: str, *, ok: bool | None) -> None:
        show_status(self.result, text, ok=ok)
        if not self.isVisible():
            self._announce(text)
        self._set_running(False)
        self.finished.emit(bool(ok))

    def _set_running(self, running: bool, *, stoppable: bool = False) -> None:
        self.bar.setVisible(running)
        self.stop_button.setVisible(running and stoppable)
        self.stop_button.setEnabled(running and stoppable)
