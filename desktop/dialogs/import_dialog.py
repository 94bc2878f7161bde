"""File → Import…: bring in a ChatGPT or Claude export, or a folder of Markdown notes.

The user picks what to import, then the file (or folder); the import runs on a worker
(``core.operations.imports``) with a progress bar and Stop, and ends in one sentence that
says what was found and added, and names the notes it skipped, each with the reason (the
first few, and how many more): ``describe``, the sentence ``hearth import`` prints too. A
stopped import keeps what it committed, and the sentence says that importing again
completes it. Closing the dialog does not stop the import: its
sentence then goes to the status bar.

What the person deleted from an import before stays out of it (the sentence counts it),
and "Import them too" runs the same import again including it: deleted things stay out by
default, but never for good against the person's will. Import history's "Import again,
including what I removed…" opens this dialog to do the same for an earlier import.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QButtonGroup,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from core.operations.imports import ImportSource, ImportSummary, describe, import_history
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.task_progress import TaskProgress
from desktop.words import count
from desktop.workers import Task

CHOICES = {
    ImportSource.CHATGPT: ("ChatGPT export (the .zip, or its conversations.json)",
                           "ChatGPT exports (*.zip *.json);;All files (*)"),
    ImportSource.CLAUDE: ("Claude export (conversations.json, or the .zip)",
                          "Claude exports (*.json *.zip);;All files (*)"),
    ImportSource.NOTES: ("A folder of Markdown notes (an Obsidian vault)", ""),
}
NAMES = {ImportSource.CHATGPT: "ChatGPT", ImportSource.CLAUDE: "Claude",
         ImportSource.NOTES: "notes"}
__all__ = ["CHOICES", "ImportDialog", "describe"]


class ImportDialog(QDialog):
    """Choose a source, then a file or folder; see the module docstring."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle("Import")
        self.tasks = OwnedTasks(ctx.workers, self)
        column = QVBoxLayout(self)
        column.addWidget(QLabel("What would you like Hearth to remember? Everything stays "
                                "on this computer."))
        self.choice = QButtonGroup(self)
        self.buttons: dict[ImportSource, QRadioButton] = {}
        for source, (label, _filter) in CHOICES.items():
            button = QRadioButton(label)
            self.choice.addButton(button)
            self.buttons[source] = button
            column.addWidget(button)
        self.buttons[ImportSource.CHATGPT].setChecked(True)
        self.choose_button = QPushButton("Choose…")
        self.choose_button.clicked.connect(lambda _checked=False: self.choose())
        column.addWidget(self.choose_button)
        self.again_button = QPushButton("Import them too")
        self.again_button.setToolTip("Import the same again, including what you deleted "
                                     "from it before")
        self.again_button.clicked.connect(self._again)
        self.again_button.hide()
        column.addWidget(self.again_button)
        self._last: tuple[ImportSource, Path] | None = None
        self.progress = TaskProgress(ctx.hub.status_message.emit)
        self.progress.finished.connect(lambda _ok: self.choose_button.setEnabled(True))
        column.addWidget(self.progress)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        column.addWidget(close)

    def chosen(self) -> ImportSource:
        return next(source for source, button in self.buttons.items() if button.isChecked())

    def choose(self, *, include_removed: bool = False) -> None:
        """Ask for the file (or folder) of the chosen kind, and import it."""
        source = self.chosen()
        if source is ImportSource.NOTES:
            folder = QFileDialog.getExistingDirectory(self, "Import a notes folder",
                                                      str(Path.home()))
            chosen = folder
        else:
            chosen, _filter = QFileDialog.getOpenFileName(
                self, f"Import a {NAMES[source]} export", str(Path.home()), CHOICES[source][1])
        if chosen:
            self.import_from(source, Path(chosen), include_removed=include_removed)

    def select(self, source: ImportSource) -> None:
        self.buttons[source].setChecked(True)

    def import_from(self, source: ImportSource, path: Path, *,
                    include_removed: bool = False) -> Task:
        """Import ``path`` as ``source`` on a worker, followed by the progress bar
        (``include_removed``: what the person deleted from it before too)."""
        hearth = self.ctx.hearth
        unit = "note" if source is ImportSource.NOTES else "message"

        def job(task: Task) -> ImportSummary:
            return import_history(
                hearth, source, path,
                progress=lambda done, total: task.progress(
                    done, total, f"Importing {done:,} of {count(total, unit)}…"),
                cancelled=lambda: task.cancelled, include_removed=include_removed)

        self._last = (source, path)
        self.again_button.hide()
        self.choose_button.setEnabled(False)
        task = self.tasks.start(f"Importing {path.name}", job)
        self.progress.follow(task, f"Reading {path.name}…", describe)
        task.succeeded.connect(self._imported)
        return task

    def _imported(self, summary: ImportSummary) -> None:
        self.again_button.setVisible(summary.forgotten > 0)

    def _again(self) -> None:
        if self._last is not None:
            source, path = self._last
            self.import_from(source, path, include_removed=True)

    def done(self, result: int) -> None:
        """Closing leaves a running import to finish; the dialog goes when it has."""
        super().done(result)
        self.tasks.release_when_idle(self)
