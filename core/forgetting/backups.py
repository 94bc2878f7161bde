"""Backups taken before a forget or a delete: which still hold what went, and rewriting
them without it.

The copies are the backups (``core.storage.backups``) and whatever the backend set aside
itself (SQLite: the databases a restore moved aside, ``hearth.db.before-restore-*``). What
a copy is differs per backend, so it is reached only through the storage port's
``BackupCopies`` (``storage.copies``): its files, a read-only session on it, and a checked
rewrite of it. A ``pg_dump`` archive is compressed, so it is read and rewritten by
restoring it into a scratch database on the same server
(``core.storage.postgres.copies``); a server that does not allow that makes the rewrite
fail with a sentence saying so, and the backup is reported as still holding it.

What went is a ``CopyErasure``: a forgotten fact (``FactErasure``, here) or deleted memories
(``core.forgetting.memories.MemoriesErasure``). A copy holds it when its bytes contain one
of its texts (which also catches freed pages and full-text index entries that no table
shows), or when one of its tables does (for texts too short for a byte search to mean
anything, ``matching.MIN_SCAN_BYTES``), or when it still has the fact or memory itself.

Rewriting one never touches it until the rewritten copy is proven good (``copies.rewrite``):
what went is erased from a working copy as from the live database (for a fact
``database.erase_fact``, without re-embedding: the redacted rows lose their vectors and
``hearth reembed`` makes new ones after a restore), the copy is compacted so no free space
keeps old bytes, checked (sound, and none of its tables holds what went), and only then put
in place of the original, with the original's modification time. Any failure leaves the
original as it was, and says so.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from core.home.paths import HearthPaths
from core.errors import HearthError
from core.forgetting.database import erase_fact, fact_exists, fact_values, find, redactor_for
from core.forgetting.files import file_holds
from core.forgetting.matching import ValueMatcher
from core.storage.backups import list_backups
from core.storage.port import BackupCopies, StoragePort

log = logging.getLogger(__name__)


class CopyErasure(Protocol):
    """What a forget or a delete took away, as a backup must lose it too. Its texts live in
    memory only, for as long as the user's action that made it."""

    @property
    def matcher(self) -> ValueMatcher:
        """The texts that went, for the byte search."""

    def erase(self, storage: StoragePort) -> None:
        """Take it out of the copy opened as ``storage``, in one transaction, unaudited."""

    def held_in(self, session: Session) -> bool:
        """Whether a table of the copy still holds it."""


@dataclass(frozen=True)
class FactErasure:
    """A forgotten fact: its key and every value it had."""

    key: str
    values: Sequence[str]

    @cached_property
    def matcher(self) -> ValueMatcher:
        return ValueMatcher(self.values)

    def erase(self, storage: StoragePort) -> None:
        erase_fact(storage, self.key, known_values=self.values, audit=False)

    def held_in(self, session: Session) -> bool:
        return fact_exists(session, self.key) or bool(
            find(session, redactor_for(session, self.key, self.values)))


@dataclass(frozen=True)
class BackupRewrite:
    """The outcome for one copy: rewritten without the value, or left as it was and why."""

    path: Path
    ok: bool
    message: str


def database_copies(paths: HearthPaths, copies: BackupCopies) -> list[Path]:
    """The backups of this backend (newest first), then the databases it set aside."""
    return [backup.path for backup in list_backups(paths, copies.suffix)] + copies.set_aside()


def values_in(copies: BackupCopies, path: Path, key: str) -> list[str]:
    """The values the fact ``key`` had in the copy at ``path`` (none if it never had it, or
    if the copy cannot be read: ``holds`` then names it and ``rewrite`` says why)."""
    try:
        with copies.reading(path) as session:
            return fact_values(session, key)
    except (OSError, SQLAlchemyError, HearthError):
        log.warning("could not read %s for the values of a forgotten fact", path,
                    exc_info=True)
        return []


def holds(copies: BackupCopies, path: Path, erasure: CopyErasure) -> bool:
    """Whether the copy at ``path`` still holds what ``erasure`` took away. A copy that
    cannot be read is counted as holding it: the user is told about it, and a rewrite says
    what is wrong with it."""
    matcher = erasure.matcher
    if matcher.verifiable and any(file_holds(part, matcher) for part in copies.files(path)):
        return True
    try:
        with copies.reading(path) as session:
            return erasure.held_in(session)
    except (OSError, SQLAlchemyError, HearthError):  # a pg_dump the server cannot load
        log.warning("could not read %s to see whether it holds what was forgotten", path,
                    exc_info=True)
        return True


def rewrite(copies: BackupCopies, path: Path, erasure: CopyErasure) -> BackupRewrite:
    """Rewrite the copy at ``path`` without what ``erasure`` took away; see the module
    docstring. The original is replaced only by a checked copy."""
    try:
        copies.rewrite(path, erasure.erase, erasure.held_in)
    except HearthError as error:
        return BackupRewrite(path, False, f"{error.message} It was left as it was.")
    except OSError as error:  # a read-only folder, a full disk
        return BackupRewrite(path, False, f"A rewritten copy could not be written beside it "
                                          f"({error.strerror or error}). It was left as it was.")
    except Exception as error:  # a bug or a full disk: the original stays, the user is told
        log.exception("rewriting a backup without what was forgotten failed")
        return BackupRewrite(path, False, f"{type(error).__name__}: {error}. "
                                          "It was left as it was.")
    return BackupRewrite(path, True, "rewritten without it")
