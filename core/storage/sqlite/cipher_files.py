"""Rewriting a SQLite file encrypted, or decrypted, without ever risking the original.

SQLCipher's documented way is ``sqlcipher_export()``: the source is opened (keyed if it is
encrypted), the new file ``ATTACH``-ed with the new key (an empty key: a plain file), and
the export copies the schema and every row into it; sqlite-vec is loaded first, since the
schema holds ``vec0`` tables. The export does not carry ``user_version`` and
``application_id``, so they are copied by hand.

Each file is converted to ``<name>.converting`` beside it, checked (``integrity_check``
and the same number of rows in every table as the source), flushed to disk, and only then
renamed over the original, whose write-ahead log was folded in first and whose -wal and
-shm are removed after. A failure removes the half-made copy and leaves the original as
it was. The caller holds the data folder's exclusive lock: nothing else has a file open.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import sqlite_vec

from core.errors import DatabaseError
from core.home.encryption import connect
from core.storage.durable import sync_folder
from core.storage.sqlite.copies import SIDECARS, check_integrity
from core.storage.sqlite.engine import translated_errors

CONVERTING = ".converting"


def convert(path: Path, old_key: str | None, new_key: str | None) -> None:
    """Rewrite ``path`` from ``old_key`` to ``new_key`` (None: plain) in place."""
    working = path.with_name(path.name + CONVERTING)
    _remove(working)
    try:
        copy_converted(path, old_key, working, new_key)
        with working.open("rb") as handle:
            os.fsync(handle.fileno())
        os.replace(working, path)
        for suffix in SIDECARS:
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        sync_folder(path.parent)
    except BaseException:
        _remove(working)
        raise


def copy_converted(source: Path, source_key: str | None, target: Path,
                   target_key: str | None) -> None:
    """Export ``source`` into the new file ``target`` under ``target_key``, and check it.
    Also how a restore copies a backup whose key is not its folder's (a plain backup put
    back into an encrypted folder): SQLite's backup API copies pages as they are."""
    with translated_errors(source):
        counts = _export(source, source_key, target, target_key)
        _check(target, target_key, counts)


def _open(path: Path, key: str | None) -> Any:
    connection = connect(str(path), key, isolation_level=None)
    connection.enable_load_extension(True)
    sqlite_vec.load(connection)
    connection.enable_load_extension(False)
    return connection


def _export(source: Path, old_key: str | None, target: Path,
            new_key: str | None) -> dict[str, int]:
    """Export ``source`` into the new file ``target``; returns the source's row counts."""
    connection = _open(source, old_key)
    try:
        connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        counts = _row_counts(connection)
        versions = [connection.execute(f"PRAGMA {name}").fetchone()[0]
                    for name in ("user_version", "application_id")]
        attach_key = f"x'{new_key}'" if new_key else ""
        connection.execute(f"ATTACH DATABASE ? AS converted KEY \"{attach_key}\"",
                           (str(target),))
        try:
            connection.execute("SELECT sqlcipher_export('converted')")
            connection.execute(f"PRAGMA converted.user_version = {int(versions[0])}")
            connection.execute(f"PRAGMA converted.application_id = {int(versions[1])}")
        finally:
            connection.execute("DETACH DATABASE converted")
    finally:
        connection.close()
    return counts


def _check(target: Path, key: str | None, expected: dict[str, int]) -> None:
    connection = _open(target, key)
    try:
        check_integrity(connection, target)
        found = _row_counts(connection)
    finally:
        connection.close()
    if found != expected:
        differing = sorted(name for name in expected.keys() | found.keys()
                           if expected.get(name) != found.get(name))
        raise DatabaseError(f"The converted copy of {target.name} lost rows "
                            f"({', '.join(differing[:5])}).",
                            "Nothing was changed; please report this.")


def _row_counts(connection: Any) -> dict[str, int]:
    tables = [row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND rootpage > 0 "
        "AND name NOT LIKE 'sqlite_%'")]
    return {table: connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
            for table in tables}


def _remove(path: Path) -> None:
    for suffix in ("", *SIDECARS):
        path.with_name(path.name + suffix).unlink(missing_ok=True)
