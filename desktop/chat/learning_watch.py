"""Tell the other views when learning has digested the latest exchanges.

Learning runs after each exchange on core's own worker thread; the Facts and Memories views
should reload once it is done, not after every token. One background wait at a time: an
exchange finishing while a wait runs just asks for one more wait afterwards."""

from __future__ import annotations

from PySide6.QtCore import QObject

from core.learning.pipeline import LearningPipeline
from desktop.context import AppContext
from desktop.workers import Task

POLL_SECONDS = 0.25
"""How often the wait looks at its cancel flag (quitting must not wait for learning)."""


def wait_for_learning(learning: LearningPipeline, task: Task) -> bool:
    """Block (on a pool thread) until learning is idle; False if cancelled first."""
    while not learning.drain(timeout=POLL_SECONDS):
        if task.cancelled:
            return False
    return True


class LearningWatch(QObject):
    """``exchange_saved()`` after each turn; ``hub.memory_changed`` once learning is idle."""

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._task: Task | None = None
        self._again = False

    @property
    def waiting(self) -> bool:
        return self._task is not None and self._task.running

    def exchange_saved(self) -> None:
        if self.waiting:
            self._again = True
            return
        assistant = self._ctx.assistant
        if assistant is None:
            return
        learning = assistant.learning
        self._task = self._ctx.workers.start(
            "Waiting for learning", lambda task: wait_for_learning(learning, task),
            on_done=self._learned,
            on_failed=lambda message, hint: self._ctx.hub.status_message.emit(
                f"{message} {hint}".strip()))

    def _learned(self, finished: bool) -> None:
        if finished:
            self._ctx.hub.memory_changed.emit()
        if self._again:
            self._again = False
            self.exchange_saved()
