"""The status bar: which model answers, whether Ollama is reachable, what learning does, and
when the schedule runs next.

Everything shown is read from memory on the UI thread (cheap properties), every
``REFRESH_MS`` and when a change touches it, except Ollama's state, which needs a request to
the configured host and is asked from a background job every ``OLLAMA_POLL_MS`` (never more
than one at a time) and at once when the settings change. While learning works, a watch
asks it (without holding a thread) whether it is done, so "learning…" ends when learning
does, not at the next refresh.
When Ollama runs without the chosen model, the label offers to choose one of its models
(``choose_model``: the window opens the settings) instead of silently leaving Automatic on
the embedded model. Nothing here imports the model or
schedule modules: they are slow to import, and the UI thread must not stall on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from core.operations import chats
from core.operations.changes import KNOWLEDGE, Changes, Domain
from desktop.context import AppContext
from desktop.words import count
from desktop.workers import Task

if TYPE_CHECKING:
    from core.operations.models import OllamaSurvey

REFRESH_MS = 1_000
OLLAMA_POLL_MS = 30_000
CHOOSE_MODEL = "choose-model"


LEARNING_WORDS = {"idle": "learning on", "learning": "learning…", "paused": "learning paused"}
"""The learning pipeline's state (``core.learning.pipeline.LearningState``) in words: its
own names read "learning idle" and, while it works, "learning learning"."""


def learning_text(state: str, learned: int) -> str:
    """What learning does, and how many facts it stored or corrected since the start."""
    words = LEARNING_WORDS.get(state, f"learning {state}")
    return f"{words} ({count(learned, 'fact')} learned)" if learned else words


class StatusBar(QStatusBar):
    choose_model = Signal()
    """The user followed "choose a model…": Ollama runs without the chosen model."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.model_label = QLabel("starting the assistant…")
        self.ollama_label = QLabel("Ollama: checking…")
        self.learning_label = QLabel("")
        self.schedule_label = QLabel("")
        for label in (self.model_label, self.ollama_label, self.learning_label,
                      self.schedule_label):
            label.setContentsMargins(8, 0, 8, 0)
            self.addPermanentWidget(label)
        self.ollama_label.setTextFormat(Qt.TextFormat.RichText)
        self.ollama_label.linkActivated.connect(lambda _link: self.choose_model.emit())
        self.model_label.setToolTip("The language model that writes the replies "
                                    "(File ▸ Settings ▸ Model changes it).")
        self.learning_label.setToolTip(
            "After each reply Hearth notes what it learned about you (facts, memories). "
            "Memory ▸ Pause learning stops that; chats still work.")
        self.schedule_label.setToolTip(
            "Each night Hearth tidies its memory (the dream cycle): it merges repeated "
            "memories, links related ones and lets stale ones fade. Nothing you said is lost.")
        self._ollama_checking = False
        self._ollama_generation = 0
        self._learning_watch: Task | None = None
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.refresh)
        self._timer.start(REFRESH_MS)
        self._ollama_timer = QTimer(self)
        self._ollama_timer.timeout.connect(self.check_ollama)
        self._ollama_timer.start(OLLAMA_POLL_MS)
        ctx.hub.assistant_ready.connect(self.refresh)
        ctx.hub.assistant_failed.connect(
            lambda message, hint: self.model_label.setText(f"no assistant: {message}"))
        ctx.hub.changed.connect(self._changed)
        QTimer.singleShot(0, self.check_ollama)
        QTimer.singleShot(0, self.refresh)

    def _changed(self, changes: Changes) -> None:
        if changes.touches(Domain.SETTINGS):
            self.check_ollama()
        if changes.touches(Domain.SCHEDULE, Domain.CHATS, *KNOWLEDGE):
            self.refresh()  # a turn was saved, or learning stored something

    def refresh(self) -> None:
        assistant = self.ctx.assistant
        if assistant is not None:
            self.model_label.setText(assistant.model_description)
            stats = assistant.learning.stats
            learned = stats.facts_created + stats.facts_updated
            state = assistant.learning.state
            self.learning_label.setText(learning_text(state, learned))
            if state == "learning":
                self._watch_learning()
        elif self.ctx.settings.learning_paused:
            self.learning_label.setText(LEARNING_WORDS["paused"])
        scheduler = self.ctx.scheduler
        if scheduler is None:
            self.schedule_label.setText(f"schedule: {self.ctx.schedule_state}")
        else:
            upcoming = scheduler.next_dream()
            when = upcoming.strftime("%a %H:%M") if upcoming else "not scheduled"
            self.schedule_label.setText(f"next dream {when}")

    def _watch_learning(self) -> None:
        """Refresh as soon as learning has nothing left to do (one watch at a time)."""
        assistant = self.ctx.assistant
        if assistant is None or (self._learning_watch is not None
                                 and self._learning_watch.running):
            return
        self._learning_watch = self.ctx.workers.watch(
            "Waiting for learning", lambda: chats.learning_settled(assistant),
            on_done=lambda _settled: self.refresh(), owner=self)

    def check_ollama(self) -> None:
        """Ask Ollama about the saved address and model in the background. Asked while a
        check runs (the user just saved another address), the running check's answer is
        about the old settings: it is dropped and the new settings are asked at once."""
        self._ollama_generation += 1
        if not self._ollama_checking:  # else the running check asks again when it ends
            self._start_check()

    def _start_check(self) -> None:
        self._ollama_checking = True
        generation, settings = self._ollama_generation, self.ctx.settings

        def ask(_task: object) -> OllamaState:
            from core.operations.models import survey_ollama

            return ollama_state(survey_ollama(settings, settings.ollama_host,
                                              settings.ollama_model),
                                settings.ollama_model, settings.llm_provider)

        def finished(state: OllamaState) -> None:
            self._ollama_checking = False
            if generation != self._ollama_generation:  # about settings no longer in effect
                self._start_check()
                return
            self.ollama_label.setText(state.text)
            self.ollama_label.setToolTip(state.detail)

        def failed(message: str, _hint: str) -> None:
            finished(OllamaState("Ollama: address not usable", message))

        self.ctx.workers.start("Checking Ollama", ask, on_done=finished, on_failed=failed,
                               owner=self)


@dataclass(frozen=True)
class OllamaState:
    """The status bar's Ollama label (rich text: it may hold a link) and its tooltip."""

    text: str
    detail: str


def ollama_state(survey: OllamaSurvey, model: str, provider: str) -> OllamaState:
    """Running, not running, or running without the chosen model: then, unless the user
    chose the embedded model anyway, a link to pick one of the installed models (the
    window's own way, not a terminal command)."""
    if not survey.running:
        return OllamaState("Ollama: not running", survey.detail)
    if survey.has_model or provider == "embedded":
        return OllamaState("Ollama: running", survey.detail)
    installed = len(survey.models)
    fallback = (" Until one is chosen, Automatic answers with the embedded model."
                if provider == "auto" else " Chat cannot answer until one is chosen.")
    offer = "choose a model" if installed else "pull a model"
    return OllamaState(
        f'Ollama: no {escape(model)} · <a href="{CHOOSE_MODEL}">{offer}…</a>',
        f"Ollama is running with {count(installed, 'model')}, but not "
        f"{model}.{fallback}")
