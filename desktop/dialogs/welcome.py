"""The first-run welcome (and Help → Welcome…): what Hearth is, what stays on this machine,
and which language model will answer.

It looks for the user's Ollama in a worker (``status()`` and the installed models) and
offers to pull the recommended model (``settings.ollama_model``) with progress; without
Ollama it says plainly that the embedded model answers instead, so closing it is always
fine. Closing it in any way records ``welcome_shown`` so it does not come back by itself;
a pull still running then finishes in the background and reports on the status bar.
"""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.errors import HearthError
from core.operations.capability import built_in_model
from core.operations.models import OllamaSurvey, survey_ollama
from desktop.context import AppContext
from desktop.dialogs.model_pull import ModelPullWidget
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_form import muted_label, show_status, status_label
from desktop.icons import icon
from desktop.workers import Task

ICON_SIZE = 56
STATE_LINES = 4
"""The longest sentence about Ollama, at the dialog's width."""


def _paragraph(html: str) -> QLabel:
    label = QLabel(html)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


class WelcomeDialog(QDialog):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle("Welcome to Hearth")
        self.setMinimumWidth(560)
        self.tasks = OwnedTasks(ctx.workers, self)
        self._detect_task: Task | None = None
        settings = ctx.settings
        layout = QVBoxLayout(self)
        layout.addLayout(self._header())
        layout.addWidget(_paragraph(
            "Hearth is an assistant that remembers you. What you tell it becomes facts, "
            "memories and a short portrait of you (About you) that it uses in later "
            "conversations, and you can see, correct or delete every piece of it in this "
            "window."))
        privacy = QGroupBox("What stays on this computer")
        column = QVBoxLayout(privacy)
        column.addWidget(_paragraph(
            f"<b>Everything.</b> Your conversations and all Hearth learns are kept in "
            f"<code>{escape(str(ctx.hearth.paths.home))}</code>. There is no account and "
            "no telemetry. The only network connection Hearth makes is to your own Ollama, "
            "if you use one."))
        layout.addWidget(privacy)
        model_box = QGroupBox("Language model")
        model = QVBoxLayout(model_box)
        self.state = status_label()
        self.state.setObjectName("ollama-state")
        self.puller = ModelPullWidget(ctx, self.tasks, lambda: ctx.settings.ollama_host)
        self.puller.set_name(settings.ollama_model)
        self.puller.pulled.connect(lambda _name: self.detect())
        self.puller.progress.finished.connect(lambda _ok: self._fit())
        # The answer from Ollama (a sentence of one to three lines, the pull offered or
        # not) arrives after the dialog is shown: its room is kept from the start (the
        # sentence's lines; the pull takes the place of the note on the built-in model),
        # so the dialog does not change height under the cursor on its way to "Start".
        self.state.setMinimumHeight(STATE_LINES * self.state.fontMetrics().lineSpacing())
        # what the built-in model can and cannot do: read from its file's header (a few
        # milliseconds, never the model), here, so the text never changes under the cursor
        self.built_in = muted_label(
            f"Without a capable model, Hearth answers with the one built in: "
            f"{built_in_model(settings)} You can change this any time in File → Settings.")
        self.built_in.setObjectName("built-in-model")
        self.below = QWidget()  # the note and the pull in one place, the room of the larger
        overlaid = QGridLayout(self.below)
        overlaid.setContentsMargins(0, 0, 0, 0)
        for widget in (self.built_in, self.puller):
            kept = widget.sizePolicy()
            kept.setRetainSizeWhenHidden(True)
            widget.setSizePolicy(kept)
            overlaid.addWidget(widget, 0, 0)
        self._offer_pull(False)
        self.check_button = QPushButton("Check &again")
        self.check_button.setToolTip("Look for Ollama again (after starting it).")
        self.check_button.clicked.connect(self.detect)
        state_row = QHBoxLayout()
        state_row.addWidget(self.state, 1)
        state_row.addWidget(self.check_button, 0, Qt.AlignmentFlag.AlignTop)
        model.addLayout(state_row)
        model.addWidget(self.below)
        layout.addWidget(model_box)
        layout.addStretch(1)
        buttons = QDialogButtonBox()
        start = buttons.addButton("&Start using Hearth", QDialogButtonBox.ButtonRole.AcceptRole)
        start.setDefault(True)
        buttons.accepted.connect(self.accept)
        layout.addWidget(buttons)
        self._opened = False
        self.detect()

    def _header(self) -> QHBoxLayout:
        logo = QLabel()
        logo.setPixmap(icon("hearth").pixmap(ICON_SIZE, ICON_SIZE))
        title = QLabel("Welcome to Hearth")
        font = title.font()
        font.setPointSizeF(font.pointSizeF() * 1.6)
        font.setBold(True)
        title.setFont(font)
        row = QHBoxLayout()
        row.addWidget(logo)
        row.addWidget(title, 1)
        return row

    def detect(self) -> Task | None:
        """Look for Ollama and the recommended model in the background."""
        if self._detect_task is not None and self._detect_task.running:
            return None
        settings = self.ctx.settings
        show_status(self.state, "Looking for Ollama on this computer…")
        self.check_button.setEnabled(False)
        self._detect_task = self.tasks.start(
            "Looking for Ollama",
            lambda _task: survey_ollama(settings, settings.ollama_host, settings.ollama_model),
            on_done=self._detected, on_failed=self._detect_failed)
        return self._detect_task

    def _detected(self, survey: OllamaSurvey) -> None:
        self.check_button.setEnabled(True)
        model = self.ctx.settings.ollama_model
        if survey.has_model:
            show_status(self.state, f"{survey.detail.rstrip('.')}. Hearth answers with it.",
                        ok=True)
            self._offer_pull(self.puller.running)
        elif survey.running:
            show_status(self.state, f"Ollama is running at {survey.host}, but the recommended "
                                    f"model {model} is not installed yet. Pull it here; until "
                                    "it is there, Hearth uses its built-in model.")
            self._offer_pull(True)
        else:
            show_status(self.state, f"{survey.detail} For better answers, install Ollama from "
                                    "ollama.com, start it, and check again.")
            self._offer_pull(self.puller.running)
        self._fit()

    def _offer_pull(self, offered: bool) -> None:
        """The pull in the place of the note on the built-in model, or the note."""
        self.puller.setVisible(offered)
        self.built_in.setVisible(not offered)

    def _detect_failed(self, message: str, hint: str) -> None:
        self.check_button.setEnabled(True)
        show_status(self.state, f"{message} {hint}".strip(), ok=False)
        self._fit()

    def _fit(self) -> None:
        """Grow to a text longer than the room kept for it, at the width the user sees;
        never shrink (the button under the cursor stays put). Deferred until the layout
        has taken the text in: a wrapped label knows its height only then."""
        QTimer.singleShot(0, self._fit_now)

    def _fit_now(self, *, shrink: bool = False) -> None:
        layout = self.layout()
        assert layout is not None  # set in __init__
        needed = layout.totalHeightForWidth(self.width())
        if needed > self.height() or shrink:
            self.resize(self.width(), needed)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt's name)
        """Open as tall as the wrapped text is at the width it opens at: a dialog's own
        size hint counts wrapped lines at a narrower width, and left the room empty."""
        super().showEvent(event)
        if not self._opened:
            self._opened = True
            self._fit_now(shrink=True)

    def done(self, result: int) -> None:
        """However it is closed, the welcome has been seen."""
        super().done(result)
        if not self.ctx.settings.welcome_shown:
            try:
                self.ctx.save_settings(welcome_shown=True)
            except (HearthError, OSError) as exc:  # a read-only folder, a broken settings file
                reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
                self.ctx.hub.status_message.emit(
                    f"Hearth could not record that the welcome was seen ({reason}); it will "
                    "show again at the next start.")
        self.tasks.release_when_idle(self)
