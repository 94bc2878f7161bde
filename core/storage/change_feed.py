"""The change feed: what each write transaction changed, derived where the write happens and
told to whoever listens once it is committed.

Every write goes through a storage adapter's write scope (``StoragePort.write``), which is
``ChangeFeed.transaction``: while the unit of work runs, a listener on the engine notes the
table each statement writes (an ORM flush, a Core ``insert``/``update``/``delete``, a
text statement alike: they all reach the cursor), the scope maps the tables to domains
(``core.storage.changes.TABLE_DOMAINS``), appends the change set to the change log in the
same transaction (``core.storage.change_log``, for other processes) and, once the commit
succeeded, calls the subscribers with it. So a window operation, a scheduled job, learning
and an agent's call are told alike, by the one place that knows what was written, and a
rolled-back transaction tells nothing.

What other processes and devices commit reaches the same subscribers through ``watch``
(``core.storage.change_watch``). A few changes are not writes to the database (the settings
file, the schedule started); their writers ``publish`` them here, so listeners still have
one feed to follow.
"""

from __future__ import annotations

import logging
import re
import secrets
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, event
from sqlalchemy.orm import Session, sessionmaker

from core.storage import change_log
from core.storage.change_watch import ChangeWatch, Probe
from core.storage.changes import Changes, written

log = logging.getLogger(__name__)

Subscriber = Callable[[Changes], None]

RECORDING = "hearth_written_tables"
"""Where a write scope's connection collects the tables its statements write
(``Connection.info``, present only while the scope runs)."""
WRITES = re.compile(r"\s*(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE(?:\s+OR\s+\w+)?"
                    r"|DELETE\s+FROM)\s+[\"`]?(\w+)", re.IGNORECASE)
"""The table a data-changing statement writes, as SQLAlchemy and Hearth's own SQL spell it."""


class ChangeFeed:
    """The change sets of one open database, for subscribers in this process."""

    def __init__(self, engine: Engine, *, probe: Callable[[], Probe] | None = None,
                 shared: bool = True) -> None:
        """``engine``: the adapter's, whose statements are noted and on which ``watch``
        reads the change log; ``probe``: the backend's cheap "did anything commit?" check
        (see ``ChangeWatch``); ``shared``: whether other processes can write the database
        at all (not a private in-memory one, which there is no point watching)."""
        self.origin = secrets.token_hex(8)
        """This feed's name in the change log: its own rows are not news to it."""
        self._engine = engine
        self._probe = probe
        self._shared = shared
        self._log = True
        self._subscribers: tuple[Subscriber, ...] = ()
        self._lock = threading.Lock()  # guards the two below
        self._watch: ChangeWatch | None = None
        event.listen(engine, "before_cursor_execute", _note_written)

    def subscribe(self, subscriber: Subscriber) -> Callable[[], None]:
        """Call ``subscriber(changes)`` after each change from now on, on the thread that
        committed it (or the watch's); it must return quickly. Returns the unsubscriber."""
        with self._lock:
            self._subscribers = (*self._subscribers, subscriber)

        def unsubscribe() -> None:
            with self._lock:
                self._subscribers = tuple(s for s in self._subscribers if s is not subscriber)

        return unsubscribe

    def publish(self, changes: Changes) -> None:
        """Tell every subscriber ``changes`` (nothing for an empty change set). A failing
        subscriber is logged and never stops the writer nor the other subscribers."""
        if not changes:
            return
        for subscriber in self._subscribers:
            try:
                subscriber(changes)
            except Exception:
                log.exception("a change subscriber failed on %s", sorted(changes.domains))

    @contextmanager
    def transaction(self, sessions: sessionmaker[Session]) -> Iterator[Session]:
        """A write transaction on a session from ``sessions`` (the adapter's write
        sessions, whose lock is taken on entry, before the caller's body runs): noted,
        logged, committed, then published."""
        with sessions() as session:
            with session.begin():
                connection = session.connection()
                tables: set[str] = set()
                connection.info[RECORDING] = tables
                try:
                    yield session
                    session.flush()  # what the commit would flush is noted too
                finally:
                    connection.info.pop(RECORDING, None)
                changes = written(tables)
                if changes and self._log:
                    change_log.append(session, self.origin, changes)
            self.publish(changes)

    def watch(self) -> None:
        """Start telling the subscribers what other processes and devices commit (once;
        later calls do nothing). It stops with ``close``."""
        with self._lock:
            if self._watch is None and self._shared:
                self._watch = ChangeWatch(self._engine, self.origin, self.publish, self._probe)

    def close(self) -> None:
        """Stop the watch, if one runs (before the engine is disposed)."""
        with self._lock:
            watch, self._watch = self._watch, None
        if watch is not None:
            watch.stop()


def _note_written(connection: Connection, _cursor: Any, statement: str, _parameters: Any,
                  _context: Any, _executemany: bool) -> None:
    """Engine listener: add the table a statement writes to its write scope's record."""
    tables = connection.info.get(RECORDING)
    if tables is not None and (match := WRITES.match(statement)) is not None:
        tables.add(match.group(1).lower())
