"""Online backups with rotation, and restore.

A backup is a consistent snapshot taken through the storage port while Hearth keeps
running (SQLite's backup API), checked with ``PRAGMA integrity_check`` before it counts,
then the oldest backups beyond ``keep`` are removed. Consolidation takes one before any
destructive maintenance.

Restore replaces the database file, so it runs only while no Hearth process has the data
folder open (the caller holds the instance lock); the current file is moved aside, never
deleted, first.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from core.config import HearthPaths
from core.errors import DatabaseError, InvalidInputError
from core.storage.port import StoragePort
from core.storage.sqlite.engine import SQLITE_HEADER, dbapi_module

PREFIX = "hearth-"
SUFFIX = ".db"


@dataclass(frozen=True)
class BackupInfo:
    path: Path
    created_at: datetime
    size_bytes: int


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
    connection = dbapi_module().connect(f"file:{path}?mode=ro", uri=True)
    try:
        verdict = connection.execute("PRAGMA integrity_check").fetchone()[0]
    finally:
        connection.close()
    if verdict != "ok":
        raise DatabaseError(f"{path} failed its integrity check ({verdict}).",
                            "Pick an older backup from the backups folder.")


def create_backup(storage: StoragePort, paths: HearthPaths, keep: int,
                  now: datetime | None = None) -> BackupInfo:
    """Snapshot the live database into ``backups/`` and keep only the newest ``keep``."""
    moment = now or datetime.now(timezone.utc)
    target = paths.backups / f"{PREFIX}{_stamp(moment)}{SUFFIX}"
    partial = target.with_suffix(".partial")
    storage.backup_to(partial)
    verify_backup(partial)
    os.replace(partial, target)
    for stale in list_backups(paths)[keep:]:
        stale.path.unlink()
    return BackupInfo(target, moment, target.stat().st_size)


def restore_backup(paths: HearthPaths, backup: Path, now: datetime | None = None) -> Path:
    """Put ``backup`` in place of the database; returns where the old file was moved.

    The caller must hold the data folder's instance lock, so nothing has the file open.
    """
    if not backup.is_file():
        raise InvalidInputError(f"{backup} does not exist.",
                                "List backups with `hearth backup --list`.")
    verify_backup(backup)
    moment = now or datetime.now(timezone.utc)
    aside = paths.database.with_name(f"{paths.database.name}.before-restore-{_stamp(moment)}")
    if paths.database.exists():
        os.replace(paths.database, aside)
    for sidecar in ("-wal", "-shm"):
        leftover = paths.database.with_name(paths.database.name + sidecar)
        if leftover.exists():
            os.replace(leftover, aside.with_name(aside.name + sidecar))
    paths.home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(backup, paths.database)  # not copy2: a 0644 backup's mode must not come along
    return aside
