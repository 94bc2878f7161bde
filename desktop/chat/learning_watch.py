"""Tell the other views when learning has digested the latest exchanges.

Learning runs after each exchange on core's own worker thread; the Facts and Memories views
should reload once it is done, not after every token. The wait is a ``Workers.watch``: the
UI thread asks, without blocking, whether learning has settled, so no pool thread is parked
on it and quitting has nothing to wait for. One watch at a time: an exchange saved while one
runs was queued for learning before it was saved (the conversation hands it to learning as
it stores it), so the running watch already waits for it too."""

from __future__ import annotations

from PySide6.QtCore import QObject

from core.operations import chats
from core.operations.changes import Changes
from desktop.context import AppContext
from desktop.workers import Task


class LearningWatch(QObject):
    """``exchange_saved()`` after each turn; the knowledge views reload once learning is idle."""

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._task: Task | None = None

    @property
    def waiting(self) -> bool:
        return self._task is not None and self._task.running

    def exchange_saved(self) -> None:
        assistant = self._ctx.assistant
        if self.waiting or assistant is None:
            return
        self._task = self._ctx.workers.watch(
            "Waiting for learning", lambda: chats.learning_settled(assistant),
            on_done=self._learned,
            on_failed=lambda message, hint: self._ctx.hub.status_message.emit(
                f"{message} {hint}".strip()), owner=self)

    def _learned(self, finished: bool) -> None:
        if finished:  # not cancelled: any of the user's knowledge may have moved
            self._ctx.hub.changed.emit(Changes.knowledge())
