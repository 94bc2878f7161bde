"""A small form (edit a task, move a reminder) whose Save runs on a worker and which stays
open, with the refusal written under the fields, when core says no.

Why not validate in the dialog: core's rules (``InvalidInputError``) are the only ones; the
dialog shows core's own sentence, so the window and the CLI never disagree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QDialog, QDialogButtonBox, QFormLayout, QWidget

from core.errors import InvalidInputError
from core.operations.done import Done
from desktop.context import AppContext
from desktop.inspector.notice import Notice


class FormDialog(QDialog):
    """Subclasses add rows to ``form``, call ``finish()`` and implement ``job``."""

    def __init__(self, ctx: AppContext, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle(title)
        self.form = QFormLayout(self)
        self.error = Notice(self)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save
                                        | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        self.saved: Any = None
        self.setMinimumWidth(420)

    def finish(self) -> None:
        self.form.addRow(self.error)
        self.form.addRow(self.buttons)

    def job(self) -> Callable[[], Done[Any]]:
        """Read the fields (on the UI thread) and return the write to run on a worker."""
        raise NotImplementedError

    def save(self) -> None:
        try:
            job = self.job()
        except InvalidInputError as exc:
            self.error.show_error(exc.message, exc.hint)
            return
        self.buttons.setEnabled(False)
        self.ctx.workers.start(self.windowTitle(), lambda _task: job(), on_done=self._saved,
                               on_failed=self._failed, owner=self, writes=True)

    def _saved(self, done: Done[Any]) -> None:
        self.saved = done.value
        self.accept()

    def _failed(self, message: str, hint: str) -> None:
        self.buttons.setEnabled(True)
        self.error.show_error(message, hint)
