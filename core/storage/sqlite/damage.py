"""A damaged SQLite database: how it is told, and the check that keeps Hearth from writing
into one.

SQLite finds damage only on the pages it reads. A write reads and changes few pages (a fact
touches its own table and indexes), so it succeeds in a file whose other pages are damaged,
and changes a file that may still be worth rescuing and that a restore would set aside as
it is. So before the first write of each open engine the whole file is checked with
``PRAGMA quick_check`` (every page and b-tree, not whether indexes match their tables),
and a file that fails it gets the sentence a reading command gives, for every write of
that engine.

The check reads the whole file: measured on a 107 MB database (26,000 memories with their
full-text index and vectors) on the shared 2-core machine, 0.29 s when the file is in the
system's cache and 1.1 s when it is not. That is too much for every transaction, so it runs
once per open engine and only when it first writes: reading commands never pay, a command
that writes pays once, and the window and the daemon once per start (the window before it
opens: ``StoragePort.check_writable``). Damage done to the file while a process keeps it
open is found by that process's reads, and by the next open's check.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from core.errors import DamagedDatabaseError

RESTORE_HINT = ("Restore the latest backup with `hearth restore BACKUP` (`hearth backup "
                "--list` shows them; the damaged file is kept aside).")
OTHER_BACKUP_HINT = "Pick another one (`hearth backup --list` shows them)."
SQLITE_CORRUPT = 11
SQLITE_NOTADB = 26


def is_damage(error: BaseException) -> bool:
    """Whether a SQLite error says the file is damaged (or no database at all): by its
    code where the driver gives one (a damaged full-text index says only "vtable
    constructor failed"), else by its words."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (SQLITE_CORRUPT, SQLITE_NOTADB)
    text = str(error).lower()
    return any(sign in text for sign in ("not a database", "malformed", "corrupt"))


def damaged(where: str, error: BaseException | str, *,
            backup: bool = False) -> DamagedDatabaseError:
    """The sentence for a damaged database file, with the way back: for the database, a
    restore; for a ``backup``, another backup (restoring is what it was read for)."""
    subject = f"The backup {where}" if backup else where
    hint = OTHER_BACKUP_HINT if backup else RESTORE_HINT
    if "not a database" in str(error).lower():
        return DamagedDatabaseError(
            f"{subject} is not a SQLite database (it is damaged, or another kind of file).",
            hint)
    return DamagedDatabaseError(f"{subject} is damaged ({error}).", hint)


class FirstWriteCheck:
    """``PRAGMA quick_check`` of one database file, run before the first write of the engine
    that owns this object (see the module docstring), and its verdict kept for the rest."""

    def __init__(self, path: Path) -> None:
        self._where = str(path)
        self._lock = threading.Lock()
        self._checked = False
        self._problem: str | None = None

    def before_write(self, connection: Any) -> None:
        """Raise ``DamagedDatabaseError`` if the file failed its check; ``connection`` (a
        DB-API connection outside any transaction) runs the check the first time. An error
        that is not damage (an I/O error) passes on, and the next write checks again."""
        with self._lock:
            if not self._checked:
                self._problem = _quick_check(connection)
                self._checked = True
        if self._problem is not None:
            raise damaged(self._where, self._problem)


def _quick_check(connection: Any) -> str | None:
    """The first problem ``quick_check`` reports, or None when the file is sound."""
    try:
        rows = connection.execute("PRAGMA quick_check").fetchall()
    except connection.DatabaseError as error:  # some damage stops the check itself
        if not is_damage(error):
            raise
        return str(error)
    return first_problem(rows)


def first_problem(rows: Sequence[Any]) -> str | None:
    """The first problem in the rows of a ``quick_check`` or ``integrity_check`` (None when
    they say "ok"), on one line: a sentence names one, the others are SQLite's detail."""
    if [tuple(row) for row in rows] == [("ok",)]:
        return None
    lines = [line for row in rows for line in str(row[0]).splitlines()
             if line and not line.startswith("***")]  # "*** in database main ***"
    return lines[0] if lines else "it failed its integrity check"
