"""Errors that reach a person.

Every error Hearth shows to a user carries two sentences: what went wrong and what to do
about it. The CLI prints both to stderr with a non-zero exit; the desktop app shows them
in a dialog. Code deeper down raises these instead of letting library exceptions escape;
``translated_os_errors`` does it for the two things that go wrong when writing a file and
that a person can fix: a full disk, a place that cannot be written.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


class HearthError(Exception):
    """A failure with a plain-language message and a hint that says how to fix it."""

    exit_code = 1

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class ModelUnavailableError(HearthError):
    """The embedding model folder is missing, incomplete or unreadable."""


class DatabaseError(HearthError):
    """The database cannot be opened or used (not SQLite, corrupt, locked, too new)."""


class DamagedDatabaseError(DatabaseError):
    """A SQLite file that is damaged or not a database at all: what a restore is for."""


class DatabaseLockedError(DatabaseError):
    """Another process holds a write lock for longer than the busy timeout."""


class NotFoundError(HearthError):
    """A record the caller named does not exist."""


class InvalidInputError(HearthError):
    """Input from a user or a file that cannot be accepted as it is."""


class ReadOnlyError(HearthError):
    """Something Hearth has to change cannot be written: a read-only disk or mount, missing
    permissions, an immutable file."""

    @classmethod
    def at(cls, path: Path | str, reason: str | None = "") -> ReadOnlyError:
        detail = f" ({reason})" if reason else ""
        return cls(f"{path} is read-only{detail}.",
                   "Make it writable to change anything; the commands that only read "
                   "(status, stats, search, facts list, export, doctor) still work.")


class DiskFullError(HearthError):
    """The disk holding a file Hearth writes has no space left."""

    @classmethod
    def at(cls, path: Path | str) -> DiskFullError:
        return cls(f"The disk holding {path} is full.",
                   "Free some space on it and try again; what Hearth had already saved is "
                   "unchanged.")


NOT_WRITABLE = frozenset({errno.EROFS, errno.EACCES, errno.EPERM})
DISK_FULL = frozenset({errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)})


@contextmanager
def translated_os_errors(path: Path) -> Iterator[None]:
    """While writing ``path``: a full disk or a place that cannot be written becomes a
    sentence; any other ``OSError`` is unexpected and passes unchanged."""
    try:
        yield
    except OSError as error:
        if error.errno in DISK_FULL:
            raise DiskFullError.at(path) from error
        if error.errno in NOT_WRITABLE:
            raise ReadOnlyError.at(error.filename or path, error.strerror) from error
        raise


class PassphraseNeededError(HearthError):
    """The data folder is encrypted and no passphrase (or keyring key) was given for it."""

    @classmethod
    def at(cls, home: Path | str) -> PassphraseNeededError:
        return cls(f"The data folder {home} is encrypted and needs its passphrase.",
                   "Type it when asked, or set HEARTH_PASSPHRASE for a script.")


class WrongPassphraseError(HearthError):
    """The passphrase or key given for an encrypted data folder does not open it."""

    @classmethod
    def at(cls, home: Path | str) -> WrongPassphraseError:
        return cls(f"That passphrase does not open the encrypted data folder {home}.",
                   "Nothing was changed; try again with the right passphrase.")
