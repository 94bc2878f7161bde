"""Opening a SQLite database the way Hearth needs it.

Every connection gets the same setup in one ``connect`` listener: sqlite-vec loaded, WAL,
foreign keys, a busy timeout, ``synchronous=NORMAL`` (safe under WAL: a crash can lose the
last transaction at most, never corrupt the file), and ``secure_delete``: what is deleted
or overwritten is zeroed in its page rather than left in free space, so a user's forget
(``core.forgetting``) leaves no old bytes behind in pages still in use. Statement
parameters are hidden from error messages, so a traceback in a log never quotes user text.

The stdlib ``sqlite3`` of some Python builds (this machine's among them) cannot load
extensions, so the DB-API module is chosen at run time: the stdlib one when it can load
extensions, otherwise ``sqlean`` (a drop-in ``sqlite3`` with extension loading).

SQLAlchemy's pysqlite driver defers ``BEGIN`` in ways that break SAVEPOINTs and lock
upgrades; we switch the driver's own transaction handling off and emit ``BEGIN`` ourselves
(``BEGIN IMMEDIATE`` for write sessions, so two writers queue on the busy timeout instead
of failing with a lock-upgrade deadlock).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import sqlite_vec
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.pool import QueuePool, StaticPool

from core.errors import DatabaseError, DatabaseLockedError

SQLITE_HEADER = b"SQLite format 3\x00"
WRITE_OPTION = "hearth_write"


def dbapi_module() -> ModuleType:
    """The DB-API module to use: stdlib ``sqlite3`` if it can load extensions."""
    if hasattr(sqlite3.Connection, "enable_load_extension"):
        return sqlite3
    import sqlean  # type: ignore[import-untyped]

    return sqlean


def check_database_file(path: Path, module: Any) -> None:
    """Refuse a file that exists but is not a SQLite database, before touching it.

    The file is opened through SQLite itself (read-only), never with a plain ``open()``:
    closing any other handle on a database file drops every POSIX lock this process holds
    on it, so a second engine opened beside a live one would let another process write
    under the first one's reads ("database disk image is malformed")."""
    if not path.exists() or path.stat().st_size == 0:
        return
    connection = module.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        connection.execute("PRAGMA schema_version").fetchone()
    except module.DatabaseError as error:
        if "not a database" not in str(error).lower():
            raise
        raise DatabaseError(
            f"{path} is not a SQLite database (it may be corrupt or another kind of file).",
            "Move it aside and restore a backup with `hearth restore BACKUP`, "
            "or point --home at another folder.",
        ) from None
    finally:
        connection.close()


def open_engine(path: Path | None, busy_timeout_ms: int = 5000) -> Engine:
    """An engine for the database at ``path`` (``None`` for a private in-memory one)."""
    module = dbapi_module()
    if path is None:
        url, pool = "sqlite://", StaticPool
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
        check_database_file(path, module)
        url, pool = f"sqlite:///{path}", QueuePool  # pooled: a connect + extension load is ~1.4 ms
    engine = create_engine(
        url,
        module=module,
        poolclass=pool,
        connect_args={"check_same_thread": False, "timeout": busy_timeout_ms / 1000},
        hide_parameters=True,  # an error message or log never quotes the user's text
    )

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.enable_load_extension(True)
        sqlite_vec.load(dbapi_connection)
        dbapi_connection.enable_load_extension(False)
        cursor = dbapi_connection.cursor()
        try:
            if path is not None:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA secure_delete=ON")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        immediate = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


@contextmanager
def translated_errors(path: Path | None) -> Iterator[None]:
    """Turn driver errors a person can act on into ``DatabaseError`` with a hint."""
    where = str(path) if path else "the in-memory database"
    try:
        yield
    except exc.OperationalError as error:
        text = str(error.orig).lower()
        if "locked" in text or "busy" in text:
            raise DatabaseLockedError(
                f"{where} is locked by another program.",
                "Close other Hearth windows or commands using this data folder and try again.",
            ) from error
        if "readonly" in text or "read-only" in text:
            raise DatabaseError(f"{where} is read-only.",
                                "Check the folder's permissions.") from error
        raise
    except exc.DatabaseError as error:
        text = str(error.orig).lower()
        if "not a database" in text or "malformed" in text or "corrupt" in text:
            raise DatabaseError(
                f"{where} is damaged ({error.orig}).",
                "Restore the latest backup with `hearth restore BACKUP` "
                "(backups live in the data folder's backups/ directory).",
            ) from error
        raise
