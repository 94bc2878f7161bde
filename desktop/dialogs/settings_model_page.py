"""The settings' "Model" tab: which language model answers (automatic, Ollama or the
embedded model), the Ollama address and model with the list of installed models read from
that address, pulling another model, and the embedded model's GGUF file.

The installed models are read from the address in the field, not the saved one, so the
user can check a new address before saving it; a click on one picks it. When Ollama runs
without the chosen model, the tab says so and offers what this window can do (pick an
installed one, or Pull), and that Automatic answers with the embedded model until then. Saving a
different provider, address or
model rebuilds the assistant (``AppContext.save_settings``) without a restart.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QModelIndex, QSortFilterProxyModel, Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from core.config import Settings
from core.operations.capability import ModelCapability, model_capability
from core.operations.models import DEFAULT_OLLAMA_HOST, embedded_model_problem, host_problem
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.model_pull import ModelPullWidget
from desktop.dialogs.model_table import SORT_ROLE, InstalledModels
from core.operations.models import OllamaSurvey, survey_ollama
from desktop.dialogs.settings_form import (
    Changes,
    Problems,
    SettingsSection,
    beside,
    show_status,
    status_label,
)
from desktop.workers import Task

JOB_CHOICES = (
    ("auto", "Decide by its size (recommended)"),
    ("replies_only", "Only phrase replies"),
    ("all", "Every job, whatever its size"),
)
PROVIDERS = (
    ("auto", "Automatic: Ollama when it answers, else the embedded model"),
    ("ollama", "Ollama"),
    ("embedded", "The embedded model"),
)
TABLE_ROWS_SHOWN = 4


class ModelSection(SettingsSection):
    title = "Model"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        self._saved_gguf = Path()
        self._survey_task: Task | None = None
        self.provider = QComboBox()
        for key, text in PROVIDERS:
            self.provider.addItem(text, key)
        self.provider.currentIndexChanged.connect(self._provider_changed)
        top = QFormLayout()
        self.add_row(top, "Answers &with:", self.provider, field="llm_provider",
                     help_text="Automatic is decided at each start: Ollama when it is "
                               "running and has the model, otherwise the model built in.")
        self.jobs = QComboBox()
        for key, text in JOB_CHOICES:
            self.jobs.addItem(text, key)
        self.add_row(top, "The model may &do:", self.jobs, field="model_jobs",
                     help_text="A small model phrases replies; learning, summing up, "
                               "combining memories and reflecting wait for a capable one.")
        self.capability = QLabel()
        self.capability.setObjectName("capability")
        self.capability.setWordWrap(True)
        self.capability.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        top.addRow(self.capability)
        self.ollama_box = self._build_ollama_box()
        self.embedded_box = self._build_embedded_box()
        column = QVBoxLayout(self)
        column.addLayout(top)
        column.addWidget(self.ollama_box, 1)
        column.addWidget(self.embedded_box)

    # --- building ----------------------------------------------------------------------------

    def _build_ollama_box(self) -> QGroupBox:
        box = QGroupBox("Ollama")
        form = QFormLayout(box)
        self.host = QLineEdit()
        self.host.setPlaceholderText(f"Blank: $OLLAMA_HOST or {DEFAULT_OLLAMA_HOST}")
        self.host.setClearButtonEnabled(True)
        self.check_button = QPushButton("&Check")
        self.check_button.setToolTip("Ask Ollama at this address which models it has.")
        self.check_button.clicked.connect(self.refresh_models)
        self.host.returnPressed.connect(self.refresh_models)
        self.host.textEdited.connect(lambda _text: show_status(self.ollama_state, ""))
        self.add_row(form, "A&ddress:", beside(self.host, self.check_button), field="ollama_host",
                     help_text="Your own Ollama; Hearth sends nothing anywhere else.")
        self.ollama_state: QLabel = status_label()
        self.ollama_state.setObjectName("ollama-state")
        form.addRow(self.ollama_state)
        self.model = QComboBox()
        self.model.setEditable(True)
        self.model.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.add_row(form, "&Model:", self.model, field="ollama_model",
                     help_text="Pick an installed model or type the name of one to pull.")
        self.installed = InstalledModels()
        self.sorted_models = sorted_models = QSortFilterProxyModel(self)
        sorted_models.setSourceModel(self.installed)
        sorted_models.setSortRole(SORT_ROLE)
        self.table = QTableView()
        self.table.setModel(sorted_models)
        self.table.setSortingEnabled(True)
        self.table.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in range(1, self.installed.columnCount()):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.table.setMinimumHeight(header.sizeHint().height()
                                    + TABLE_ROWS_SHOWN * self.table.verticalHeader()
                                    .defaultSectionSize() + 4)
        self.table.clicked.connect(self._use_row)  # a click picks it, as in any list
        self.table.activated.connect(self._use_row)  # and Enter
        form.addRow("Installed:", self.table)
        self.puller = ModelPullWidget(self.ctx, self.tasks, self._typed_host)
        self.puller.pulled.connect(self._pulled)
        form.addRow("&Pull:", self.puller)
        return box

    def _build_embedded_box(self) -> QGroupBox:
        box = QGroupBox("Embedded model")
        form = QFormLayout(box)
        self.gguf = QLineEdit()
        self.gguf.setPlaceholderText("A .gguf chat model file")
        choose = QPushButton("C&hoose…")
        choose.clicked.connect(self._choose_gguf)
        self.add_row(form, "&File:", beside(self.gguf, choose), field="embedded_model_path",
                     help_text="Runs inside Hearth on this computer's processor; no server "
                               "needed. Small models answer quickly but simply.")
        return box

    # --- SettingsSection ---------------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        self.provider.setCurrentIndex(self.provider.findData(settings.llm_provider))
        self.host.setText(settings.ollama_host or "")
        self.model.setEditText(settings.ollama_model)
        self.installed.set_selected(settings.ollama_model)
        self.puller.set_name(settings.ollama_model)
        self._saved_gguf = settings.embedded_model_path
        self.gguf.setText(str(settings.embedded_model_path))
        self.jobs.setCurrentIndex(self.jobs.findData(settings.model_jobs))
        self._provider_changed()
        self.refresh_models()
        self.read_capability()

    def read_capability(self) -> Task | None:
        """Say, in plain words, what the model answering now may do and what waits."""
        assistant, hearth = self.ctx.assistant, self.ctx.hearth
        if assistant is None:
            self.capability.setText("The assistant is starting; what its model may do is "
                                    "shown here once it is ready.")
            return None
        provider = assistant.provider

        def job(_task: Task) -> ModelCapability:
            return model_capability(hearth, provider)

        return self.tasks.start("Reading what the model may do", job,
                                on_done=self._show_capability)

    def _show_capability(self, capability: ModelCapability) -> None:
        lines = [capability.summary]
        if capability.how_to_get_more:
            lines.append(capability.how_to_get_more)
        waiting = capability.waiting.lines()
        if waiting:
            lines.append(f"Waiting for a capable model: {', '.join(waiting)}.")
        self.capability.setText("\n".join(lines))

    def collect(self) -> tuple[Changes, Problems]:
        problems: Problems = {}
        host = self.host.text().strip()
        unusable = host_problem(host) if host else None
        if unusable:
            problems["ollama_host"] = unusable
        model = self.model.currentText().strip()
        if not model:
            problems["ollama_model"] = "Enter the name of an Ollama model, e.g. llama3.2:3b."
        gguf = Path(self.gguf.text().strip()).expanduser()
        if not self.gguf.text().strip():
            problems["embedded_model_path"] = "Choose the embedded model's .gguf file."
        elif gguf != self._saved_gguf:
            problem = embedded_model_problem(gguf)
            if problem:
                problems["embedded_model_path"] = problem
        changes: Changes = {"llm_provider": self.provider.currentData(),
                            "model_jobs": self.jobs.currentData(),
                            "ollama_host": host or None, "ollama_model": model,
                            "embedded_model_path": gguf}
        return changes, problems

    def commit(self) -> None:
        self._saved_gguf = Path(self.gguf.text().strip()).expanduser()
        self.installed.set_selected(self.model.currentText().strip())

    # --- Ollama ------------------------------------------------------------------------------

    def _typed_host(self) -> str | None:
        return self.host.text().strip() or None

    def refresh_models(self) -> Task | None:
        """Ask the Ollama at the typed address for its models (in the background)."""
        if self._survey_task is not None and self._survey_task.running:
            return None
        host, model = self._typed_host(), self.model.currentText().strip()
        settings = self.ctx.settings
        show_status(self.ollama_state, f"Asking Ollama at {host or 'the default address'}…")
        self.check_button.setEnabled(False)

        def job(_task: Task) -> OllamaSurvey:
            return survey_ollama(settings, host, model or settings.ollama_model)

        self._survey_task = self.tasks.start(
            "Listing Ollama's models", job, on_done=self._surveyed,
            on_failed=self._survey_failed)
        return self._survey_task

    def _surveyed(self, survey: OllamaSurvey) -> None:
        self.check_button.setEnabled(True)
        self.set_error("ollama_host", "")
        if not survey.running:
            show_status(self.ollama_state, survey.detail, ok=False)
        elif survey.has_model:
            count = len(survey.models)
            listed = f"{count} model{'s' if count != 1 else ''} installed."
            show_status(self.ollama_state, f"{survey.detail.rstrip('.')}. {listed}", ok=True)
        else:
            wanted = self.model.currentText().strip() or self.ctx.settings.ollama_model
            self.puller.set_name(wanted)
            show_status(self.ollama_state, missing_model(
                wanted, len(survey.models), automatic=self.provider.currentData() == "auto"))
        self.installed.set_models(survey.models)
        typed = self.model.currentText()
        self.model.clear()
        self.model.addItems(sorted(model.name for model in survey.models))
        self.model.setEditText(typed)

    def _survey_failed(self, message: str, hint: str) -> None:
        self.check_button.setEnabled(True)
        show_status(self.ollama_state, "")
        self.set_error("ollama_host", f"{message} {hint}".strip())

    def _use_row(self, index: QModelIndex) -> None:
        source = self.sorted_models.mapToSource(index)
        name = self.installed.model_at(source.row()).name
        self.model.setEditText(name)
        self.puller.set_name(name)

    def _pulled(self, name: str) -> None:
        self.model.setEditText(name)
        self.refresh_models()

    # --- embedded ----------------------------------------------------------------------------

    def _choose_gguf(self) -> None:
        current = Path(self.gguf.text().strip()).expanduser()
        start = str(current.parent if current.parent.is_dir() else Path.home())
        chosen, _filter = QFileDialog.getOpenFileName(
            self, "Choose the embedded model", start, "GGUF models (*.gguf);;All files (*)")
        if chosen:
            self.gguf.setText(chosen)
            self.set_error("embedded_model_path", embedded_model_problem(Path(chosen)) or "")

    def _provider_changed(self) -> None:
        chosen = self.provider.currentData()
        self.ollama_box.setEnabled(chosen != "embedded")
        self.embedded_box.setEnabled(chosen != "ollama")


def missing_model(model: str, installed: int, *, automatic: bool) -> str:
    """Ollama runs without ``model``: what that means and what to do, in this window (the
    Pull button below, or a click on an installed model), never a terminal command."""
    if installed:
        choice = (f"Click one of the {installed} installed model{'s' if installed != 1 else ''}"
                  f" below to use it, or pull {model}.")
    else:
        choice = f"No model is installed yet: pull {model} below (or type another name)."
    fallback = " Until then, Automatic answers with the embedded model." if automatic else ""
    return f"Ollama is running, but {model} is not installed. {choice}{fallback}"
