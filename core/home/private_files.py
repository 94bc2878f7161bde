"""Hearth's files are for its user's eyes only.

What a person tells Hearth (a passport number, a bank PIN said in passing) ends up in the
database, its WAL, the backups, exports and logs, so no other account on the computer may
read any of them:

* **New files are born private.** Every entry point (the ``hearth`` command, the window, the
  window's child processes) starts with ``restrict_new_files()``: umask 077, so whatever the
  process creates, SQLite's files and other libraries' included, is 0600 and every folder
  0700. Child processes inherit the umask.
* **Old folders are repaired.** ``secure_home`` runs whenever a data folder is opened: the
  folder and Hearth's files and folders in it lose every permission of group and others
  (files end up 0600, folders 0700; the owner's own bits are kept). Symbolic links are
  neither changed nor followed. Something that cannot be changed (another account's file,
  a read-only or immutable one) is logged as a warning and does not stop Hearth.
* **Files Hearth writes itself** (settings, exports) go through ``write_privately``: a new
  0600 file, created exclusively beside the target and renamed over it. So they are private
  even in a process that did not set the umask, an existing file's looser mode is not kept,
  and nothing is ever written through a file or link another account placed there.
* **Exports leave the folder** for a place the user chose: ``exposure_warning`` says when
  that place still lets other accounts read the file (a file system without Unix
  permissions, such as a FAT USB stick) or delete and replace it (a folder anyone may write
  to, without the sticky bit). A folder others may merely list (``/tmp``, a 0755 home) is
  no warning: they see the file's name, never its content.
"""

from __future__ import annotations

import fnmatch
import logging
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO

PRIVATE_UMASK = 0o077
OWNER_BITS = 0o700
OTHERS_BITS = 0o077
"""Every permission of group and others: what a private file or folder has none of."""

HEARTH_ENTRIES = ("hearth.db", "hearth.db-*", "hearth.db.*", "hearth.lock", "dream.lock",
                  "scheduler.lock", "migrate.lock", "settings.json", "settings.json.*",
                  ".settings.json.*", "encryption.json", "encryption.json.*",
                  "database.pgpass", ".database.pgpass.*", "backups", "logs", "cache",
                  "scheduler", "running")
"""What Hearth keeps in a data folder (``fnmatch`` patterns; a folder with everything in
it): the database with its WAL and the copies a restore sets aside, lock files (the work in
progress in ``running/`` among them), settings and their temporary files, the encryption
marker, the PostgreSQL pass file (``core.config.database_password``), backups, logs,
caches."""

log = logging.getLogger(__name__)


def restrict_new_files() -> None:
    """From now on this process (and the children it starts) creates files 0600 and
    folders 0700, whoever creates them. Called first by every entry point."""
    os.umask(PRIVATE_UMASK)


def secure_home(home: Path) -> list[Path]:
    """Take every group and other permission away from the data folder ``home`` and from
    Hearth's files and folders in it (an older Hearth left the folder 0755 and its files
    0644); returns what was changed. A missing folder is left missing.

    Only Hearth's own entries (``HEARTH_ENTRIES``) are changed: pointed at a folder that
    holds other things too (``--home ~``), Hearth closes the folder but leaves the rest of
    its contents as they are. A folder with the sticky bit, shared by design like ``/tmp``,
    is not closed (that would lock every other user out of it); a warning says so."""
    root = home.resolve()
    if not root.is_dir():
        return []
    repaired = [path for path in (root, *_hearths_own(root))
                if _make_private(path, shared_ok=path == root)]
    if repaired:
        log.warning("Made %s private: other users of this computer could open %d of "
                    "Hearth's files and folders there.", root, len(repaired))
    return repaired


def _hearths_own(root: Path) -> Iterator[Path]:
    """Hearth's entries in ``root``, each folder before what it contains (so it is closed to
    others before its contents change); links are neither listed into nor followed."""
    try:
        entries = sorted(root.iterdir())
    except OSError as error:
        _unlistable(error)
        return
    for entry in entries:
        if not any(fnmatch.fnmatchcase(entry.name, pattern) for pattern in HEARTH_ENTRIES):
            continue
        yield entry
        if entry.is_dir() and not entry.is_symlink():
            for folder, folders, files in os.walk(entry, onerror=_unlistable):
                for name in folders + files:
                    yield Path(folder, name)


def _unlistable(error: OSError) -> None:
    log.warning("Could not look inside %s to make it private (%s).", error.filename,
                error.strerror or error)


def _make_private(path: Path, *, shared_ok: bool = False) -> bool:
    """Remove group and other permissions from ``path``; True when there were any. A
    sticky folder is left open when ``shared_ok`` (the data folder is ``/tmp`` itself)."""
    try:
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode) or not mode & OTHERS_BITS:
            return False
        if shared_ok and stat.S_ISDIR(mode) and mode & stat.S_ISVTX:
            log.warning("%s is shared with every user of this computer: Hearth's files in it "
                        "are private, but others can see their names. Give Hearth a folder "
                        "of its own.", path)
            return False
        os.chmod(path, stat.S_IMODE(mode) & OWNER_BITS)
    except OSError as error:
        log.warning("Could not make %s private (%s); other users of this computer may be "
                    "able to read it.", path, error.strerror or error)
        return False
    log.info("made %s private (it was %03o)", path, stat.S_IMODE(mode))
    return True


def write_privately(path: Path, write: Callable[[IO[str]], None]) -> None:
    """Replace ``path`` atomically with a new text file only its owner may read:
    ``write(handle)`` fills a 0600 file created exclusively beside it, which is flushed to
    disk and renamed over ``path``. A crash leaves the old file or the new one, never half
    of one; a failed ``write`` leaves no temporary file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.",
                                             suffix=".partial")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def exposure_warning(path: Path) -> str | None:
    """A sentence when other users of this computer could read the file Hearth just wrote
    at ``path``, or delete and replace it; None when it is theirs alone."""
    if stat.S_IMODE(path.stat().st_mode) & (stat.S_IRGRP | stat.S_IROTH):
        return (f"Other users of this computer can read {path}: its file system does not "
                "keep Unix permissions. Move it somewhere only you can open.")
    folder = path.parent.stat().st_mode
    if folder & stat.S_IWOTH and not folder & stat.S_ISVTX:
        return (f"Other users of this computer can delete or replace {path} (they cannot "
                f"read it): anyone may write in {path.parent}. Move it somewhere private.")
    return None
