"""Writers take turns: how every adapter waits for another process's write.

Whatever the database, a Hearth write transaction takes the database's one write lock on
entry, before the caller's unit of work runs, so a unit of work never meets a busy database
halfway through and nothing of it is ever retried ("Writers take turns" in
``docs/architecture.md``). Each adapter knows how to *try* for the lock once (SQLite:
``BEGIN IMMEDIATE``; PostgreSQL: a transaction-level advisory lock); the waiting between
tries, the one log line that says so and the sentence when the wait is over are the same
for all of them, and live here.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from core.errors import DatabaseLockedError

log = logging.getLogger(__name__)

WRITE_OPTION = "hearth_write"
"""The execution option that marks an engine view (``StoragePort.write_engine``) whose
transactions take the write lock when they begin."""

DEFAULT_WRITE_WAIT_SECONDS = 120.0
FIRST_RETRY_DELAY = 0.01
MAX_RETRY_DELAY = 0.1
"""Never longer than SQLite's own busy handler sleeps, so a writer that pauses this long
between its transactions (``core.storage.pacing``) lets a waiting one in."""


def take_turn(attempt: Callable[[], bool], where: str, wait_seconds: float) -> None:
    """Call ``attempt`` (True: the lock is ours) until it succeeds, backing off
    exponentially from ``FIRST_RETRY_DELAY`` to ``MAX_RETRY_DELAY``; says once, in the log,
    that it is waiting. An error ``attempt`` raises passes unchanged.

    Raises ``DatabaseLockedError`` when the lock stayed taken ``wait_seconds``: no statement
    of the caller's unit of work has run then, so nothing of it is half written."""
    deadline = time.monotonic() + wait_seconds
    delay = FIRST_RETRY_DELAY
    waiting_since: float | None = None
    while not attempt():
        now = time.monotonic()
        if now >= deadline:
            raise still_locked(where, wait_seconds)
        if waiting_since is None:
            waiting_since = now
            log.warning("Waiting for another Hearth process to finish writing to %s…", where)
        time.sleep(min(delay, deadline - now))
        delay = min(delay * 2, MAX_RETRY_DELAY)
    if waiting_since is not None:
        log.info("got the write lock after %.1f s", time.monotonic() - waiting_since)


def still_locked(where: str, wait_seconds: float) -> DatabaseLockedError:
    return DatabaseLockedError(
        f"{where} stayed locked by another program's write for {wait_seconds:g} "
        f"second{'' if wait_seconds == 1 else 's'}, so this change was not saved.",
        "Let the other Hearth window or command (an import, a dream) finish, then try again.")
