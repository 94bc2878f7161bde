"""Restoring a SQLite backup: putting a backup file in place of the database file, and
refusing to start an empty database where a lost one was.

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
from datetime import datetime, timezone
from pathlib import Path

from core.home.paths import HearthPaths
from core.errors import DatabaseError, HearthError, InvalidInputError, translated_os_errors
from core.storage.backups import RestoreHalfDoneError, list_backups, stamp
from core.storage.durable import sync_folder
from core.home.encryption import key_for
from core.storage.sqlite.cipher_files import copy_converted
from core.storage.sqlite.copies import (
    ASIDE,
    BACKUP_SUFFIX,
    SIDECARS,
    check_integrity,
    verify_backup,
    with_sidecars,
)
from core.storage.sqlite.engine import (
    connect_file,
    module_for,
    read_only_parameters,
    sqlite_uri,
    translated_errors,
)

STAGED = ".restoring-"

logger = logging.getLogger(__name__)


def restore_backup(paths: HearthPaths, backup: Path, now: datetime | None = None, *,
                   database: Path | None = None) -> Path | None:
    """Put ``backup`` in place of ``database`` (the data folder's by default); returns where
    the previous database was set aside (None when there was none). See the module
    docstring for the steps.

    The caller must hold the data folder's exclusive instance lock, so nothing has the
    database open."""
    database = database or paths.database
    if paths.is_database_file(backup) or any(_same(backup, own)
                                             for own in with_sidecars(database)):
        raise InvalidInputError(f"{backup} is the live database (or one of its files), "
                                "not a backup.",
                                "Pick a file from the backups folder (`hearth backup --list`).")
    if not backup.is_file():
        raise InvalidInputError(f"{backup} does not exist.",
                                "List backups with `hearth backup --list`.")
    verify_backup(backup)
    moment = stamp(now or datetime.now(timezone.utc))
    staged = database.with_name(f"{database.name}{STAGED}{moment}")
    aside = database.with_name(f"{database.name}{ASIDE}{moment}")
    for leftover in database.parent.glob(f"{database.name}{STAGED}*"):
        _remove_with_sidecars(leftover)  # a restore cut short; ours to clear, under the lock
    try:
        with _nothing_changed(database, backup):
            _copy_verified(backup, staged)
            _checkpoint(database)
            return _swap_in(database, staged, aside, backup)
    finally:
        _remove_with_sidecars(staged)


def _same(path: Path, other: Path) -> bool:
    try:
        return path.resolve() == other.resolve() or os.path.samefile(path, other)
    except OSError:  # one of them does not exist: then they cannot be one file
        return False


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
    integrity check on the copy itself. A backup under another key than the folder's
    (``docs/encryption.md``) is converted to the folder's instead."""
    with translated_os_errors(staged):
        staged.touch(exist_ok=False)  # a folder that cannot be written says so here
    source_key, target_key = key_for(backup), key_for(staged)
    if source_key != target_key:  # a plain backup into an encrypted folder, or back
        staged.unlink()
        copy_converted(backup, source_key, staged, target_key)
        with staged.open("rb") as handle:
            os.fsync(handle.fileno())
        return
    with translated_errors(staged.parent):
        source = connect_file(backup, sqlite_uri(backup, **read_only_parameters(backup)),
                              uri=True)
        try:
            destination = connect_file(staged)
            try:
                destination.execute("PRAGMA synchronous=FULL")
                source.backup(destination)
                destination.execute("PRAGMA journal_mode=DELETE")
                check_integrity(destination, staged)
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
    module = module_for(database)
    try:
        connection = connect_file(database, sqlite_uri(database), uri=True)
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
    sync_folder(database.parent)
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
    for file in with_sidecars(path):
        if file.exists():  # unlink refuses even a missing file on a read-only mount
            file.unlink()


def refuse_lost_database(paths: HearthPaths, database: Path | None = None) -> None:
    """Refuse to start an empty database where the user's was expected.

    SQLite takes a missing or empty ``hearth.db`` for a new database. When the folder shows
    it held one (backups, a database set aside by a restore, a restore cut short), starting
    afresh would hide the user's memory behind an empty one, so say where it is instead."""
    database = database or paths.database
    if database.exists() and database.stat().st_size > 0:
        return
    traces = sorted(database.parent.glob(f"{database.name}{ASIDE}*[0-9]Z"), reverse=True)
    traces += sorted(database.parent.glob(f"{database.name}{STAGED}*[0-9]Z"), reverse=True)
    traces += [backup.path for backup in list_backups(paths, BACKUP_SUFFIX)]
    if not traces:
        return
    shown = ", ".join(str(trace) for trace in traces[:3])
    raise DatabaseError(
        f"{database} is missing, but this folder held a database: {shown}.",
        f"Put one back with `hearth restore FILE` (the newest is {traces[0]}), or move "
        f"these files out of {database.parent} to start with an empty database.")
