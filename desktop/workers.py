"""Background work for the window: the UI thread never waits on the model, the database or
the embedder.

A job is a plain function ``job(task) -> result`` run on a ``QThreadPool`` thread. It reports
through its ``Task``: ``task.progress(done, total, label)`` for a progress bar,
``task.emit(item)`` for streamed pieces (reply tokens), and it polls ``task.cancelled`` (or
hands ``task.cancel_token`` to core, which polls it) to stop early.

Why the relay: PySide calls a plain Python callable connected to a signal in the thread that
*emits* it. The job emits from a pool thread, so its signals go to slots of the ``Task`` (a
QObject living on the UI thread) through a queued connection, and only those slots call the
caller's callbacks. Every callback therefore runs on the UI thread, where widgets may be
touched.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, Signal, Slot

from core.errors import HearthError
from core.llm.protocol import CancelToken

log = logging.getLogger(__name__)

Job = Callable[["Task"], Any]

PROGRESS_INTERVAL_S = 0.05
"""Progress reaches the UI at most this often (and always at the end): a stage that reports
every row would otherwise queue thousands of repaints and stall the event loop."""


class _Emitter(QObject):
    """Signals raised on the pool thread; connected (queued) to the Task's slots."""

    progress = Signal(int, int, str)
    item = Signal(object)
    done = Signal(object)
    failed = Signal(str, str)


class Task(QObject):
    """One background job: the handle the job reports through and the caller cancels.

    Public signals fire on the UI thread: ``progressed(done, total, label)``,
    ``streamed(item)``, ``succeeded(result)``, ``failed(message, hint)`` and, always last,
    ``finished()`` (also after a cancellation)."""

    progressed = Signal(int, int, str)
    streamed = Signal(object)
    succeeded = Signal(object)
    failed = Signal(str, str)
    finished = Signal()

    def __init__(self, name: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.cancel_token = CancelToken()
        self.running = True
        self._last_progress = 0.0
        self._last_step = ""
        self._progress_lock = threading.Lock()
        self._emitter = _Emitter()
        self._emitter.progress.connect(self._on_progress)
        self._emitter.item.connect(self._on_item)
        self._emitter.done.connect(self._on_done)
        self._emitter.failed.connect(self._on_failed)

    # --- called by the job (any thread) -----------------------------------------------------

    def progress(self, done: int, total: int, label: str = "") -> None:
        """Report progress; reports closer together than ``PROGRESS_INTERVAL_S`` are
        dropped, except the first of a phase (``done == 0``), the last (``done ==
        total``) and one that names a new step (its label's words before ":" changed, as
        a dream moves from one stage to the next: each stage is shown, however fast)."""
        now = time.monotonic()
        step = label.split(":", 1)[0]
        with self._progress_lock:
            if (0 < done < total and step == self._last_step
                    and now - self._last_progress < PROGRESS_INTERVAL_S):
                return
            self._last_progress = now
            self._last_step = step
        self._emitter.progress.emit(int(done), int(total), label)

    def emit(self, item: object) -> None:  # type: ignore[override]  # a job's items, not QObject.emit
        self._emitter.item.emit(item)

    @property
    def cancelled(self) -> bool:
        return self.cancel_token.cancelled

    # --- called by the UI --------------------------------------------------------------------

    def cancel(self) -> None:
        """Ask the job to stop; it finishes at its next check (``finished`` still fires)."""
        self.cancel_token.cancel()

    # --- relays (UI thread) ------------------------------------------------------------------

    @Slot(int, int, str)
    def _on_progress(self, done: int, total: int, label: str) -> None:
        self.progressed.emit(done, total, label)

    @Slot(object)
    def _on_item(self, item: object) -> None:
        self.streamed.emit(item)

    @Slot(object)
    def _on_done(self, result: object) -> None:
        self.running = False
        self.succeeded.emit(result)
        self.finished.emit()

    @Slot(str, str)
    def _on_failed(self, message: str, hint: str) -> None:
        self.running = False
        self.failed.emit(message, hint)
        self.finished.emit()


class _Runnable(QRunnable):
    def __init__(self, task: Task, job: Job) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._task, self._job = task, job

    def run(self) -> None:
        emitter = self._task._emitter  # noqa: SLF001 (the relay is the Task's own)
        try:
            result = self._job(self._task)
        except HearthError as exc:
            self._tell(emitter.failed, exc.message, exc.hint or "")
        except Exception as exc:  # a bug: say so in the window, keep the traceback in the log
            log.exception("background job %s failed", self._task.name)
            self._tell(emitter.failed, f"{self._task.name} failed: {type(exc).__name__}: "
                                       f"{exc}", "See the log for details.")
        else:
            self._tell(emitter.done, result)

    def _tell(self, signal: Any, *args: object) -> None:
        """Report the outcome, unless the window quit meanwhile and took the task with it
        (then nobody is listening, and saying so in the log is all there is to do)."""
        try:
            signal.emit(*args)
        except RuntimeError:
            log.info("%s finished after the window had closed", self._task.name)


def _while_alive(owner: QObject, callback: Callable[..., None]) -> Callable[..., None]:
    def call(*args: Any) -> None:
        if shiboken6.isValid(owner):
            callback(*args)
        else:
            log.debug("%s: its window part was closed before it ended", callback)
    return call


class Workers(QObject):
    """The window's pool of background threads and the tasks running on it."""

    def __init__(self, max_threads: int = 4, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._tasks: set[Task] = set()

    def start(self, name: str, job: Job, *,
              on_done: Callable[[Any], None] | None = None,
              on_failed: Callable[[str, str], None] | None = None,
              on_progress: Callable[[int, int, str], None] | None = None,
              on_item: Callable[[Any], None] | None = None,
              owner: QObject | None = None) -> Task:
        """Run ``job(task)`` in the background; callbacks run on the UI thread. With an
        ``owner``, they are skipped once that widget is gone (a closure that touches it
        would otherwise raise "already deleted" when a job outlives the window)."""
        task = Task(name)
        for signal, callback in ((task.succeeded, on_done), (task.failed, on_failed),
                                 (task.progressed, on_progress), (task.streamed, on_item)):
            if callback is not None:
                signal.connect(callback if owner is None else _while_alive(owner, callback))
        self._tasks.add(task)
        task.finished.connect(lambda: self._tasks.discard(task))
        self._pool.start(_Runnable(task, job))
        return task

    @property
    def active(self) -> list[Task]:
        return [task for task in self._tasks if task.running]

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every job has returned (at quit, after ``cancel_all``)."""
        return self._pool.waitForDone(msecs)
