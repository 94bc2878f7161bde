"""Online backups with rotation.

A backup is a consistent snapshot taken through the storage port while Hearth keeps
running (SQLite's backup API, or ``pg_dump`` on PostgreSQL), checked by the backend
(``storage.copies.verify``: SQLite's ``PRAGMA integrity_check``) before it counts, then the
oldest backups of that kind beyond ``keep`` are removed. Consolidation takes one before any
destructive maintenance. Backups are written one at a time (``backup.lock``), so whatever a
backup finds of an unfinished one (a ``.partial`` file and whatever the database kept
beside it, the files left beside a backup rotated away) is debris of a failure and is
removed; a finished backup is never touched except by rotation.

Restoring one is the backend's (``core.storage.factory.restore_backup``): a SQLite backup
is put in place of the database file, a ``pg_dump`` archive loaded with ``pg_restore``.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from core.home.paths import HearthPaths
from core.errors import DatabaseError, translated_os_errors
from core.home.instance_lock import FolderLock
from core.storage.port import StoragePort

PREFIX = "hearth-"
PARTIAL = ".partial"
LOCK_FILE = "backup.lock"
BACKUP_NAME = re.compile(rf"{PREFIX}\d{{8}}T\d{{12}}Z\.[a-z]+")
"""``hearth-<stamp>.<the backend's suffix>``: a finished backup of any backend."""


@dataclass(frozen=True)
class BackupInfo:
    path: Path
    created_at: datetime
    size_bytes: int


class RestoreHalfDoneError(DatabaseError):
    """A restore failed after setting the database aside and could not put it back."""


STAMPED = re.compile(r"\d{8}T\d{12}Z")


def stamp(now: datetime) -> str:
    """The moment in a backup's (or a set-aside database's) name: sorts as it happened."""
    return now.strftime("%Y%m%dT%H%M%S%fZ")


def taken_at(path: Path) -> datetime | None:
    """When a backup was taken, from its name (``stamp``); None for another file's name."""
    found = STAMPED.search(path.name)
    if found is None:
        return None
    return datetime.strptime(found[0], "%Y%m%dT%H%M%S%fZ").replace(tzinfo=timezone.utc)


def backup_words(path: Path) -> str:
    """A backup as a person names it: "the backup of Sun 22 Nov 2026 at 02:00" (local
    time), not its file name; a file of another name is named by its name."""
    moment = taken_at(path)
    if moment is None:
        return path.name
    local = moment.astimezone()
    return f"the backup of {local:%a} {local.day} {local:%b %Y} at {local:%H:%M}"


def list_backups(paths: HearthPaths, suffix: str | None = None) -> list[BackupInfo]:
    """Backups in the data folder, newest first; only those whose name ends in ``suffix``
    (one backend's) when given."""
    if not paths.backups.is_dir():
        return []
    found = []
    for file in paths.backups.glob(f"{PREFIX}*"):
        if not BACKUP_NAME.fullmatch(file.name) or (suffix and file.suffix != suffix):
            continue
        stat = file.stat()
        found.append(BackupInfo(file, datetime.fromtimestamp(stat.st_mtime, timezone.utc),
                                stat.st_size))
    return sorted(found, key=lambda b: b.path.name, reverse=True)


def create_backup(storage: StoragePort, paths: HearthPaths, keep: int,
                  now: datetime | None = None) -> BackupInfo:
    """Snapshot the live database into ``backups/`` and keep only the newest ``keep`` of
    its backend's backups."""
    moment = now or datetime.now(timezone.utc)
    copies = storage.copies
    target = paths.backups / f"{PREFIX}{stamp(moment)}{copies.suffix}"
    partial = target.with_suffix(PARTIAL)
    with (translated_os_errors(paths.backups),
          FolderLock(paths.backups, exclusive=True, name=LOCK_FILE, wait=True)):
        _remove_debris(paths.backups)
        try:
            storage.backup_to(partial)
            copies.verify(partial)
            os.replace(partial, target)
            for stale in list_backups(paths, copies.suffix)[keep:]:
                stale.path.unlink()
        finally:
            _remove_debris(paths.backups)
        return BackupInfo(target, moment, target.stat().st_size)


def _remove_debris(folder: Path) -> None:
    """Delete what no finished backup owns: unfinished ``.partial`` files with whatever the
    database kept beside them (SQLite's -wal, -shm), and the files left beside backups no
    longer there. Only under the backup lock, when no backup is being written."""
    for file in folder.glob(f"{PREFIX}*"):
        owner = BACKUP_NAME.match(file.name)
        if PARTIAL in file.name or (owner and not (folder / owner.group(0)).exists()):
            file.unlink(missing_ok=True)
