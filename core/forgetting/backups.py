"""Backups taken before a forget or a delete: which still hold what went, and rewriting
them without it.

Copies of the database in the data folder are the backups (``core.home.backups``) and the
databases a restore moved aside (``hearth.db.before-restore-*``).

What went is a ``CopyErasure``: a forgotten fact (``FactErasure``, here) or deleted memories
(``core.forgetting.memories.MemoriesErasure``). A copy holds it when its bytes contain one
of its texts (which also catches freed pages and full-text index entries that no table
shows), or when one of its tables does (for texts too short for a byte search to mean
anything, ``matching.MIN_SCAN_BYTES``), or when it still has the fact or memory itself.

Rewriting one never touches it until the rewritten copy is proven good: the copy is made
beside it, what went is erased from the copy as from the live database (for a fact
``database.erase_fact``, without re-embedding: the redacted rows lose their vectors and
``hearth reembed`` makes new ones after a restore), the copy is ``VACUUM``-ed so no free
page keeps old bytes, checked (``PRAGMA integrity_check``, and none of its tables holds
what went), and only then atomically renamed over the original, with the original's
modification time. A copy opened this way is brought to the current schema, as a restore
would. Any failure removes the copy and leaves the original as it was, and says so.
"""

from __future__ import annotations

import logging
import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Protocol

from sqlalchemy import create_engine
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from core.home.backups import list_backups, verify_backup
from core.config import HearthPaths
from core.errors import HearthError
from core.forgetting.database import erase_fact, fact_exists, fact_values, find, redactor_for
from core.forgetting.files import file_holds
from core.forgetting.matching import ValueMatcher
from core.storage.port import StoragePort
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import dbapi_module

log = logging.getLogger(__name__)

SIDECARS = ("-wal", "-shm", "-journal")
REWRITING = ".forgetting"
"""Suffix of a copy being rewritten (not ``.db``: backup listings never show it)."""


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


def database_copies(paths: HearthPaths) -> list[Path]:
    """The backups (newest first), then the databases a restore moved aside."""
    aside = sorted(path for path in paths.home.glob(f"{paths.database.name}.before-restore-*")
                   if path.is_file() and not path.name.endswith(SIDECARS))
    return [backup.path for backup in list_backups(paths)] + aside


def _with_sidecars(path: Path) -> list[Path]:
    return [path, *(path.with_name(path.name + suffix) for suffix in SIDECARS)]


@contextmanager
def _read_only(path: Path) -> Iterator[Session]:
    """A session on ``path`` that cannot write to it. ``immutable``: nothing writes a backup
    while it is read here, so SQLite needs no lock or shared-memory file beside it (which a
    read-only folder could not take, and which would otherwise be left behind)."""
    module = dbapi_module()
    uri = f"{path.resolve().as_uri()}?mode=ro&immutable=1"
    engine = create_engine("sqlite://", module=module, poolclass=NullPool,
                           creator=lambda: module.connect(uri, uri=True), hide_parameters=True)
    try:
        with Session(engine) as session:
            yield session
    finally:
        engine.dispose()


def values_in(path: Path, key: str) -> list[str]:
    """The values the fact ``key`` had in the copy at ``path`` (none if it never had it, or
    if the copy cannot be read: ``holds`` then names it and ``rewrite`` says why)."""
    try:
        with _read_only(path) as session:
            return fact_values(session, key)
    except (OSError, SQLAlchemyError):
        log.warning("could not read %s for the values of a forgotten fact", path,
                    exc_info=True)
        return []


def holds(path: Path, erasure: CopyErasure) -> bool:
    """Whether the copy at ``path`` still holds what ``erasure`` took away. A copy that
    cannot be read is counted as holding it: the user is told about it, and a rewrite says
    what is wrong with it."""
    matcher = erasure.matcher
    if matcher.verifiable and any(file_holds(part, matcher) for part in _with_sidecars(path)):
        return True
    try:
        with _read_only(path) as session:
            return erasure.held_in(session)
    except (OSError, SQLAlchemyError):
        log.warning("could not read %s to see whether it holds what was forgotten", path,
                    exc_info=True)
        return True


def rewrite(path: Path, erasure: CopyErasure) -> BackupRewrite:
    """Rewrite the copy at ``path`` without what ``erasure`` took away; see the module
    docstring. The original is replaced only by a checked copy."""
    working = path.with_name(path.name + REWRITING)
    try:
        _copy_with_wal(path, working)
        _erase_in(working, erasure)
        _check(working, erasure)
        _replace(working, path)
    except HearthError as error:
        _remove(working)
        return BackupRewrite(path, False, f"{error.message} It was left as it was.")
    except OSError as error:  # a read-only folder, a full disk
        _remove(working)
        return BackupRewrite(path, False, f"A rewritten copy could not be written beside it "
                                          f"({error.strerror or error}). It was left as it was.")
    except Exception as error:  # a bug or a full disk: the original stays, the user is told
        log.exception("rewriting a backup without what was forgotten failed")
        _remove(working)
        return BackupRewrite(path, False, f"{type(error).__name__}: {error}. "
                                          "It was left as it was.")
    return BackupRewrite(path, True, "rewritten without it")


def _copy_with_wal(source: Path, target: Path) -> None:
    """Copy a database and its write-ahead log (which may hold its latest pages)."""
    _remove(target)
    shutil.copy2(source, target)
    wal = source.with_name(source.name + "-wal")
    if wal.is_file() and wal.stat().st_size:
        shutil.copy2(wal, target.with_name(target.name + "-wal"))


def _erase_in(working: Path, erasure: CopyErasure) -> None:
    storage = SqliteStorage(working)
    try:
        erasure.erase(storage)
        if not storage.erase_deleted(compact=True):
            raise HearthError("The rewritten copy was still in use.",
                              "Close other programs using the backups folder and try again.")
    finally:
        storage.close()


def _check(working: Path, erasure: CopyErasure) -> None:
    """The rewritten copy is sound and no table of it holds what went. (Its bytes are not a
    test: a fact's key or Hearth's own ids may share them, and ``VACUUM`` already left no
    free space.)"""
    verify_backup(working)
    with _read_only(working) as session:
        if erasure.held_in(session):
            raise HearthError("The rewritten copy still held it.",
                              "Please report this; the backup was not changed.")


def _replace(working: Path, original: Path) -> None:
    """Put the checked copy in place of the original, atomically and durably, keeping the
    original's modification time (backup listings show it as when the backup was taken)."""
    if not original.exists():
        raise HearthError(f"{original.name} was removed meanwhile.", "Nothing to rewrite.")
    stat = original.stat()
    os.utime(working, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with working.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(working, original)
    for sidecar in [*_with_sidecars(original)[1:], *_with_sidecars(working)[1:]]:
        sidecar.unlink(missing_ok=True)  # empty ones, left by read-only checks
    _sync_folder(original.parent)


def _sync_folder(folder: Path) -> None:
    """Make the rename durable (POSIX; Windows has no directory handles to sync)."""
    if os.name != "posix":
        return
    descriptor = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


def _remove(path: Path) -> None:
    for part in _with_sidecars(path):
        part.unlink(missing_ok=True)
