"""File → Import history…: the import runs, "Show memories" (the Memories view filtered to
what one run added), "Remove this import…" and "Import again, including what I removed…"
for one of them.

Each run (``core.operations.imports.import_runs``) is listed with when it ran, what it read
and how many memories it added and still has. Removing one asks first (the memories are
deleted for good) and runs on a worker (``undo_import``): the delete is audited, and
importing the same file again leaves those memories out. Loading and removing both run
off the UI thread; the list is read again after a removal.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.operations.done import Done
from core.operations.imports import (
    ImportRunInfo,
    ImportSource,
    ImportUndone,
    import_runs,
    undo_import,
)
from desktop.context import AppContext
from desktop.dialogs.import_dialog import ImportDialog
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop import confirm
from desktop.words import IMPORT_SOURCE_WORDS, count
from desktop.workers import Task

SOURCES = {source.value: source for source in ImportSource}
"""The imports the window can run again (a transcript is imported with the command)."""

ENDINGS = {"cancelled": " · stopped", "interrupted": " · interrupted", "failed": " · failed",
           None: " · unfinished"}
"""How a run that did not finish is marked (None: still running, or its process was
killed); a finished one is not marked."""


def line(run: ImportRunInfo) -> str:
    """One run as the list shows it."""
    source = IMPORT_SOURCE_WORDS.get(run.source, run.source)
    text = (f"{run.started_at:%Y-%m-%d %H:%M} · {source} · "
            f"{count(run.added, 'memory', 'memories')} added")
    if run.undone_at is not None:
        return text + " · removed"
    return text + ENDINGS.get(run.outcome, "")


class ImportHistoryDialog(QDialog):
    """The list of import runs with "Remove this import…"; see the module docstring."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle("Import history")
        self.resize(620, 380)  # a run's line (time · source · what it added) fits unscrolled
        self.tasks = OwnedTasks(ctx.workers, self)
        column = QVBoxLayout(self)
        self.runs = QListWidget()
        self.runs.currentItemChanged.connect(lambda *_: self._enable())
        column.addWidget(self.runs)
        buttons = QHBoxLayout()
        self.show_memories = QPushButton("Show memories")
        self.show_memories.setToolTip("Open the Memories view on what this import added")
        self.show_memories.clicked.connect(self.show_selected)
        buttons.addWidget(self.show_memories)
        self.remove = QPushButton("Remove this import…")
        self.remove.clicked.connect(self.remove_selected)
        buttons.addWidget(self.remove)
        self.again = QPushButton("Import again, including what I removed…")
        self.again.setToolTip("Choose the same file or folder again: what you deleted from "
                              "it, or removed with this import, comes back")
        self.again.clicked.connect(self.import_again)
        buttons.addWidget(self.again)
        buttons.addStretch(1)
        column.addLayout(buttons)
        self.outcome = QLabel("")
        self.outcome.setWordWrap(True)
        column.addWidget(self.outcome)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        column.addWidget(close)
        self._enable()
        self.load()

    def load(self) -> Task:
        """Read the runs on a worker and show them."""
        hearth = self.ctx.hearth
        return self.tasks.start("Reading the import history", lambda _task: import_runs(hearth),
                                on_done=self._show, owner=self)

    def _show(self, runs: list[ImportRunInfo]) -> None:
        self.runs.clear()
        for run in runs:
            item = QListWidgetItem(line(run))
            item.setData(Qt.ItemDataRole.UserRole, run)
            self.runs.addItem(item)
        if not runs:
            self.outcome.setText("Nothing has been imported yet.")
        self._enable()

    def _selected(self) -> ImportRunInfo | None:
        item = self.runs.currentItem()
        run = None if item is None else item.data(Qt.ItemDataRole.UserRole)
        return run if isinstance(run, ImportRunInfo) else None

    def _enable(self) -> None:
        run = self._selected()
        self.remove.setEnabled(run is not None and run.present > 0)
        self.again.setEnabled(run is not None and run.source in SOURCES)
        self.show_memories.setEnabled(run is not None and run.present > 0
                                      and hasattr(self.parent(), "show_page"))

    def show_selected(self) -> None:
        """Close, and show the window's Memories view filtered to the selected run."""
        run = self._selected()
        show_page = getattr(self.parent(), "show_page", None)
        if run is None or show_page is None:
            return
        self.accept()
        show_page("memories").show_import_run(run.id)

    def import_again(self) -> ImportDialog | None:
        """The import dialog, set to the selected run's kind, asking for its file again
        and importing it with what the person removed (the file is not kept, so it is
        asked for)."""
        run = self._selected()
        if run is None or run.source not in SOURCES:
            return None
        dialog = ImportDialog(self.ctx, self)
        dialog.select(SOURCES[run.source])
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.finished.connect(lambda _result: self.load())  # the history shows it back
        dialog.show()
        dialog.choose(include_removed=True)
        return dialog

    def remove_selected(self) -> Task | None:
        """Ask, then delete what the selected run added, on a worker."""
        run = self._selected()
        if run is None:
            return None
        kept = count(run.present, "memory", "memories")
        if not confirm.ask(self, "Remove this import",
                           f"Delete for good the {kept} this import added? Importing the "
                           "same file again will leave them out.", "Remove"):
            return None
        hearth, batch = self.ctx.hearth, run.id
        self.remove.setEnabled(False)
        return self.tasks.start("Removing an import", lambda _task: undo_import(hearth, batch),
                                on_done=self._removed, on_failed=self._failed, owner=self,
                                writes=True)

    def _removed(self, done: Done[ImportUndone]) -> None:
        undone = done.value
        text = f"Removed {count(undone.removed, 'memory', 'memories')}"
        if undone.chats:
            text += f" and {count(undone.chats, 'imported chat')}"
        self.outcome.setText(text + ".")
        self.load()

    def _failed(self, message: str, hint: str) -> None:
        self.outcome.setText(f"{message} {hint}".strip())
        self._enable()

    def done(self, result: int) -> None:
        """Closing leaves a running removal to finish; the dialog goes when it has."""
        super().done(result)
        self.tasks.release_when_idle(self)
