"""Download a model into the user's Ollama with progress and a Stop button; shared by the
settings (any model) and the welcome (the recommended one).

The pull runs in a worker through ``core.operations.models.pull_model``; its ``(status,
completed, total)`` reports are streamed to the UI as items, because byte counts of a large
model overflow the int progress signal. A stop ends the download; Ollama keeps the finished
parts, so pulling the same name again resumes. When the model just pulled is the one the
assistant is set to use (same host, same name), the assistant is rebuilt so that it can
answer with it now."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLineEdit, QPushButton, QVBoxLayout, QWidget

from core.operations.models import Pulled, pull_model
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_form import data_size
from desktop.dialogs.task_progress import TaskProgress
from desktop.workers import Task

HostSource = Callable[[], str | None]
"""Where to pull: the address the owner shows (blank: ``OLLAMA_HOST`` or the default)."""


class ModelPullWidget(QWidget):
    """A model name, a Pull button and the pull's progress; ``pulled(name)`` on success."""

    pulled = Signal(str)

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, host: HostSource,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.tasks = tasks
        self._host = host
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("Model name, e.g. llama3.2:3b")
        self.name_edit.setClearButtonEnabled(True)
        self.name_edit.returnPressed.connect(self.pull)
        self.pull_button = QPushButton("Pull")
        self.pull_button.setToolTip("Download this model into Ollama.")
        self.pull_button.clicked.connect(self.pull)
        self.progress = TaskProgress(ctx.hub.status_message.emit)
        self.progress.finished.connect(lambda _ok: self._set_busy(False))
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.name_edit, 1)
        row.addWidget(self.pull_button)
        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        column.addLayout(row)
        column.addWidget(self.progress)

    def set_name(self, name: str) -> None:
        self.name_edit.setText(name)

    @property
    def running(self) -> bool:
        return self.progress.running

    def pull(self) -> Task | None:
        """Start pulling the named model (nothing happens without a name or while a pull
        runs); returns the task."""
        name = self.name_edit.text().strip()
        if self.running:
            return None
        if not name:
            self.name_edit.setFocus()
            return None
        host, settings = self._host(), self.ctx.settings

        def job(task: Task) -> Pulled:
            return pull_model(settings, host, name,
                              lambda status, done, total: task.emit((status, done, total)),
                              task.cancel_token)

        task = self.tasks.start(f"Pulling {name}", job, on_item=self._report,
                                on_done=self._done)
        self.progress.follow(task, f"Asking Ollama for {name}…",
                             lambda pulled: f"{pulled.name} is installed in Ollama at "
                                            f"{pulled.host}.")
        self._set_busy(True)
        return task

    def _report(self, step: tuple[str, int | None, int | None]) -> None:
        status, done, total = step
        if total:
            label = f"{status}: {data_size(done or 0)} of {data_size(total)}"
            self.progress.set_progress(done or 0, total, label)
        else:
            self.progress.set_progress(0, 0, status)

    def _done(self, pulled: Pulled) -> None:
        if pulled.configured and self.ctx.settings.llm_provider != "embedded":
            self.ctx.start_assistant()
        self.pulled.emit(pulled.name)

    def _set_busy(self, busy: bool) -> None:
        self.pull_button.setEnabled(not busy)
        self.name_edit.setReadOnly(busy)
