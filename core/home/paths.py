"""The data folder's layout: where the database, its backups and the settings file are, and
which files in it are Hearth's own (never to be overwritten by an export a user names).

The folder is the platform's user data folder, overridden by ``HEARTH_HOME`` or the CLI's
``--home`` (``resolve_home``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs


@dataclass(frozen=True)
class HearthPaths:
    """The files inside one data folder."""

    home: Path

    @property
    def database(self) -> Path:
        return self.home / "hearth.db"

    @property
    def backups(self) -> Path:
        return self.home / "backups"

    @property
    def settings_file(self) -> Path:
        return self.home / "settings.json"

    @property
    def database_files(self) -> tuple[Path, ...]:
        """The database and the files SQLite keeps beside it (write-ahead log, shared
        memory, rollback journal): together they are the live database."""
        return tuple(self.home / f"hearth.db{suffix}"
                     for suffix in ("", "-wal", "-shm", "-journal"))

    def is_database_file(self, path: Path) -> bool:
        """Whether ``path`` is one of ``database_files``, by whatever name: a symlink, a
        relative path, a hard link."""
        return any(_same_file(path, own) for own in self.database_files)

    def is_own_file(self, path: Path) -> bool:
        """Whether ``path`` is something Hearth keeps in this folder (the database files,
        copies set aside, settings, locks, backups, logs, caches), which an export or any
        other file a user names must never overwrite."""
        if self.is_database_file(path):
            return True
        try:
            relative = path.resolve().relative_to(self.home.resolve())
        except ValueError:
            return False
        first = relative.parts[0] if relative.parts else ""
        return (not first or first in OWN_FOLDERS or first.startswith(OWN_FILE_PREFIXES)
                or first.endswith(".lock"))

    def writable(self) -> bool:
        """Whether this process may change the folder: add files to it and write the
        database. ``os.access`` also sees a read-only mount and (for root, whom permission
        bits do not stop) an immutable file. A folder not made yet counts as writable; if
        it cannot be made, making it says so."""
        if not self.home.exists():
            return True
        return all(os.access(path, os.W_OK)
                   for path in (self.home, *self.database_files) if path.exists())


OWN_FOLDERS = ("backups", "logs", "cache")
OWN_FILE_PREFIXES = ("hearth.db", "settings.json", "mcp-token", "encryption.json")


def _same_file(path: Path, other: Path) -> bool:
    if path.resolve() == other.resolve():
        return True
    try:
        return os.path.samefile(path, other)
    except OSError:  # one of them does not exist: then they cannot be one file
        return False


def resolve_home(explicit: Path | str | None = None) -> Path:
    """``--home`` beats ``HEARTH_HOME`` beats the platform's user data folder."""
    if explicit:
        return Path(explicit).expanduser().resolve()
    env = os.environ.get("HEARTH_HOME")
    if env:
        return Path(env).expanduser().resolve()
    return Path(platformdirs.user_data_dir("Hearth", appauthor=False))
