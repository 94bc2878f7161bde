"""Background work for the window: the UI thread never waits on the model, the database or
the embedder, and no pool thread waits on anything but work.

A job is a plain function ``job(task) -> result`` run on a ``QThreadPool`` thread. It reports
through its ``Task``: ``task.progress(done, total, label)`` for a progress bar,
``task.emit(item)`` for streamed pieces (reply tokens), and it polls ``task.cancelled`` (or
hands ``task.cancel_token`` to core, which polls it) to stop early.

Two pools. Reads (loading a view, a search, a reply) run in parallel on the main pool. Writes
from the window (``start(..., writes=True)``: saves, deletes, undo, forget) run one at a time,
in the order they were asked, on a pool of one thread: SQLite has one writer anyway, so
parallel writes would only queue on its lock (each holding a pool thread while it waits,
up to the busy timeout), and a delete followed by its Undo could land the other way round.

Waiting for something that another thread does (learning to go idle) is not a job: it would
park a pool thread. ``watch(name, ready)`` asks ``ready()`` (which must not block) on a
timer of the UI thread instead, and reports through a ``Task`` like a job does.

How a callback reaches the UI thread (measured on PySide6 6.11 and 6.12): a plain Python callable
connected to a signal runs in the thread the *sender object* lives in, queued when another
thread emits (Qt's rule for a functor connected without a context object: the sender is the
context). A ``Task`` is made on the UI thread, so callbacks connected to its signals would
run there even if a pool thread emitted them. The job still reports through a relay (an
``_Emitter`` whose signals go to the ``Task``'s own slots) so that the ``Task`` itself
learns its outcome on the UI thread (``running`` turns false before ``succeeded`` or
``failed``, then ``finished``) and so that the guarantee holds by Qt's documented rule for
slots of a receiver object, not by a detail of the binding for bare callables.
``tests/desktop/test_workers`` checks both.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal, Slot

from core.errors import HearthError
from core.operations.data import quoted
from core.operations.models import CancelToken

log = logging.getLogger(__name__)

Job = Callable[["Task"], Any]

WATCH_INTERVAL_MS = 200
"""How often a ``watch`` asks whether what it waits for has happened: soon enough that the
views reload without a visible lag, rare enough to cost nothing."""

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


def _outcome(task: Task, call: Callable[[], Any]) -> tuple[Any, tuple[object, ...]]:
    """Run ``call`` and say how it went: the relay signal to raise and its arguments. A core
    error is its message and hint; anything else is a bug, said in a sentence in the window.
    Either way the traceback goes to the log, so a sentence the user reports can be traced:
    by the exception's type and where it was raised, since the sentence and the task's name
    may hold the user's words (a fact's key, a notification's title), which a log never
    does (``core.log_privacy``)."""
    emitter = task._emitter  # noqa: SLF001 (the relay is the Task's own)
    try:
        return emitter.done, (call(),)
    except HearthError as exc:
        log.warning("background job %s failed: %s", quoted(task.name), exc, exc_info=True)
        return emitter.failed, (exc.message, exc.hint or "")
    except Exception as exc:
        log.exception("background job %s failed", quoted(task.name))
        return emitter.failed, (f"{task.name} failed: {type(exc).__name__}: {exc}",
                                "See the log for details.")


class _Runnable(QRunnable):
    def __init__(self, task: Task, job: Job) -> None:
        super().__init__()
        self.setAutoDelete(True)
        self._task, self._job = task, job

    def run(self) -> None:
        signal, args = _outcome(self._task, lambda: self._job(self._task))
        self._tell(signal, *args)

    def _tell(self, signal: Any, *args: object) -> None:
        """Report the outcome, unless the window quit meanwhile and took the task with it
        (then nobody is listening, and saying so in the log is all there is to do)."""
        try:
            signal.emit(*args)
        except RuntimeError:
            log.info("%s finished after the window had closed", quoted(self._task.name))


_NOT_YET = object()


def _watch(task: Task, ready: Callable[[], bool], interval_ms: int) -> None:
    """Ask ``ready()`` every ``interval_ms`` on the UI thread (a timer owned by ``task``)
    until it is true (the task succeeds with True), the task is cancelled (it succeeds
    with False) or ``ready`` raises (it fails, as a job would)."""
    timer = QTimer(task, interval=interval_ms)

    def ask() -> object:
        if task.cancelled:
            return False
        return True if ready() else _NOT_YET

    def tick() -> None:
        signal, args = _outcome(task, ask)
        if args[0] is _NOT_YET:
            return
        timer.stop()
        signal.emit(*args)  # the emitter lives on this thread: its slots run at once

    timer.timeout.connect(tick)
    timer.start()


def _while_alive(owner: QObject, callback: Callable[..., None]) -> Callable[..., None]:
    def call(*args: Any) -> None:
        if shiboken6.isValid(owner):
            callback(*args)
        else:
            log.debug("%s: its window part was closed before it ended", callback)
    return call


class Workers(QObject):
    """The window's background threads (a parallel pool, and one thread for writes) and
    the tasks running on them."""

    def __init__(self, max_threads: int = 4, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pool = QThreadPool(self)
        self._pool.setMaxThreadCount(max_threads)
        self._writes = QThreadPool(self)
        self._writes.setMaxThreadCount(1)  # one at a time, in the order asked
        self._tasks: set[Task] = set()

    def start(self, name: str, job: Job, *,
              on_done: Callable[[Any], None] | None = None,
              on_failed: Callable[[str, str], None] | None = None,
              on_progress: Callable[[int, int, str], None] | None = None,
              on_item: Callable[[Any], None] | None = None,
              owner: QObject | None = None, writes: bool = False) -> Task:
        """Run ``job(task)`` in the background; callbacks run on the UI thread. With an
        ``owner``, they are skipped once that widget is gone (a closure that touches it
        would otherwise raise "already deleted" when a job outlives the window). A job that
        ``writes`` to the database waits for the window's earlier writes to end."""
        task = self._task(name, owner, on_done=on_done, on_failed=on_failed,
                          on_progress=on_progress, on_item=on_item)
        (self._writes if writes else self._pool).start(_Runnable(task, job))
        return task

    def watch(self, name: str, ready: Callable[[], bool], *,
              on_done: Callable[[bool], None] | None = None,
              on_failed: Callable[[str, str], None] | None = None,
              owner: QObject | None = None, interval_ms: int = WATCH_INTERVAL_MS) -> Task:
        """Wait for ``ready()`` to be true without holding a thread: it is asked on the UI
        thread every ``interval_ms``, so it must answer at once (a flag, a non-blocking
        check). ``on_done(True)`` when it is; ``on_done(False)`` if cancelled first."""
        task = self._task(name, owner, on_done=on_done, on_failed=on_failed)
        _watch(task, ready, interval_ms)
        return task

    def _task(self, name: str, owner: QObject | None, **callbacks: Callable[..., None] | None
              ) -> Task:
        task = Task(name)
        signals = {"on_done": task.succeeded, "on_failed": task.failed,
                   "on_progress": task.progressed, "on_item": task.streamed}
        for key, callback in callbacks.items():
            if callback is not None:
                signals[key].connect(callback if owner is None
                                     else _while_alive(owner, callback))
        self._tasks.add(task)
        task.finished.connect(lambda: self._tasks.discard(task))
        return task

    @property
    def active(self) -> list[Task]:
        return [task for task in self._tasks if task.running]

    def cancel_all(self) -> None:
        for task in list(self._tasks):
            task.cancel()

    def wait(self, msecs: int = 30_000) -> bool:
        """Block until every job has returned (at quit, after ``cancel_all``), within
        ``msecs`` in all. Watches hold no thread: nothing to wait for."""
        deadline = time.monotonic() + msecs / 1000
        writes_done = self._writes.waitForDone(msecs)
        left = max(0, int((deadline - time.monotonic()) * 1000))
        return self._pool.waitForDone(left) and writes_done
