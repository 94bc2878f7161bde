"""Locks every device sharing a PostgreSQL database sees: session advisory locks.

A Hearth database on a server may be used by several devices at once, each with its own
data folder, so a lock file in a folder guards nothing there. PostgreSQL's session-level
advisory locks take their place: held by a connection until it unlocks them or closes, and
dropped by the server when the connection dies with its process (a killed process, a
device that lost power: once the server notices the connection is gone). They are per
database, so two Hearth databases on one server never meet.

- ``exclusive(name)`` (the dream cycle, reflection) takes ``pg_try_advisory_lock`` on a
  connection of its own, held open in autocommit for as long as the lock is held (no
  open transaction, so it keeps no snapshot from vacuum), and refuses at once if taken.
- ``AdvisoryClaims`` are the claims on unfinished rows (``core.storage.liveness``): one
  dedicated connection per process holds a two-key advisory lock per claimed row
  (``(kind, id)``, a key space apart from the one-key locks); whether a row's claim is
  alive is read from ``pg_locks``, which shows every session's locks, this one's too.

Caveat: a claim lives as long as its connection. If the server restarts while a reply is
streaming, the claim is gone and another process may mark that exchange interrupted.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine

from core.errors import HearthError


def lock_key(name: str) -> int:
    """A stable signed 64-bit key for a named lock ("hearth:dream")."""
    digest = hashlib.sha256(f"hearth:{name}".encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)


def kind_key(kind: str) -> int:
    """A stable signed 32-bit key for a kind of claimed row."""
    digest = hashlib.sha256(f"hearth-claim:{kind}".encode()).digest()
    return int.from_bytes(digest[:4], "big", signed=True)


def _dedicated(engine: Engine) -> Any:
    """A DB-API connection of its own in autocommit, outside the pool's lending."""
    connection = engine.raw_connection()
    connection.driver_connection.autocommit = True  # type: ignore[union-attr]
    return connection


@contextmanager
def exclusive(engine: Engine, name: str, busy: HearthError) -> Iterator[None]:
    """Hold the advisory lock ``name`` for the block, or raise ``busy`` at once."""
    connection = _dedicated(engine)
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT pg_try_advisory_lock(%s::bigint)", (lock_key(name),))
        row = cursor.fetchone()
        if not (row and row[0]):
            raise busy
        try:
            yield
        finally:
            cursor.execute("SELECT pg_advisory_unlock(%s::bigint)", (lock_key(name),))
    finally:
        connection.invalidate()  # closed, never lent again with a lock it might hold


class AdvisoryClaim:
    """One row's claim; ``release`` (idempotent) unlocks it."""

    def __init__(self, claims: AdvisoryClaims, keys: tuple[int, int]) -> None:
        self._claims = claims
        self._keys: tuple[int, int] | None = keys

    def release(self) -> None:
        if self._keys is not None:
            self._claims.unlock(self._keys)
            self._keys = None


class AdvisoryClaims:
    """The claims of this process on one database, on one connection opened at the first
    claim and kept for the process's life (threads take turns on it)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self._connection: Any = None
        self._mutex = threading.Lock()

    def _execute(self, sql: str, parameters: tuple[int, ...]) -> Any:
        with self._mutex:
            if self._connection is None:
                self._connection = _dedicated(self._engine)
            cursor = self._connection.cursor()
            try:
                cursor.execute(sql, parameters)
                row = cursor.fetchone()
                return row[0] if row else None
            finally:
                cursor.close()

    def hold(self, kind: str, row_id: int) -> AdvisoryClaim:
        """A session lock on ``(kind, row_id)``: stacked if this process holds it already
        (PostgreSQL's ids are never reused, so another holder cannot be a row of ours)."""
        keys = (kind_key(kind), row_id)
        self._execute("SELECT pg_try_advisory_lock(%s::int, %s::int)", keys)
        return AdvisoryClaim(self, keys)

    def unlock(self, keys: tuple[int, int]) -> None:
        self._execute("SELECT pg_advisory_unlock(%s::int, %s::int)", keys)

    def alive(self, kind: str, row_id: int) -> bool:
        with self._engine.connect() as connection:
            cursor = connection.connection.cursor()
            cursor.execute(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' "
                "AND database = (SELECT oid FROM pg_database WHERE datname = "
                "current_database()) AND classid::int = %s AND objid::int = %s "
                "AND objsubid = 2 AND granted)", (kind_key(kind), row_id))
            row = cursor.fetchone()
            connection.rollback()
        return bool(row and row[0])

    def sweep(self) -> None:
        """Nothing to remove: the server drops a dead process's locks itself."""

    def close(self) -> None:
        with self._mutex:
            if self._connection is not None:
                self._connection.invalidate()
                self._connection = None
