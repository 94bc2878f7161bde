"""Ctrl-C in a command that can stop cleanly: the first press asks the work to stop at its
next check (a streamed reply between two parts, the dream cycle between and inside its
stages), so what was done so far is saved and the outcome says it was stopped; a second
press interrupts at once, for work that does not check often (a model that has not sent
its first part yet).

A handler, not ``except KeyboardInterrupt``: the exception lands wherever the main thread
happens to be, often inside the generator that streams a reply, which it ends without its
final event, so the caller could not tell a stopped reply from none and the exchange was
left for the next start to mark interrupted.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from core.operations.models import CancelToken


@contextmanager
def ctrl_c_cancels(cancel: CancelToken) -> Iterator[None]:
    """While inside, the first Ctrl-C cancels ``cancel``; the next one raises
    ``KeyboardInterrupt`` as usual. Main thread only (where Python runs signal handlers)."""
    previous = signal.getsignal(signal.SIGINT)

    def first_press(_signum: int, _frame: Any) -> None:
        cancel.cancel()
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, first_press)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
