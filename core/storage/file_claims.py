"""Claims on unfinished rows as lock files beside a SQLite database (``StoragePort.claims``).

The process working on a row a killed process would leave unfinished (a streaming reply, a
running run, an exchange queued for learning: ``core.storage.liveness``) holds an exclusive
``flock`` on ``<folder>/<kind>-<id>.lock``. The operating system drops it when the process
dies, however it dies, and never hands it to another process (unlike a pid), so a free
claim file means its owner is gone. The folder is ``running/`` beside the database file:
everyone who can open that file can see the claims.

This module also holds the SQLite adapter's named exclusive locks (``exclusive``): a
``<name>.lock`` file beside the database, taken without waiting.
"""

from __future__ import annotations

import fcntl
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.errors import HearthError
from core.home.instance_lock import FolderLock

CLAIMS_FOLDER = "running"


class Claim:
    """An exclusive hold on one row's claim file (or nothing, for a database without a
    folder); ``release`` (idempotent) removes it."""

    def __init__(self, path: Path | None, fd: int | None) -> None:
        self._path = path
        self._fd = fd

    def release(self) -> None:
        """Remove the file, then let the lock go (in that order, so nobody can take a lock
        on a file that is about to disappear)."""
        if self._fd is None or self._path is None:
            return
        try:
            self._path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)
            self._fd = None


class FileClaims:
    """The claim files of one data folder (none for a database without a folder, such as
    a private in-memory one, whose rows no other process can see)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def hold(self, kind: str, row_id: int) -> Claim:
        """Claim a row this process is about to commit unfinished.

        ``<kind>-<id>.lock``, or ``<kind>-<id>.<n>.lock`` when that one is held: SQLite
        reuses the id of a deleted last row, whose owner may still be running (a chat
        deleted while its reply streams). Never waits. A file removed between opening and
        locking it (a ``sweep``) is opened again, so the lock held is on the file others
        see."""
        if self.folder is None:
            return Claim(None, None)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        generation = 0
        while True:
            suffix = f".{generation}" if generation else ""
            path = self.folder / f"{kind}-{row_id}{suffix}.lock"
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            if not _try_lock(fd):
                os.close(fd)
                generation += 1
            elif _same_file(fd, path):
                return Claim(path, fd)
            else:
                os.close(fd)

    def alive(self, kind: str, row_id: int) -> bool:
        """Whether a live process holds one of the row's claims (True when that cannot be
        known: no folder)."""
        if self.folder is None:
            return True
        return any(_held(path) for path in self.folder.glob(f"{kind}-{row_id}.*lock"))

    def sweep(self) -> None:
        """Remove claim files nobody holds (left by processes that were killed)."""
        if self.folder is None or not self.folder.is_dir():
            return
        for path in self.folder.glob("*.lock"):
            try:
                fd = os.open(path, os.O_RDWR)
            except FileNotFoundError:
                continue  # its owner finished meanwhile
            try:
                if _try_lock(fd) and _same_file(fd, path):
                    path.unlink()
            finally:
                os.close(fd)


_private_locks: dict[tuple[int, str], threading.Lock] = {}
_private_locks_guard = threading.Lock()


@contextmanager
def exclusive(folder: Path | None, name: str, busy: HearthError, *,
              owner: object = None) -> Iterator[None]:
    """Hold ``<folder>/<name>.lock`` exclusively, or raise ``busy`` at once. A database
    without a folder (private, in memory) is seen by this process only: a lock per
    ``owner`` and name stands in for the file."""
    if folder is not None:
        with FolderLock(folder, exclusive=True, name=f"{name}.lock", busy=busy):
            yield
        return
    with _private_locks_guard:
        lock = _private_locks.setdefault((id(owner), name), threading.Lock())
    if not lock.acquire(blocking=False):
        raise busy
    try:
        yield
    finally:
        lock.release()


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock on ``fd`` if nobody holds it, without waiting."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _held(path: Path) -> bool:
    """Whether another open file holds the lock on ``path`` (False once it is gone)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        return not _try_lock(fd)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed or replaced)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False
