"""SQLite's backup files: checking one, reading one, and rewriting one without what a forget
took away (``core.storage.port.BackupCopies``).

A SQLite backup is a database file (``hearth-<stamp>.db``, one self-contained file:
``SqliteStorage.backup_to`` switches it to a rollback journal), checked with ``PRAGMA
integrity_check`` before it counts. The databases a restore moved aside
(``hearth.db.before-restore-*``, ``core.storage.sqlite.restore``) are copies too.

Rewriting one never touches it until the rewritten copy is proven good: the copy is made
beside it (with its write-ahead log, which may hold its latest pages), opened as a
``SqliteStorage`` (brought to the current schema, as a restore would), the erasure runs in
it, it is ``VACUUM``-ed so no free page keeps old bytes, checked (``integrity_check``, and
the caller's "does it still hold it"), and only then atomically renamed over the original,
with the original's modification time. Any failure removes the copy and leaves the original
as it was.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import create_engine
from sqlalchemy.orm import Session
from sqlalchemy.pool import NullPool

from core.errors import DatabaseError, HearthError
from core.home.encryption import key_for
from core.storage.durable import sync_folder
from core.storage import migrate
from core.storage.port import StoragePort
from core.storage.sqlite.damage import OTHER_BACKUP_HINT, damaged, first_problem
from core.storage.sqlite.engine import (
    SQLITE_HEADER,
    connect_file,
    module_for,
    read_only_parameters,
    sqlite_uri,
    translated_errors,
)
from core.storage.sqlite.ownership import Owner, Ownership, ownership

BACKUP_SUFFIX = ".db"
SIDECARS = ("-wal", "-shm", "-journal")
ASIDE = ".before-restore-"
"""A database a restore moved aside is named ``hearth.db.before-restore-<stamp>``."""
REWRITING = ".forgetting"
"""Suffix of a copy being rewritten (not ``.db``: backup listings never show it)."""


def verify_backup(path: Path) -> None:
    """Raise unless ``path`` is a backup this Hearth can restore: a readable, internally
    consistent SQLite database (in an encrypted folder, one its key opens: its header is
    encrypted too) holding Hearth's schema at a revision this version knows. What is wrong
    is said of the backup, never with the live database's way back."""
    if key_for(path) is None:
        with path.open("rb") as handle:
            if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                raise DatabaseError(f"{path} is not a SQLite database.", OTHER_BACKUP_HINT)
    with translated_errors(path, backup=True):
        connection = connect_file(path, sqlite_uri(path, **read_only_parameters(path)),
                                  uri=True)
        try:
            problem = first_problem(connection.execute("PRAGMA integrity_check").fetchall())
            if problem is not None:
                raise damaged(str(path), problem, backup=True)
            refuse_unknown_schema(ownership(connection), path)
        finally:
            connection.close()


def refuse_unknown_schema(found: Ownership, backup: Path) -> None:
    """Refuse a backup that is not Hearth's, or that a newer Hearth made (this version
    could not open it once restored)."""
    if found.owner is Owner.NEWER_HEARTH:
        raise DatabaseError(
            f"{backup} was made by a newer version of Hearth (schema revision "
            f"{found.revision}; this version knows up to {migrate.HEAD}).",
            "Restore it with that newer Hearth, or pick a backup this version made "
            "(`hearth backup --list` shows them).")
    if found.owner is not Owner.HEARTH:
        reason = "it holds no table" if found.owner is Owner.NEW else found.reason
        raise DatabaseError(f"{backup} is not a Hearth backup ({reason}).", OTHER_BACKUP_HINT)


def check_integrity(connection: Any, path: Path) -> None:
    """``PRAGMA integrity_check`` on an open DB-API connection to ``path``."""
    verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
    if verdict != "ok":
        raise DatabaseError(f"{path} failed its integrity check ({verdict}).",
                            "Pick an older backup from the backups folder.")


def with_sidecars(path: Path) -> list[Path]:
    """A database file and the files SQLite keeps beside it."""
    return [path, *(path.with_name(path.name + suffix) for suffix in SIDECARS)]


class SqliteCopies:
    """The backups of the database at ``database``, as files (see the module docstring)."""

    suffix = BACKUP_SUFFIX

    def __init__(self, database: Path | None, open_copy: Callable[[Path], StoragePort]) -> None:
        """``open_copy``: the adapter, opening a working copy as it opens the database."""
        self._database = database
        self._open_copy = open_copy

    def verify(self, copy: Path) -> None:
        verify_backup(copy)

    def set_aside(self) -> list[Path]:
        if self._database is None:
            return []
        name = self._database.name
        return sorted(path for path in self._database.parent.glob(f"{name}{ASIDE}*")
                      if path.is_file() and not path.name.endswith(SIDECARS))

    def files(self, copy: Path) -> list[Path]:
        return with_sidecars(copy)

    @contextmanager
    def reading(self, copy: Path) -> Iterator[Session]:
        """``immutable``: nothing writes a backup while it is read here, so SQLite needs no
        lock or shared-memory file beside it (which a read-only folder could not take, and
        which would otherwise be left behind)."""
        uri = f"{copy.resolve().as_uri()}?mode=ro&immutable=1"
        engine = create_engine("sqlite://", module=module_for(copy), poolclass=NullPool,
                               creator=lambda: connect_file(copy, uri, uri=True),
                               hide_parameters=True)
        try:
            with Session(engine) as session:
                yield session
        finally:
            engine.dispose()

    def rewrite(self, copy: Path, erase: Callable[[StoragePort], None],
                still_holds: Callable[[Session], bool]) -> None:
        working = copy.with_name(copy.name + REWRITING)
        try:
            _copy_with_wal(copy, working)
            self._erase_in(working, erase)
            verify_backup(working)
            with self.reading(working) as session:
                if still_holds(session):
                    raise HearthError("The rewritten copy still held it.",
                                      "Please report this; the backup was not changed.")
            _replace(working, copy)
        except BaseException:
            _remove(working)
            raise

    def _erase_in(self, working: Path, erase: Callable[[StoragePort], None]) -> None:
        storage = self._open_copy(working)
        try:
            erase(storage)
            if not storage.erase_deleted(compact=True):
                raise HearthError("The rewritten copy was still in use.",
                                  "Close other programs using the backups folder and try "
                                  "again.")
        finally:
            storage.close()


def _copy_with_wal(source: Path, target: Path) -> None:
    """Copy a database and its write-ahead log (which may hold its latest pages)."""
    _remove(target)
    shutil.copy2(source, target)
    wal = source.with_name(source.name + "-wal")
    if wal.is_file() and wal.stat().st_size:
        shutil.copy2(wal, target.with_name(target.name + "-wal"))


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
    for sidecar in [*with_sidecars(original)[1:], *with_sidecars(working)[1:]]:
        sidecar.unlink(missing_ok=True)  # empty ones, left by read-only checks
    sync_folder(original.parent)


def _remove(path: Path) -> None:
    for part in with_sidecars(path):
        part.unlink(missing_ok=True)
