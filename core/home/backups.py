"""Online backups with rotation, and restore.

A backup is a consistent snapshot taken through the storage port while Hearth keeps
running (SQLite's backup API), checked with ``PRAGMA integrity_check`` before it counts,
then the oldest backups beyond ``keep`` are removed. Consolidation takes one before any
destructive maintenance. Backups are written one at a time (``backup.lock``), so whatever a
backup finds of an unfinished one (a ``.partial`` file, the -wal or -shm SQLite kept beside
it, the sidecars of a backup rotated away) is debris of a failure and is removed; a
finished backup is never touched except by rotation.

Restore replaces the database file, so it runs only while no Hearth process has the data
folder open (the caller holds the instance lock). It cannot lose: nothing is changed until
a copy of the backup sits next to the database, synced and checked; then the database is
checkpointed (so the copy set aside is one complete file) and set aside, never deleted,
and the copy renamed into its place. A failure on the way puts back what was moved and
says where everything is. If a restore is cut short between the two renames (a crash),
``refuse_lost_database`` keeps the next start from creating an empty database there.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from core.config import HearthPaths
from core.errors import DatabaseError, HearthError, InvalidInputError, translated_os_errors
from core.home.instance_lock import FolderLock
from core.storage.port import StoragePort
from core.storage.sqlite.engine import (
    SQLITE_HEADER,
    dbapi_module,
    read_only_parameters,
    sqlite_uri,
    translated_errors,
)

PREFIX = "hearth-"
SUFFIX = ".db"
PARTIAL = ".partial"
SIDECARS = ("-wal", "-shm", "-journal")
LOCK_FILE = "backup.lock"
ASIDE = ".before-restore-"
STAGED = ".restoring-"

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class BackupInfo:
    path: Path
    created_at: datetime
    size_bytes: int


class RestoreHalfDoneError(DatabaseError):
    """A restore failed after setting the database aside and could not put it back."""


def _stamp(now: datetime) -> str:
    return now.strftime("%Y%m%dT%H%M%S%fZ")


def list_backups(paths: HearthPaths) -> list[BackupInfo]:
    """Backups in the data folder, newest first."""
    if not paths.backups.is_dir():
        return []
    found = []
    for file in paths.backups.glob(f"{PREFIX}*{SUFFIX}"):
        stat = file.stat()
        found.append(BackupInfo(file, datetime.fromtimestamp(stat.st_mtime, timezone.utc),
                                stat.st_size))
    return sorted(found, key=lambda b: b.path.name, reverse=True)


def verify_backup(path: Path) -> None:
    """Raise unless ``path`` is a readable, internally consistent SQLite database."""
    with path.open("rb") as handle:
        if handle.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
            raise DatabaseError(f"{path} is not a SQLite database.",
                                "Pick another file from the backups folder.")
    with translated_errors(path):
        connection = dbapi_module().connect(sqlite_uri(path, **read_only_parameters(path)),
                                            uri=True)
        try:
            _check_integrity(connection, path)
        finally:
            connection.close()


def _check_integrity(connection: Any, path: Path) -> None:
    verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
    if verdict != "ok":
        raise DatabaseError(f"{path} failed its integrity check ({verdict}).",
                            "Pick an older backup from the backups folder.")


def create_backup(storage: StoragePort, paths: HearthPaths, keep: int,
                  now: datetime | None = None) -> BackupInfo:
    """Snapshot the live database into ``backups/`` and keep only the newest ``keep``."""
    moment = now or datetime.now(timezone.utc)
    target = paths.backups / f"{PREFIX}{_stamp(moment)}{SUFFIX}"
    partial = target.with_suffix(PARTIAL)
    with (translated_os_errors(paths.backups),
          FolderLock(paths.backups, exclusive=True, name=LOCK_FILE, wait=True)):
        _remove_debris(paths.backups)
        try:
            storage.backup_to(partial)
            verify_backup(partial)
            os.replace(partial, target)
            for stale in list_backups(paths)[keep:]:
                stale.path.unlink()
        finally:
            _remove_debris(paths.backups)
        return BackupInfo(target, moment, target.stat().st_size)


def _remove_debris(folder: Path) -> None:
    """Delete what no finished backup owns: unfinished ``.partial`` files with whatever
    SQLite kept beside them, and the sidecars of backups no longer there. Only under the
    backup lock, when no backup is being written."""
    for file in folder.glob(f"{PREFIX}*"):
        name = file.name
        sidecar = next((s for s in SIDECARS if name.endswith(s)), "")
        owner = name[:len(name) - len(sidecar)]
        if owner.endswith(PARTIAL) or (sidecar and not (folder / owner).exists()):
            file.unlink(missing_ok=True)


def restore_backup(paths: HearthPaths, backup: Path, now: datetime | None = None) -> Path | None:
    """Put ``backup`` in place of the database; returns where the previous database was
    set aside (None when there was none). See the module docstring for the steps.

    The caller must hold the data folder's exclusive instance lock, so nothing has the
    database open."""
    if paths.is_database_file(backup):
        raise InvalidInputError(f"{backup} is the live database (or one of its files), "
                                "not a backup.",
                                "Pick a file from the backups folder (`hearth backup --list`).")
    if not backup.is_file():
        raise InvalidInputError(f"{backup} does not exist.",
                                "List backups with `hearth backup --list`.")
    verify_backup(backup)
    database = paths.database
    stamp = _stamp(now or datetime.now(timezone.utc))
    staged = database.with_name(f"{database.name}{STAGED}{stamp}")
    aside = database.with_name(f"{database.name}{ASIDE}{stamp}")
    for leftover in database.parent.glob(f"{database.name}{STAGED}*"):
        _remove_with_sidecars(leftover)  # a restore cut short; ours to clear, under the lock
    try:
        with _nothing_changed(database, backup):
            _copy_verified(backup, staged)
            _checkpoint(database)
            return _swap_in(database, staged, aside, backup)
    finally:
        _remove_with_sidecars(staged)


@contextmanager
def _nothing_changed(database: Path, backup: Path) -> Iterator[None]:
    """A failure before the swap, or one the swap undid, left the database untouched: say
    so, and where everything is."""
    where = f"Nothing was changed: your database is still {database}, the backup {backup}."
    try:
        yield
    except RestoreHalfDoneError:
        raise
    except HearthError as error:
        raise type(error)(error.message, f"{where} {error.hint}".strip()) from error
    except OSError as error:  # a rename or copy the system refused for another reason
        raise DatabaseError(f"The restore failed: {error.strerror} ({error.filename}).",
                            where) from error


def _copy_verified(backup: Path, staged: Path) -> None:
    """Copy ``backup`` to ``staged`` with SQLite's backup API (which also takes in a -wal
    beside the backup), committed with ``synchronous=FULL`` so it is on the disk, as one
    self-contained file (rollback journal; the engine turns WAL back on), then run the
    integrity check on the copy itself."""
    with translated_os_errors(staged):
        staged.touch(exist_ok=False)  # a folder that cannot be written says so here
    module = dbapi_module()
    with translated_errors(staged.parent):
        source = module.connect(sqlite_uri(backup, **read_only_parameters(backup)), uri=True)
        try:
            destination = module.connect(str(staged))
            try:
                destination.execute("PRAGMA synchronous=FULL")
                source.backup(destination)
                destination.execute("PRAGMA journal_mode=DELETE")
                _check_integrity(destination, staged)
            finally:
                destination.close()
        finally:
            source.close()


def _checkpoint(database: Path) -> None:
    """Fold the database's write-ahead log into it, so the copy set aside is one complete
    file. A damaged database may not allow it, an unwritable one is not tried (SQLite would
    open it read-only and leave an empty -wal and -shm beside it); either is then set aside
    with its -wal and -shm, which SQLite reads together."""
    if not database.exists() or not os.access(database, os.W_OK):
        return
    module = dbapi_module()
    try:
        connection = module.connect(sqlite_uri(database), uri=True)
        try:
            connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            connection.close()
    except module.Error as error:
        logger.warning("could not checkpoint %s before setting it aside (%s); its -wal and "
                       "-shm go aside with it", database, error)


def _swap_in(database: Path, staged: Path, aside: Path, backup: Path) -> Path | None:
    """Rename the database, then its sidecars, to ``aside``, and ``staged`` into its place.

    The database goes first: a crash after it leaves no ``hearth.db`` (which the next start
    refuses to replace with an empty one), never a database without its -wal. On failure
    what was moved goes back; if even that fails, the message says where it is."""
    moves = [(database.with_name(database.name + suffix), aside.with_name(aside.name + suffix))
             for suffix in ("", *SIDECARS)]
    moves = [(source, target) for source, target in moves if source.exists()]
    done: list[tuple[Path, Path]] = []
    try:
        with translated_os_errors(database):
            for source, target in moves:
                os.replace(source, target)
                done.append((source, target))
            os.replace(staged, database)
    except BaseException:
        _put_back(done, database, aside, backup)
        raise
    _sync_folder(database.parent)
    return aside if done else None


def _put_back(done: list[tuple[Path, Path]], database: Path, aside: Path,
              backup: Path) -> None:
    try:
        for source, target in reversed(done):
            os.replace(target, source)
    except OSError as again:
        raise RestoreHalfDoneError(
            f"The restore stopped halfway and could not put the previous database back "
            f"({again.strerror}): it is {aside}.",
            f"Rename {aside} (and any -wal or -shm beside it) back to {database} by hand; "
            f"the backup is still {backup}.") from again


def _remove_with_sidecars(path: Path) -> None:
    for suffix in ("", *SIDECARS):
        file = path.with_name(path.name + suffix)
        if file.exists():  # unlink refuses even a missing file on a read-only mount
            file.unlink()


def _sync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (POSIX; elsewhere the rename is all we have)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    handle = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def refuse_lost_database(paths: HearthPaths) -> None:
    """Refuse to start an empty database where the user's was expected.

    SQLite takes a missing or empty ``hearth.db`` for a new database. When the folder shows
    it held one (backups, a database set aside by a restore, a restore cut short), starting
    afresh would hide the user's memory behind an empty one, so say where it is instead."""
    database = paths.database
    if database.exists() and database.stat().st_size > 0:
        return
    traces = sorted(paths.home.glob(f"{database.name}{ASIDE}*[0-9]Z"), reverse=True)
    traces += sorted(paths.home.glob(f"{database.name}{STAGED}*[0-9]Z"), reverse=True)
    traces += [backup.path for backup in list_backups(paths)]
    if not traces:
        return
    shown = ", ".join(str(trace) for trace in traces[:3])
    raise DatabaseError(
        f"{database} is missing, but this folder held a database: {shown}.",
        f"Put one back with `hearth restore FILE` (the newest is {traces[0]}), or move "
        f"these files out of {paths.home} to start with an empty database.")
