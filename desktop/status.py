"""The status bar: which model answers, whether Ollama is reachable, what learning does, and
when the schedule runs next.

Everything shown is read from memory on the UI thread (cheap properties), except Ollama's
state, which needs a request to the configured host and is asked from a background job every
``OLLAMA_POLL_MS`` (never more than one at a time). Nothing here imports the model or
schedule modules: they are slow to import, and the UI thread must not stall on them.
"""

from __future__ import annotations

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QStatusBar, QWidget

from desktop.context import AppContext
from desktop.words import count

REFRESH_MS = 1_000
OLLAMA_POLL_MS = 30_000


LEARNING_WORDS = {"idle": "learning on", "learning": "learning…", "paused": "learning paused"}
"""The learning pipeline's state (``core.learning.pipeline.LearningState``) in words: its
own names read "learning idle" and, while it works, "learning learning"."""


def learning_text(state: str, learned: int) -> str:
    """What learning does, and how many facts it stored or corrected since the start."""
    words = LEARNING_WORDS.get(state, f"learning {state}")
    return f"{words} ({count(learned, 'fact')} learned)" if learned else words


class StatusBar(QStatusBar):
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
        self.model_label.setToolTip("The language model that writes the replies "
                                    "(File ▸ Settings ▸ Model changes it).")
        self.learning_label.setToolTip(
            "After each reply Hearth notes what it learned about you (facts, memories). "
            "Memory ▸ Pause learning stops that; chats still work.")
        self.schedule_label.setToolTip(
            "Each night Hearth tidies its memory (the dream cycle): it merges repeated "
            "memories, links related ones and lets stale ones fade. Nothing you said is lost.")
        self._ollama_checking = False
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.refresh)
        self._timer.start(REFRESH_MS)
        self._ollama_timer = QTimer(self)
        self._ollama_timer.timeout.connect(self.check_ollama)
        self._ollama_timer.start(OLLAMA_POLL_MS)
        ctx.hub.assistant_ready.connect(self.refresh)
        ctx.hub.assistant_failed.connect(
            lambda message, hint: self.model_label.setText(f"no assistant: {message}"))
        ctx.hub.settings_changed.connect(self.check_ollama)
        ctx.hub.schedule_changed.connect(self.refresh)
        QTimer.singleShot(0, self.check_ollama)
        QTimer.singleShot(0, self.refresh)

    def refresh(self) -> None:
        assistant = self.ctx.assistant
        if assistant is not None:
            self.model_label.setText(assistant.model_description)
            stats = assistant.learning.stats
            learned = stats.facts_created + stats.facts_updated
            self.learning_label.setText(learning_text(assistant.learning.state, learned))
        elif self.ctx.settings.learning_paused:
            self.learning_label.setText(LEARNING_WORDS["paused"])
        scheduler = self.ctx.scheduler
        if scheduler is None:
            self.schedule_label.setText(f"schedule: {self.ctx.schedule_state}")
        else:
            upcoming = scheduler.next_dream()
            when = upcoming.strftime("%a %H:%M") if upcoming else "not scheduled"
            self.schedule_label.setText(f"next dream {when}")

    def check_ollama(self) -> None:
        if self._ollama_checking:
            return
        self._ollama_checking = True
        settings = self.ctx.settings

        def ask(_task) -> tuple[str, str]:  # noqa: ANN001
            from core.llm.ollama import OllamaProvider

            provider = OllamaProvider.from_settings(settings)
            try:
                verdict = provider.status()
            finally:
                provider.close()
            return f"Ollama: {'up' if verdict.available else 'down'}", verdict.detail

        def show(result: tuple[str, str]) -> None:
            self._ollama_checking = False
            text, detail = result
            self.ollama_label.setText(text)
            self.ollama_label.setToolTip(detail)

        def failed(message: str, _hint: str) -> None:
            self._ollama_checking = False
            self.ollama_label.setText("Ollama: unknown")
            self.ollama_label.setToolTip(message)

        self.ctx.workers.start("Checking Ollama", ask, on_done=show, on_failed=failed)
