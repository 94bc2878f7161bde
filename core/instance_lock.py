"""Who has a data folder open.

Every Hearth process that opens a data folder holds a *shared* lock on ``hearth.lock``;
an operation that replaces the database file (restore) needs the *exclusive* lock, which
it gets only when nobody else has the folder open. These are operating-system locks
(``flock``): they vanish with the process, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

from core.errors import DatabaseLockedError


class FolderLock:
    """A shared or exclusive hold on a data folder, released by ``release()`` or exit."""

    def __init__(self, home: Path, *, exclusive: bool) -> None:
        home.mkdir(parents=True, exist_ok=True)
        self._fd: int | None = os.open(home / "hearth.lock", os.O_RDWR | os.O_CREAT, 0o600)
        mode = fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH
        try:
            fcntl.flock(self._fd, mode | fcntl.LOCK_NB)
        except BlockingIOError as exc:
            os.close(self._fd)
            self._fd = None
            raise DatabaseLockedError(
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
