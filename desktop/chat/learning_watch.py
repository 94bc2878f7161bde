"""Tell the other views when learning has digested the latest exchanges.

Learning runs after each exchange on core's own worker thread; the Facts and Memories views
should reload once it is done, not after every token. One background wait at a time: an
exchange finishing while a wait runs just asks for one more wait afterwards."""

from __future__ import annotations

from PySide6.QtCore import QObject

from core.operations import chats
from core.operations.changes import Changes
from desktop.context import AppContext
from desktop.workers import Task


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
        self._task = self._ctx.workers.start(
            "Waiting for learning",
            lambda task: chats.wait_for_learning(assistant, lambda: task.cancelled),
            on_done=self._learned,
            on_failed=lambda message, hint: self._ctx.hub.status_message.emit(
                f"{message} {hint}".strip()))

    def _learned(self, changes: Changes) -> None:
        if changes:  # learning finished (not cancelled): the knowledge views reload
            self._ctx.hub.memory_changed.emit()
            self._ctx.hub.changed.emit(changes)
        if self._again:
            self._again = False
            self.exchange_saved()
