"""The base of every view in the window's sidebar (Chat, Facts, Memories, Graph, …)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from PySide6.QtWidgets import QWidget

from desktop.context import AppContext
from desktop.workers import Job, Task


class Page(QWidget):
    """One view. Subclasses set ``key``, ``title``, ``icon_name`` and ``about`` and build
    their widgets in ``__init__``; ``activate`` runs each time the page comes to the front,
    so it reloads what may have changed while it was hidden (in the background, via
    ``run``)."""

    key: ClassVar[str]
    title: ClassVar[str]
    icon_name: ClassVar[str]
    about: ClassVar[str] = ""
    """What the view is for, in a sentence (the sidebar's tooltip)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setObjectName(f"page-{self.key}")

    def activate(self) -> None:
        """The page came to the front: reload (default: nothing to do)."""

    def new_item(self) -> bool:
        """Ctrl+N while this page is in front: start a new item of its own (a task, a note)
        and return True, or return False to let Ctrl+N start a new chat (the default)."""
        return False

    def run(self, name: str, job: Job, on_done: Callable[[Any], None] | None = None, *,
            on_progress: Callable[[int, int, str], None] | None = None,
            writes: bool = False) -> Task:
        """Run ``job`` off the UI thread; a failure is shown on the status bar as a sentence
        (the message, then the hint), never swallowed. The callbacks are skipped if the page
        is gone by the time the job ends (the window closed meanwhile). A job that
        ``writes`` (a save, a delete) runs after the window's earlier writes, one at a time
        (``desktop.workers``)."""
        return self.ctx.workers.start(name, job, on_done=on_done, on_progress=on_progress,
                                      on_failed=self.show_error, owner=self, writes=writes)

    def show_error(self, message: str, hint: str = "") -> None:
        self.ctx.hub.status_message.emit(f"{message} {hint}".strip())
