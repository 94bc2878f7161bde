"""Who has a data folder open, and who runs what in it.

Every Hearth process that opens a data folder holds a *shared* lock on ``hearth.lock``;
an operation that replaces the database file (restore) needs the *exclusive* lock, which
it gets only when nobody else has the folder open. Other one-at-a-time jobs use their own
lock file in the same folder (``dream.lock``, ``scheduler.lock``). These are
operating-system locks (``flock``): they vanish with the process, so a crash never leaves
a stale lock behind.

``flock`` needs no write access, so in a folder this process cannot write an existing lock
file is opened for reading and locked all the same; a lock file that is missing there
cannot be made, which is a ``ReadOnlyError``.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from core.errors import (
    NOT_WRITABLE,
    DatabaseLockedError,
    HearthError,
    ReadOnlyError,
    translated_os_errors,
)


class FolderLock:
    """A shared or exclusive hold on a lock file of a data folder, released by
    ``release()`` or exit. ``busy`` is raised (at once) when it is taken, unless ``wait``:
    then it waits its turn (for short jobs that must simply run one at a time)."""

    def __init__(self, home: Path, *, exclusive: bool, name: str = "hearth.lock",
                 busy: HearthError | None = None, wait: bool = False) -> None:
        with translated_os_errors(home):
            home.mkdir(parents=True, exist_ok=True)
            self._fd: int | None = _open_lock_file(home / name)
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(self._fd, mode if wait else mode | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._fd)
            self._fd = None
            raise busy or DatabaseLockedError(
                f"Another Hearth process is using {home}.",
                "Quit the Hearth window, daemon or other commands using it, then try again.",
            ) from exc

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> FolderLock:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.release()


def _open_lock_file(path: Path) -> int:
    """A handle on the lock file, created if needed, or read-only where it cannot be."""
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as error:
        if error.errno not in NOT_WRITABLE:
            raise
        try:
            return os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            raise ReadOnlyError.at(path.parent, error.strerror) from error
