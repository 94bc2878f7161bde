"""The settings' "Embeddings" tab: the ONNX model folder behind search and recall, and the
vectors made with it.

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
    title = "Embeddings"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        self._saved = Path()
        self._checks: dict[Path, _Check] = {}
        self._checking: dict[Path, Task] = {}
        model_box = QGroupBox("Embedding model")
        form = QFormLayout(model_box)
        self.folder = QLineEdit()
        self.folder.editingFinished.connect(lambda: self.check_folder(_folder(self.folder.text())))
        choose = QPushButton("C&hoose…")
        choose.clicked.connect(self._choose)
        self.add_row(form, "&Folder:", beside(self.folder, choose), field=FIELD,
                     help_text="A bge-style ONNX model: model.onnx (or model_quantized.onnx) "
                               "with its tokenizer.json. A new model is used from the next "
                               "start; then rebuild the vectors below.")
        self.folder_state = status_label()
        self.folder_state.setObjectName("embedding-check")
        form.addRow(self.folder_state)
        vectors_box = QGroupBox("Vectors")
        vectors = QVBoxLayout(vectors_box)
        vectors.addWidget(muted_label(
            "Search compares the meaning of what you ask with a vector stored for every "
            "fact, memory, note and message. They must all come from the model in use."))
        self.vector_state = status_label()
        self.vector_state.setObjectName("vector-state")
        self.rebuild_button = QPushButton("&Rebuild vectors")
        self.rebuild_button.setEnabled(False)
        self.rebuild_button.clicked.connect(self.rebuild)
        self.rebuild_progress = TaskProgress(ctx.hub.status_message.emit)
        self.rebuild_progress.finished.connect(self._rebuilt)
        button_row = QHBoxLayout()
        button_row.addWidget(self.vector_state, 1)
        button_row.addWidget(self.rebuild_button)
        vectors.addLayout(button_row)
        vectors.addWidget(self.rebuild_progress)
        column = QVBoxLayout(self)
        column.addWidget(model_box)
        column.addWidget(vectors_box)
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
                        f"{count(stale, 'item')} {'lacks' if stale == 1 else 'lack'} a vector "
                        f"from {model_id}; search cannot find them by meaning until they are "
                        "rebuilt.")
        else:
            show_status(self.vector_state, f"Every item has its vector from {model_id}.",
                        ok=True)
        self.rebuild_button.setEnabled(stale > 0 and not self.rebuild_progress.running)

    def rebuild(self) -> Task:
        """Embed every row that lacks a vector from the running model."""
        hearth = self.ctx.hearth

        def job(task: Task) -> Rebuilt:
            return models.rebuild_vectors(
                hearth, cancelled=lambda: task.cancelled,
                progress=lambda done, total: task.progress(
                    done, total, f"Rebuilding vectors: {done:,} of {total:,}…"))

        def describe(rebuilt: Rebuilt) -> str:
            if rebuilt.stopped_at is not None:
                done, total = rebuilt.stopped_at
                return (f"Stopped after {done:,} of {total:,}; the rest is rebuilt when you "
                        "start it again.")
            return f"Rebuilt {count(rebuilt.vectors, 'vector')}."

        self.rebuild_button.setEnabled(False)
        task = self.tasks.start("Rebuilding vectors", job)
        self.rebuild_progress.follow(task, "Rebuilding vectors…", describe)
        return task

    def _rebuilt(self, _ok: bool) -> None:
        self.count_stale()
