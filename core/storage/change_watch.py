"""Watching the database for what other processes and devices commit.

A thread of its own asks, every ``POLL_SECONDS``, on one connection it keeps, whether
anything was committed since it last asked, and when so reads the change log's new rows
(``core.storage.change_log``) and hands the domains other origins changed to the feed's
subscribers. How it asks is the backend's: SQLite's ``PRAGMA data_version`` moves when
another connection commits and costs no read of any table (a ``Probe``); on PostgreSQL the
log's primary key is the counter, and reading the rows after the last one seen is itself
one index lookup. The connection holds no transaction between polls, so it never keeps a
snapshot (or a SQLite write-ahead log) alive.

Measured, not guessed: see ``benchmarks/change_feed.py``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from sqlalchemy import Connection, Engine

from core.storage import change_log
from core.storage.changes import Changes

log = logging.getLogger(__name__)

POLL_SECONDS = 0.25
"""How stale a view may be after another process's commit, at most, before it reloads."""
STOP_WAIT_SECONDS = 2.0

Probe = Callable[[Connection], bool]
"""Whether anything may have been committed since the probe was last asked on
``connection`` (True the first time): a cheap look that saves reading the log."""


class ChangeWatch:
    """The watching thread of one ``ChangeFeed``; see the module docstring. The first look
    (where the log ends now) is taken before ``__init__`` returns, so a write committed
    right after the watch started is never taken for an older one."""

    def __init__(self, engine: Engine, origin: str, publish: Callable[[Changes], None],
                 probe: Callable[[], Probe] | None = None) -> None:
        self._engine = engine
        self._origin = origin
        self._publish = publish
        self._make_probe = probe
        self._probe: Probe | None = None
        self._connection: Connection | None = None
        self._last: int | None = None
        self._failing = False
        self._stopping = threading.Event()
        self._look()
        self._thread = threading.Thread(target=self._run, name="hearth-change-watch",
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        self._thread.join(STOP_WAIT_SECONDS)

    def _run(self) -> None:
        while not self._stopping.wait(POLL_SECONDS):
            self._look()
        if self._connection is not None:
            self._connection.close()

    def _look(self) -> None:
        """One poll: where the log ends (the first time), else what others added to it."""
        try:
            if self._connection is None:
                self._connection = self._engine.connect()
                self._probe = self._make_probe() if self._make_probe is not None else None
            connection = self._connection
            if self._last is None:
                self._last = change_log.last_id(connection)
            elif self._probe is None or self._probe(connection):
                found = change_log.since(connection, self._last, self._origin)
                self._last = found.last
                self._publish(found.changes)
            connection.rollback()
            self._failing = False
        except Exception:  # a server gone for a while: say so once, then try again
            if not self._failing:
                log.warning("cannot read what other processes changed; trying again",
                            exc_info=True)
            self._failing = True
            if self._connection is not None:
                self._connection.invalidate()
                self._connection.close()
            self._connection = None
