"""Long jobs write in short transactions, so nobody else waits long to write.

SQLite has one writer at a time. A job that writes for many seconds in one transaction (an
import of 100,000 turns, decay over every memory) makes every other write wait as long, a
person's included; past the wait limit that write would fail. So jobs that write a lot go
through a ``WritePacer``:

* each transaction takes a slice of the work sized so that it lasts about
  ``TRANSACTION_SECONDS``. The size is learnt as the job runs (rows per second on this
  machine, for this job): a fixed count would be a few milliseconds for one job and seconds
  for another;
* the next transaction starts ``PAUSE_SECONDS`` after the previous one committed, longer
  than a waiting writer ever sleeps between its tries (``write_turns.MAX_RETRY_DELAY`` and
  SQLite's busy handler, both 100 ms), so a waiting writer gets in between (barring a
  stall of the operating system's scheduler, after which the next pause serves). After a
  shorter transaction (the first, small slices; a small table) the pause is as long as
  the transaction was: the lock is free half the time then, and those moments are few;
* CPU work (embedding) is done by the callers outside these transactions.

Every slice commits on its own, so a job using this must be written to resume: run again
after an interruption, it creates only what is still missing (and never a duplicate).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar, overload

from sqlalchemy.orm import Session

from core.storage.port import StoragePort

TRANSACTION_SECONDS = 0.3
PAUSE_SECONDS = 0.12
FIRST_SIZE = 64
MAX_SIZE = 20_000
MIN_ELAPSED = 0.001
"""Below a millisecond the clock says little about the rate; count it as one."""

T = TypeVar("T")


class WritePacer:
    """Short write transactions for one long job; see the module docstring.

    ``size`` is how many items the next transaction should take; ``slices(items)`` cuts a
    list by it, and ``write()`` is the transaction (which measures itself to size the next).
    """

    def __init__(self, storage: StoragePort, *, first_size: int = FIRST_SIZE,
                 max_size: int = MAX_SIZE, seconds: float = TRANSACTION_SECONDS,
                 pause: float = PAUSE_SECONDS) -> None:
        self._storage = storage
        self._size = max(1, min(first_size, max_size))
        self._max_size = max_size
        self._seconds = seconds
        self._pause = pause
        self._committed_at: float | None = None
        self._last_took = 0.0

    @property
    def size(self) -> int:
        return self._size

    def resize_from(self, first_size: int) -> None:
        """Start sizing afresh, for work with another cost per item (the next table); the
        pause after the last transaction still applies."""
        self._size = max(1, min(first_size, self._max_size))

    @overload
    def slices(self, items: range) -> Iterator[range]: ...
    @overload
    def slices(self, items: Sequence[T]) -> Iterator[Sequence[T]]: ...

    def slices(self, items: Sequence[T]) -> Iterator[Sequence[T]]:
        """Consecutive slices of ``items``, each as long as ``size`` is when it is taken:
        write each one in its own ``write()``."""
        start = 0
        while start < len(items):
            piece = items[start:start + self._size]
            start += len(piece)
            yield piece

    @contextmanager
    def write(self) -> Iterator[Session]:
        """One write transaction of ``size`` items, after the pause that lets others in.

        Timed from the moment it holds the lock (``StoragePort.write`` takes it on entry),
        so time spent waiting for another writer does not shrink the next slice."""
        if self._committed_at is not None:
            rest = min(self._pause, self._last_took) - (time.monotonic() - self._committed_at)
            if rest > 0:
                time.sleep(rest)
        with self._storage.write() as session:
            started = time.monotonic()
            yield session
        self._committed_at = time.monotonic()
        self._last_took = self._committed_at - started
        self._resize(self._last_took)

    def _resize(self, elapsed: float) -> None:
        """The size that would have taken ``TRANSACTION_SECONDS`` at this rate; growing at
        most twofold at a time, since a few fast rows say little about the next ones."""
        wanted = int(self._size * self._seconds / max(elapsed, MIN_ELAPSED))
        self._size = max(1, min(wanted, 2 * self._size, self._max_size))
