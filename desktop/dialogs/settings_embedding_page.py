"""The settings' "Search" tab: whether everything Hearth keeps can be found by meaning, with
a button that makes what cannot be found findable again; the model behind it (an ONNX model
folder) and its vectors are behind "Details".

The tab was called "Embeddings" and opened on ONNX files and vectors: the words of the
machinery, not of what a person wants to know (can Hearth find my things?).

A folder is checked by loading it (``models.check_embedding_model``) in a worker (the files must
be there *and* give sound vectors), before it can be saved. The running Hearth keeps the
model it opened with, because every vector in the database must come from the same model
as the queries compared with them; a new folder is used from the next start. Vectors from
another model (or none, after an import) are then rebuilt here (``models.rebuild_vectors``) in
the background, with progress and Stop (finished batches are kept, so it resumes).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtWidgets import (
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.config import Settings
from core.operations import models
from core.operations.models import Rebuilt, StaleVectors
from desktop.context import AppContext
from desktop.dialogs.disclosure import Disclosure
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_form import (
    Changes,
    Problems,
    SettingsSection,
    beside,
    muted_label,
    show_status,
    status_label,
)
from desktop.dialogs.task_progress import TaskProgress
from desktop.words import count
from desktop.workers import Task

FIELD = "embedding_model_dir"


@dataclass(frozen=True)
class _Check:
    ok: bool
    sentence: str
    """The model's description when it works, else why it does not."""


def _folder(text: str) -> Path:
    return Path(text.strip()).expanduser()


class EmbeddingSection(SettingsSection):
    title = "Search"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        self._saved = Path()
        self._checks: dict[Path, _Check] = {}
        self._checking: dict[Path, Task] = {}
        model_box = QWidget()
        form = QFormLayout(model_box)
        form.setContentsMargins(0, 0, 0, 0)
        self.folder = QLineEdit()
        self.folder.editingFinished.connect(lambda: self.check_folder(_folder(self.folder.text())))
        choose = QPushButton("C&hoose…")
        choose.clicked.connect(self._choose)
        self.add_row(form, "Model &folder:", beside(self.folder, choose), field=FIELD,
                     help_text="The embedding model that turns text into vectors: a "
                               "bge-style ONNX model, model.onnx (or model_quantized.onnx) "
                               "with its tokenizer.json. A new model is used from the next "
                               "start; then every item needs a new vector (the button "
                               "above).")
        self.folder_state = status_label()
        self.folder_state.setObjectName("embedding-check")
        form.addRow(self.folder_state)
        self.model_state = muted_label("")
        form.addRow(self.model_state)
        search_box = QGroupBox("Finding things by meaning")
        findable = QVBoxLayout(search_box)
        findable.addWidget(muted_label(
            "Hearth finds what you mean, not only the words you typed (“where does my sister "
            "live” finds “Ines moved to Porto”), with a small model on this computer."))
        self.vector_state = status_label()
        self.vector_state.setObjectName("vector-state")
        self.rebuild_button = QPushButton("&Make them findable")
        self.rebuild_button.setToolTip("Details: gives each of them a vector from the model "
                                       "in use (in the background; Stop keeps what is done)")
        self.rebuild_button.setEnabled(False)
        self.rebuild_button.clicked.connect(self.rebuild)
        self.rebuild_progress = TaskProgress(ctx.hub.status_message.emit)
        self.rebuild_progress.finished.connect(self._rebuilt)
        button_row = QHBoxLayout()
        button_row.addWidget(self.vector_state, 1)
        button_row.addWidget(self.rebuild_button)
        findable.addLayout(button_row)
        findable.addWidget(self.rebuild_progress)
        self.details = Disclosure(model_box)
        column = QVBoxLayout(self)
        column.addWidget(search_box)
        column.addWidget(self.details)
        column.addStretch(1)

    # --- SettingsSection ---------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self._saved = settings.embedding_model_dir
        self.folder.setText(str(settings.embedding_model_dir))
        self._show_check(self._saved)
        self.count_stale()

    def collect(self) -> tuple[Changes, Problems]:
        folder = _folder(self.folder.text())
        problems: Problems = {}
        if not self.folder.text().strip():
            problems[FIELD] = "Choose the folder of the embedding model."
        elif folder != self._saved:
            if folder in self._checking:
                problems[FIELD] = "Hearth is still checking this folder; save again in a moment."
            elif folder not in self._checks:
                self.check_folder(folder)
                problems[FIELD] = "Hearth is checking this folder first; save again in a moment."
            elif not self._checks[folder].ok:
                problems[FIELD] = self._checks[folder].sentence
        return {FIELD: folder}, problems

    def commit(self) -> None:
        self._saved = _folder(self.folder.text())
        self._show_check(self._saved)

    # --- checking a folder -------------------------------------------------------------------

    def _choose(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Choose the embedding model's folder",
                                                  str(_folder(self.folder.text()).parent))
        if chosen:
            self.folder.setText(chosen)
            self.check_folder(Path(chosen))

    def check_folder(self, folder: Path) -> Task | None:
        """Load the model in ``folder`` in the background; returns the task, or None when
        there is nothing to check (the saved folder, one being checked or found working).
        A folder that failed is checked again: the user may have fixed it meanwhile."""
        known = self._checks.get(folder)
        if folder == self._saved or folder in self._checking or (known and known.ok):
            self._show_check(folder)
            return None
        threads = self.ctx.settings.embedding_threads

        task = self.tasks.start(
            "Checking the embedding model",
            lambda _task: models.check_embedding_model(folder, threads),
            on_done=lambda description: self._checked(folder, _Check(True, description)),
            on_failed=lambda message, hint: self._checked(
                folder, _Check(False, f"{message} {hint}".strip())))
        self._checking[folder] = task
        self.set_error(FIELD, "")
        show_status(self.folder_state, f"Loading the model in {folder}…")
        return task

    def _checked(self, folder: Path, check: _Check) -> None:
        self._checking.pop(folder, None)
        self._checks[folder] = check
        self._show_check(folder)

    def _show_check(self, folder: Path) -> None:
        """What is known about ``folder``, if the field still shows it."""
        if folder != _folder(self.folder.text()):
            return  # the user has moved on to another folder meanwhile
        check = self._checks.get(folder)
        self.set_error(FIELD, check.sentence if check is not None and not check.ok else "")
        running = models.embedding_model_in_use(self.ctx.hearth) or folder
        if folder != running and (check is None or check.ok):
            pending = f"Works ({check.sentence}). " if check is not None else ""
            show_status(self.folder_state, f"{pending}Hearth uses {running} until the next "
                                           "start.", ok=True if check is not None else None)
        else:
            show_status(self.folder_state, "")

    # --- vectors -----------------------------------------------------------------------------

    def count_stale(self) -> Task:
        """Count (in the background) the rows without a vector from the running model."""
        hearth = self.ctx.hearth
        show_status(self.vector_state, "Counting…")
        return self.tasks.start("Counting vectors",
                                lambda _task: models.count_stale_vectors(hearth),
                                on_done=self._counted, on_failed=self._count_failed)

    def _count_failed(self, message: str, hint: str) -> None:
        show_status(self.vector_state, f"{message} {hint}".strip(), ok=False)

    def _counted(self, counted: StaleVectors) -> None:
        model_id, stale = counted.model_id, counted.count
        if stale:
            show_status(self.vector_state,
                        f"{count(stale, 'item')} (memories, facts, notes or messages) "
                        f"{'is' if stale == 1 else 'are'} found only by their words, not by "
                        "meaning, until Hearth makes them findable.")
            self.model_state.setText(f"{count(stale, 'item')} {'lacks' if stale == 1 else 'lack'}"
                                     f" a vector from {model_id}.")
        else:
            show_status(self.vector_state, "Everything Hearth keeps can be found by meaning.",
                        ok=True)
            self.model_state.setText(f"Every item has its vector from {model_id}.")
        self.rebuild_button.setEnabled(stale > 0 and not self.rebuild_progress.running)

    def rebuild(self) -> Task:
        """Embed every row that lacks a vector from the running model."""
        hearth = self.ctx.hearth

        def job(task: Task) -> Rebuilt:
            return models.rebuild_vectors(
                hearth, cancelled=lambda: task.cancelled,
                progress=lambda done, total: task.progress(
                    done, total, f"Making items findable: {done:,} of {total:,}…"))

        def describe(rebuilt: Rebuilt) -> str:
            if rebuilt.stopped_at is not None:
                done, total = rebuilt.stopped_at
                return (f"Stopped after {done:,} of {total:,}; the rest is done when you "
                        "start it again.")
            return f"Done: {count(rebuilt.vectors, 'item')} can be found by meaning again."

        self.rebuild_button.setEnabled(False)
        task = self.tasks.start("Making items findable", job)
        self.rebuild_progress.follow(task, "Making items findable…", describe)
        return task

    def _rebuilt(self, _ok: bool) -> None:
        self.count_stale()
