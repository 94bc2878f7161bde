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

A write waits for the lock, it is never dropped because another process is writing. The
waiting belongs in ``BEGIN IMMEDIATE`` and nowhere else: in WAL mode a connection that got
the write lock is not refused later in its transaction (other writers wait for it, and
readers never block a writer; only ``BEGIN IMMEDIATE`` "might fail with SQLITE_BUSY if
another write transaction is already active", sqlite.org/lang_transaction.html), so a
retry never has to re-run half a unit of work: nothing of it has run yet. Each attempt
waits ``busy_timeout`` inside SQLite (whose busy handler retries at most 100 ms apart);
between attempts we back off exponentially, never more than ``MAX_RETRY_DELAY``, until
``write_wait_seconds``. Only then does the write fail, with a sentence.
"""

from __future__ import annotations

import logging
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import sqlite_vec
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.pool import QueuePool, StaticPool

from core.errors import DatabaseError, DatabaseLockedError

log = logging.getLogger(__name__)

SQLITE_HEADER = b"SQLite format 3\x00"
WRITE_OPTION = "hearth_write"
DEFAULT_WRITE_WAIT_SECONDS = 120.0
FIRST_RETRY_DELAY = 0.01
MAX_RETRY_DELAY = 0.1
"""Never longer than SQLite's own busy handler sleeps, so a writer that pauses this long
between its transactions (``core.storage.pacing``) lets a waiting one in."""
SQLITE_BUSY = 5


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


def open_engine(path: Path | None, busy_timeout_ms: int = 5000,
                write_wait_seconds: float = DEFAULT_WRITE_WAIT_SECONDS) -> Engine:
    """An engine for the database at ``path`` (``None`` for a private in-memory one); its
    write transactions wait up to ``write_wait_seconds`` for another writer."""
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
        if connection.get_execution_options().get(WRITE_OPTION, False):
            begin_immediate(connection.connection.driver_connection, path, write_wait_seconds)
        else:
            connection.exec_driver_sql("BEGIN")

    return engine


def is_busy(error: BaseException) -> bool:
    """SQLITE_BUSY (any extended code): another connection holds the lock we need."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF == SQLITE_BUSY
    return "database is locked" in str(error).lower()


def begin_immediate(dbapi_connection: Any, path: Path | None, wait_seconds: float) -> None:
    """Start a write transaction, waiting up to ``wait_seconds`` for another writer's lock
    (see the module docstring); says once, in the log, that it is waiting.

    Raises ``DatabaseLockedError`` when the lock stayed taken that long: no statement of the
    caller's unit of work has run then, so nothing of it is half written."""
    deadline = time.monotonic() + wait_seconds
    delay = FIRST_RETRY_DELAY
    waiting_since: float | None = None
    while True:
        try:
            dbapi_connection.execute("BEGIN IMMEDIATE")
        except dbapi_connection.OperationalError as error:
            if not is_busy(error):  # as SQLAlchemy would raise it, for translated_errors
                raise exc.DBAPIError.instance("BEGIN IMMEDIATE", None, error,
                                              dbapi_connection.Error) from error
            now = time.monotonic()
            if now >= deadline:
                raise _still_locked(path, wait_seconds) from error
            if waiting_since is None:
                waiting_since = now
                log.warning("Waiting for another Hearth process to finish writing to %s…",
                            path or "the database")
            time.sleep(min(delay, deadline - now))
            delay = min(delay * 2, MAX_RETRY_DELAY)
            continue
        if waiting_since is not None:
            log.info("got the write lock after %.1f s", time.monotonic() - waiting_since)
        return


def _still_locked(path: Path | None, wait_seconds: float) -> DatabaseLockedError:
    where = str(path) if path else "the in-memory database"
    return DatabaseLockedError(
        f"{where} stayed locked by another program's write for {wait_seconds:g} "
        f"second{'' if wait_seconds == 1 else 's'}, so this change was not saved.",
        "Let the other Hearth window or command (an import, a dream) finish, then try again.")


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
