"""Errors that reach a person.

Every error Hearth shows to a user carries two sentences: what went wrong and what to do
about it. The CLI prints both to stderr with a non-zero exit; the desktop app shows them
in a dialog. Code deeper down raises these instead of letting library exceptions escape.
"""

from __future__ import annotations


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


class DatabaseLockedError(DatabaseError):
    """Another process holds a write lock for longer than the busy timeout."""


class NotFoundError(HearthError):
    """A record the caller named does not exist."""


class InvalidInputError(HearthError):
    """Input from a user or a file that cannot be accepted as it is."""
