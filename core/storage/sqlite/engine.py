"""Opening a SQLite database the way Hearth needs it.

Every connection gets the same setup in one ``connect`` listener (sqlite-vec, the
``hearth_terms`` function the full-text triggers call, WAL, foreign keys, a busy timeout,
``synchronous=NORMAL``, ``secure_delete``), with statement parameters
hidden from error messages; the DB-API module is the stdlib ``sqlite3`` when it can load
extensions, else ``sqlean``. Every database file is opened through ``connect_file`` (a
SQLCipher connection in an encrypted folder) by a ``file:`` URI from ``sqlite_uri``, never a
URL pasted from the path. The driver's own transaction handling is off: write sessions
begin ``BEGIN IMMEDIATE``, and a write waits for the lock there and only there (retried
until ``write_wait_seconds``), so a retry never re-runs half a unit of work. An engine
checks the whole file before its first write (``core.storage.sqlite.damage``); a read-only
engine changes nothing in the file or beside it.

See docs/architecture.md, "Rules" (one place configures connections) and "Writers take
turns".
"""

from __future__ import annotations

import os
import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any, cast
from urllib.parse import urlencode

import sqlite_vec
from sqlalchemy import Engine, create_engine, event, exc
from sqlalchemy.pool import Pool, QueuePool, StaticPool

from core.errors import (
    DatabaseError,
    DatabaseLockedError,
    DiskFullError,
    HearthError,
    ReadOnlyError,
)
from core.home import encryption
from core.storage.search_terms import TERMS_FUNCTION, index_terms
from core.storage.sqlite.damage import FirstWriteCheck, damaged, is_damage
from core.storage.write_turns import DEFAULT_WRITE_WAIT_SECONDS as DEFAULT_WRITE_WAIT_SECONDS
from core.storage.write_turns import WRITE_OPTION as WRITE_OPTION
from core.storage.write_turns import take_turn

SQLITE_HEADER = encryption.SQLITE_HEADER
SQLITE_BUSY = 5
LOW_SPACE_BYTES = 1 << 20
"""An I/O error with less than this free on the database's disk is the disk being full:
SQLite reports a -shm file it cannot grow as a plain "disk I/O error", not as full."""
ENCRYPTED_CACHE_KIB = 32 * 1024
"""SQLCipher decrypts a page each time it enters SQLite's own page cache (the system's file
cache holds only encrypted pages), so an encrypted connection keeps a larger cache than
SQLite's 2 MiB default: recall re-reads the same index pages query after query
(``benchmarks/encryption.py`` measures it)."""


MIN_SQLITE = (3, 43, 0)
"""FTS5's ``contentless_delete`` (migration 0024) is SQLite 3.43's."""


def dbapi_module() -> ModuleType:
    """The DB-API module to use: stdlib ``sqlite3`` if it can load extensions and is new
    enough (``MIN_SQLITE``), else ``sqlean``, which bundles a recent SQLite."""
    if (hasattr(sqlite3.Connection, "enable_load_extension")
            and sqlite3.sqlite_version_info >= MIN_SQLITE):
        return sqlite3
    import sqlean

    return cast(ModuleType, sqlean)


def module_for(path: Path | None) -> ModuleType:
    """The DB-API module for the database at ``path``: SQLCipher's in an encrypted folder."""
    if path is not None and encryption.encrypted_folder(path) is not None:
        import sqlcipher3

        return cast(ModuleType, sqlcipher3)
    return dbapi_module()


def connect_file(path: Path, target: str | None = None, **kwargs: Any) -> Any:
    """A DB-API connection to the database file ``path`` (through ``target``, a ``file:``
    URI, when given with ``uri=True``), keyed when the file is in an encrypted folder."""
    key = encryption.key_for(path)
    target = str(path) if target is None else target
    if key is None:
        return dbapi_module().connect(target, **kwargs)
    return encryption.connect(target, key, **kwargs)


def sqlite_uri(path: Path, **parameters: str) -> str:
    """A ``file:`` URI SQLite reads back as exactly ``path`` (percent-quoted by ``as_uri``),
    with ``parameters`` such as ``mode="ro"``; connect with ``uri=True``."""
    uri = path.absolute().as_uri()
    return f"{uri}?{urlencode(parameters)}" if parameters else uri


def read_only_parameters(path: Path) -> dict[str, str]:
    """URI parameters that open ``path`` for reading without changing anything.

    A WAL database needs its -shm file even to be read; when it has no -wal and -shm and
    its folder cannot be written (a read-only mount or folder), SQLite can read it only as
    ``immutable``, which skips locking. That is safe there: nobody can write a WAL database
    without creating its -wal in that very folder. A -wal with content is never ignored."""
    wal = path.with_name(f"{path.name}-wal")
    if os.access(path.parent, os.W_OK) or (wal.exists() and wal.stat().st_size > 0):
        return {"mode": "ro"}
    return {"mode": "ro", "immutable": "1"}


def refuse_what_is_no_file(path: Path) -> None:
    """Refuse a folder (or a device, a pipe) where the database or its write-ahead log
    belongs, naming it: SQLite itself says only "disk I/O error"."""
    for file in (path, *(path.with_name(path.name + suffix) for suffix in ("-wal", "-shm"))):
        if file.exists() and not file.is_file():
            what = "a folder" if file.is_dir() else "not a regular file"
            raise DatabaseError(
                f"{file} is {what}, but Hearth needs that name for a file of its database.",
                "Move or rename it, or choose another data folder with --home.")


def check_database_file(path: Path) -> None:
    """Refuse a file that exists but is not a readable SQLite database, before touching it.

    The file is opened through SQLite itself (read-only), never with a plain ``open()``:
    closing any other handle on a database file drops every POSIX lock this process holds
    on it, so a second engine opened beside a live one would let another process write
    under the first one's reads ("database disk image is malformed"). Reading the schema
    version also catches a database cut short: SQLite finds fewer pages than its header
    counts."""
    if not path.exists() or path.stat().st_size == 0:
        return
    with translated_errors(path):
        connection = connect_file(path, sqlite_uri(path, **read_only_parameters(path)),
                                  uri=True)
        try:
            connection.execute("PRAGMA schema_version").fetchone()
        finally:
            connection.close()


def open_engine(path: Path | None, busy_timeout_ms: int = 5000, *,
                write_wait_seconds: float = DEFAULT_WRITE_WAIT_SECONDS,
                read_only: bool = False, first_write: FirstWriteCheck | None = None) -> Engine:
    """An engine for the database at ``path`` (``None`` for a private in-memory one); its
    write transactions wait up to ``write_wait_seconds`` for another writer. ``read_only``:
    one that cannot change the file (which must exist already). ``first_write``: the check
    its first write runs (one of its own unless given, so the caller can run it sooner)."""
    module = module_for(path)
    pool: type[Pool]
    if path is None or read_only:
        first_write = None
    elif first_write is None:
        first_write = FirstWriteCheck(path)
    if path is None:
        target, pool = ":memory:", StaticPool
    else:
        refuse_what_is_no_file(path)
        if read_only and not path.is_file():
            raise DatabaseError(f"There is no Hearth database at {path} yet.",
                                "It is made by the first command that saves something, in a "
                                "folder Hearth can write.")
        if not read_only:
            path.parent.mkdir(parents=True, exist_ok=True)
        check_database_file(path)
        parameters = read_only_parameters(path) if read_only else {}
        # pooled: a connect + extension load is ~1.4 ms
        target, pool = sqlite_uri(path, **parameters), QueuePool

    def connect() -> Any:
        if path is None:
            return module.connect(target, uri=True, check_same_thread=False,
                                  timeout=busy_timeout_ms / 1000)
        return connect_file(path, target, uri=True, check_same_thread=False,
                            timeout=busy_timeout_ms / 1000)

    engine = create_engine("sqlite://", module=module, poolclass=pool, creator=connect,
                           hide_parameters=True)  # an error or log never quotes user text

    @event.listens_for(engine, "connect")
    def _configure(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        dbapi_connection.enable_load_extension(True)
        sqlite_vec.load(dbapi_connection)
        dbapi_connection.enable_load_extension(False)
        register_terms_function(dbapi_connection)
        cursor = dbapi_connection.cursor()
        try:
            if path is not None and not read_only:
                cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_ms)}")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA secure_delete=ON")
            if module is not dbapi_module():  # SQLCipher: see ENCRYPTED_CACHE_KIB
                cursor.execute(f"PRAGMA cache_size=-{ENCRYPTED_CACHE_KIB}")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _begin(connection: Any) -> None:
        if connection.get_execution_options().get(WRITE_OPTION, False):
            driver = connection.connection.driver_connection
            if first_write is not None:  # a damaged file is never written (``damage``)
                first_write.before_write(driver)
            begin_immediate(driver, path, write_wait_seconds)
        else:
            connection.exec_driver_sql("BEGIN")

    return engine


def register_terms_function(dbapi_connection: Any) -> None:
    """``hearth_terms(text)``, the terms the full-text tables' triggers index
    (``core.storage.search_terms``, migration 0024). Every connection that may write a
    searchable row needs it: without it the write fails ("no such function")."""
    dbapi_connection.create_function(TERMS_FUNCTION, 1, index_terms, deterministic=True)


def is_busy(error: BaseException) -> bool:
    """SQLITE_BUSY (any extended code): another connection holds the lock we need."""
    code = getattr(error, "sqlite_errorcode", None)
    if code is not None:
        return bool(code & 0xFF == SQLITE_BUSY)
    return "database is locked" in str(error).lower()


def begin_immediate(dbapi_connection: Any, path: Path | None, wait_seconds: float) -> None:
    """Start a write transaction, waiting up to ``wait_seconds`` for another writer's lock
    (docs/architecture.md, "Writers take turns"; ``core.storage.write_turns.take_turn``)."""

    def attempt() -> bool:
        try:
            dbapi_connection.execute("BEGIN IMMEDIATE")
        except dbapi_connection.OperationalError as error:
            if not is_busy(error):  # as SQLAlchemy would raise it, for translated_errors
                raise exc.DBAPIError.instance("BEGIN IMMEDIATE", None, error,
                                              dbapi_connection.Error) from error
            return False
        return True

    take_turn(attempt, str(path) if path else "the in-memory database", wait_seconds)


@contextmanager
def translated_errors(path: Path | None, *, backup: bool = False) -> Iterator[None]:
    """Turn driver errors a person can act on into a ``HearthError`` with a hint; others
    (bugs) pass unchanged. Both SQLAlchemy's wrapped errors and the DB-API's own are seen.
    ``backup``: ``path`` is a backup being read, so damage is told as the backup's."""
    try:
        yield
    except (exc.DBAPIError, dbapi_module().Error, *encryption.driver_errors()) as error:
        translated = _person_error(getattr(error, "orig", error), path, backup)
        if translated is None:
            raise
        raise translated from error


def _person_error(error: BaseException, path: Path | None,
                  backup: bool) -> HearthError | None:
    """The sentence for a SQLite error about ``path`` that a person can do something about
    (locked, read-only, disk full, damaged), or None."""
    where = str(path) if path else "the in-memory database"
    text = str(error).lower()
    if "locked" in text or "busy" in text:
        return DatabaseLockedError(
            f"{where} is locked by another program.",
            "Close other Hearth windows or commands using this data folder and try again.")
    if "readonly" in text or "read-only" in text:
        return ReadOnlyError.at(where)
    if "database or disk is full" in text or ("disk i/o error" in text and _low_on_space(path)):
        return DiskFullError.at(where)
    if is_damage(error):
        return damaged(where, error, backup=backup)
    return None


def _low_on_space(path: Path | None) -> bool:
    """Whether the disk holding ``path`` (a file or a folder) has all but run out."""
    if path is None:
        return False
    folder = path if path.is_dir() else path.parent
    try:
        return shutil.disk_usage(folder).free < LOW_SPACE_BYTES
    except OSError:
        return False
