"""Reflection and the dream cycle from the window run in a child process.

Why a process and not a thread: a thread shares the interpreter lock with the UI thread, and
the dream stages hold it in long stretches (ORM work over thousands of rows, schema
validation, garbage collection); measured at 10k memories, a dream on a thread stalled the
event loop for 70-400 ms at a time. In a child the window keeps the whole lock, and the
child simply does what ``hearth dream`` does: the same lock, backup, run record and resume.

The window's worker thread starts the child, relays its progress to the task, passes a
cancellation on, and returns the child's ``RunOutcome``. The language model is built in the
child, from the data folder's settings, unless a picklable ``provider_factory`` is given
(tests give a scripted one).
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from core.errors import HearthError
from core.operations.consolidation import REFLECT, RunOutcome
from core.operations.models import LLMCancelled

log = logging.getLogger(__name__)

__all__ = ["run_in_child"]

POLL_SECONDS = 0.1
_CONTEXT = multiprocessing.get_context("spawn")  # no forked copy of Qt in the child


def run_in_child(kind: str, home: Path, *, trigger: str = "manual", only: str | None = None,
                 provider_factory: Callable[[], Any] | None = None,
                 progress: Callable[[int, int, str], None] = lambda *_: None,
                 cancelled: Callable[[], bool] = lambda: False) -> RunOutcome:
    """Run ``kind`` ("reflect" or "dream") for the data folder ``home`` in a child process
    and wait for it (call this from a worker thread). Raises ``DreamAlreadyRunning`` when
    another run holds the dream lock, ``LLMCancelled`` when a reflection was cancelled
    (nothing was written; its run is recorded ``cancelled``), ``HearthError`` with the
    child's message when the run fails."""
    from core.operations.folder_lock import child_key

    receiver, sender = _CONTEXT.Pipe(duplex=False)
    stop = _CONTEXT.Event()
    child = _CONTEXT.Process(target=_child_main, name=f"hearth-{kind}",
                             args=(kind, str(home), trigger, only, provider_factory, sender,
                                   stop, child_key(home)))
    child.start()
    sender.close()
    try:
        return _follow(child, receiver, stop, progress, cancelled)
    finally:
        receiver.close()
        child.join(timeout=30)
        if child.is_alive():
            child.kill()
            child.join()


def _follow(child: Any, receiver: Connection, stop: Any,
            progress: Callable[[int, int, str], None],
            cancelled: Callable[[], bool]) -> RunOutcome:
    while True:
        if cancelled() and not stop.is_set():
            stop.set()
        if not receiver.poll(POLL_SECONDS):
            continue
        try:
            message = receiver.recv()
        except EOFError:  # the child is gone without a word: killed, or crashed hard
            child.join(timeout=5)
            raise HearthError(f"The background run stopped unexpectedly (exit code "
                              f"{child.exitcode}).",
                              "Run it again; an interrupted dream resumes where it "
                              "stopped.") from None
        match message:
            case ("progress", done, total, label):
                progress(done, total, label)
            case ("done", outcome):
                return outcome
            case ("failed", text, hint):
                raise HearthError(text, hint)
            case ("cancelled", text, hint):
                raise LLMCancelled(text, hint)
            case ("busy", text, hint):
                from core.operations.consolidation import DreamAlreadyRunning

                raise DreamAlreadyRunning(text, hint)


# --- the child ---------------------------------------------------------------------------------


def _child_main(kind: str, home: str, trigger: str, only: str | None,
                provider_factory: Callable[[], Any] | None, sender: Connection,
                stop: Any, folder_key: str | None = None) -> None:
    from core.app import Hearth
    from core.operations import consolidation
    from core.operations.consolidation import DreamAlreadyRunning
    from core.operations.data import log_to_stderr, restrict_new_files
    from core.operations.folder_lock import use_key
    from core.operations.models import CancelToken, configured_provider

    restrict_new_files()  # the window's umask is inherited, but anyone may call run_in_child
    use_key(Path(home), folder_key)  # an encrypted folder: the key the window checked
    log_to_stderr()
    cancel = CancelToken()

    def cancel_when_stopped() -> None:
        stop.wait()
        cancel.cancel()

    threading.Thread(target=cancel_when_stopped, daemon=True).start()
    try:
        with Hearth.open(home) as hearth:
            provider = provider_factory() if provider_factory else configured_provider(
                hearth.settings)
            try:
                if kind == REFLECT:
                    outcome = consolidation.reflect(hearth, provider, trigger=trigger,
                                                    cancel=cancel)
                else:
                    outcome = consolidation.dream(
                        hearth, provider, trigger=trigger, only=only, cancel=cancel,
                        progress=lambda done, total, label: sender.send(
                            ("progress", done, total, label)))
                sender.send(("done", outcome))
            finally:
                provider.close()
    except DreamAlreadyRunning as exc:
        sender.send(("busy", exc.message, exc.hint or ""))
    except LLMCancelled as exc:  # before HearthError: a cancel is not a failure
        sender.send(("cancelled", exc.message, exc.hint or ""))
    except HearthError as exc:
        sender.send(("failed", exc.message, exc.hint or ""))
    except Exception as exc:  # a bug: say so in the window, keep the traceback in the log
        log.exception("%s failed in the background process", kind)
        sender.send(("failed", f"{kind} failed: {type(exc).__name__}: {exc}",
                     "See the log for details."))
    finally:
        sender.close()
