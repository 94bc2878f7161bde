"""Bringing the search indexes up to date at start-up, in the background.

With tens of thousands of memories, recall's vector search and full-text search run through
indexes kept next to the database (``core.storage.sqlite.ann``, ``core.storage.sqlite.
text_index``). When one is found missing or behind the rows (a crash, a restore, an import,
a copy from another machine), searches stay correct on the slower path (the exact scan,
FTS5) but grow slower with every memory; the nightly dream would rebuild it, but a
user should not wait for a night. So the window checks once at start-up, off the UI thread,
and when there is a backlog rebuilds it as a background job shown in the status bar with a
percentage and a Stop button (stopping keeps searches exact; the next start or dream tries
again).
"""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QHBoxLayout, QLabel, QProgressBar, QToolButton, QWidget

from core.operations import models
from desktop.context import AppContext
from desktop.workers import Task

BAR_STEPS = 1000
DOING = "Rebuilding the search index"


class SearchIndexStatus(QWidget):
    """The status bar's view of a rebuild: a line, a small bar and Stop; hidden otherwise."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.label = QLabel(DOING + "…")
        self.label.setToolTip("Hearth is bringing its fast search over your memories up to "
                              "date. Searching works meanwhile, a little slower.")
        self.bar = QProgressBar()
        self.bar.setRange(0, BAR_STEPS)
        self.bar.setMaximumWidth(120)
        self.bar.setTextVisible(False)
        self.stop_button = QToolButton()
        self.stop_button.setText("Stop")
        self.stop_button.setToolTip("Stop rebuilding (searches stay correct, only slower; "
                                    "it is tried again at the next start or tonight).")
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 0, 8, 0)
        row.addWidget(self.label)
        row.addWidget(self.bar)
        row.addWidget(self.stop_button)
        self.hide()

    def show_progress(self, done: int, total: int) -> None:
        percent = 0 if total <= 0 else min(100, round(100 * done / total))
        self.label.setText(f"{DOING}: {percent}%")
        self.bar.setValue(0 if total <= 0 else round(BAR_STEPS * min(done, total) / total))


class SearchIndexUpkeep(QObject):
    """Checks the index once (``check``) and rebuilds it when behind; ``task`` is the
    running rebuild, if any."""

    def __init__(self, ctx: AppContext, view: SearchIndexStatus,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.view = view
        self.task: Task | None = None
        view.stop_button.clicked.connect(self.stop)

    def check(self) -> None:
        """Count the backlog in the background; start the rebuild if there is one."""
        hearth = self.ctx.hearth
        self.ctx.workers.start("Checking the search index",
                               lambda _task: models.search_index_backlog(hearth),
                               on_done=self._checked, owner=self.view)

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.view.stop_button.setEnabled(False)

    def _checked(self, backlog: int) -> None:
        if backlog <= 0 or self.task is not None:
            return
        hearth = self.ctx.hearth

        def rebuild(task: Task) -> bool:
            return models.rebuild_search_index(
                hearth, progress=lambda done, total: task.progress(done, total),
                cancelled=lambda: task.cancelled)

        self.view.show_progress(0, backlog)
        self.view.stop_button.setEnabled(True)
        self.view.show()
        self.task = self.ctx.workers.start(
            DOING, rebuild, owner=self.view, on_done=self._rebuilt, on_failed=self._failed,
            on_progress=lambda done, total, _label: self.view.show_progress(done, total))

    def _rebuilt(self, finished: bool) -> None:
        self._ended("The search index is up to date." if finished else
                    "Rebuilding the search index was stopped; searches stay correct, "
                    "only slower, until the next start or tonight's dream.")

    def _failed(self, message: str, hint: str) -> None:
        self._ended(f"The search index could not be rebuilt: {message} {hint}".strip())

    def _ended(self, sentence: str) -> None:
        self.task = None
        self.view.hide()
        self.ctx.hub.status_message.emit(sentence)
