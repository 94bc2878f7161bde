"""Connecting to a PostgreSQL server the way Hearth needs it.

One place builds the engine (``open_engine``): psycopg 3, a connection pool that checks a
connection before lending it (a server restarted overnight costs one reconnect, not an
error), statement parameters hidden from error messages (a traceback in a log never quotes
user text), and a read-only mode whose transactions the server itself refuses to write in.

Writers take turns, as on SQLite (``core.storage.write_turns``): a transaction begun on the
engine's write view (``WRITE_OPTION``) first takes one transaction-level advisory lock,
``WRITE_LOCK_KEY``, trying again with the same backoff until ``write_wait_seconds``. The
server releases it at commit or rollback, or when the connection dies, so a killed process
never leaves it held. Readers never wait for it: PostgreSQL's snapshots keep them consistent,
and read sessions run at REPEATABLE READ, one snapshot for the whole session, as a SQLite
read transaction sees. Serialising writers keeps every unit of work as it was written for
SQLite (read, decide, write), which would otherwise need retries on conflicts.

Errors a person can act on become one sentence in ``translated_errors``: the server is not
answering, the password is refused, the database does not exist, pgvector is missing, the
server is read-only, its disk is full. The URL's password never appears in a message
(``describe``).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from sqlalchemy import Connection, Engine, create_engine, event, exc
from sqlalchemy.engine import URL, make_url

from core.errors import (
    DatabaseError,
    DatabaseLockedError,
    DiskFullError,
    HearthError,
    InvalidInputError,
    ReadOnlyError,
)
from core.storage.write_turns import DEFAULT_WRITE_WAIT_SECONDS, WRITE_OPTION, take_turn

WRITE_LOCK_KEY = 0x4865_6172_7468_5772
"""The advisory lock every write transaction holds ("HearthWr"); advisory locks are per
database, so two Hearth databases on one server never wait for each other."""

CONNECT_TIMEOUT_SECONDS = 10
DRIVER = "postgresql+psycopg"
URL_HINT = ("Check database_url in settings.json (or HEARTH_DATABASE_URL): "
            "postgresql://USER:PASSWORD@HOST:PORT/DATABASE.")


def postgres_url(url: str | URL) -> URL:
    """``url`` with Hearth's driver (psycopg 3), whatever ``postgresql`` spelling it used."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "postgresql":
        raise DatabaseError(f"{describe(parsed)} is not a PostgreSQL URL.", URL_HINT)
    return parsed.set(drivername=DRIVER)


def describe(url: str | URL) -> str:
    """The database as messages name it: ``postgresql://user@host:port/database``, never
    with its password."""
    parsed = make_url(url)
    user = f"{parsed.username}@" if parsed.username else ""
    port = f":{parsed.port}" if parsed.port else ""
    return f"postgresql://{user}{parsed.host or 'localhost'}{port}/{parsed.database or ''}"


def open_engine(url: str | URL, *, read_only: bool = False,
                write_wait_seconds: float = DEFAULT_WRITE_WAIT_SECONDS) -> Engine:
    """A pooled engine for the database at ``url``. Its write view's transactions wait up
    to ``write_wait_seconds`` for another writer; ``read_only``: the server refuses every
    write in its transactions."""
    target = postgres_url(url)
    where = describe(target)
    engine = create_engine(target, hide_parameters=True, pool_pre_ping=True,
                           connect_args={"connect_timeout": CONNECT_TIMEOUT_SECONDS,
                                         "application_name": "hearth"})

    if read_only:
        @event.listens_for(engine, "connect")
        def _read_only(dbapi_connection: Any, _record: Any) -> None:
            dbapi_connection.read_only = True

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        if connection.get_execution_options().get(WRITE_OPTION, False):
            take_write_lock(connection, where, write_wait_seconds)

    return engine


def take_write_lock(connection: Connection, where: str, wait_seconds: float) -> None:
    """Hold ``WRITE_LOCK_KEY`` for the transaction ``connection`` is beginning, waiting up
    to ``wait_seconds`` for another writer (``write_turns.take_turn``)."""
    cursor = connection.connection.driver_connection.cursor()  # type: ignore[union-attr]  # open: never None

    def attempt() -> bool:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))
        row = cursor.fetchone()
        return bool(row and row[0])

    try:
        take_turn(attempt, where, wait_seconds)
    finally:
        cursor.close()


@contextmanager
def translated_errors(where: str) -> Iterator[None]:
    """Turn driver errors a person can act on into a ``HearthError`` with a hint; others
    (bugs) pass unchanged. Both SQLAlchemy's wrapped errors and psycopg's own are seen."""
    try:
        yield
    except (exc.DBAPIError, psycopg.Error) as error:
        translated = person_error(getattr(error, "orig", None) or error, where)
        if translated is None:
            raise
        raise translated from error


SERVER_DOWN = ("connection refused", "could not connect", "no such file or directory",
               "timeout expired", "could not translate host name", "server closed the "
               "connection", "connection is lost", "name or service not known",
               "network is unreachable", "no route to host")


def person_error(error: BaseException, where: str) -> HearthError | None:
    """The sentence for a PostgreSQL error about ``where`` that a person can do something
    about, or None. A failed connection carries no SQLSTATE (psycopg reports the server's
    FATAL message as text), so those are recognised by their words as well."""
    state = getattr(error, "sqlstate", None) or ""
    text = str(error).lower()
    server = where.split("@")[-1].split("/")[0]
    if state == "28P01" or "password authentication failed" in text:
        return DatabaseError(f"The PostgreSQL server at {server} refused the password "
                             f"for {where}.", URL_HINT)
    if state == "28000" or "no pg_hba.conf entry" in text:
        return DatabaseError(f"The PostgreSQL server at {server} does not let this machine "
                             f"connect as {where}.",
                             "Allow it in the server's pg_hba.conf, or check database_url.")
    if state == "3D000" or ("database" in text and "does not exist" in text):
        return DatabaseError(f"The database of {where} does not exist on its server.",
                             "Create it (`createdb -O USER DATABASE` on the server), or "
                             "check database_url.")
    if "cannot contain nul" in text:  # psycopg refuses it before sending
        return InvalidInputError("PostgreSQL cannot store text that contains a NUL "
                                 "character (\\x00), so this was not saved.",
                                 "Remove the character and try again.")
    if state == "25006":
        return ReadOnlyError.at(where)
    if state == "53100":
        return DiskFullError.at(f"the PostgreSQL database {where}")
    if state in ("55P03", "40P01"):
        return DatabaseLockedError(f"{where} is locked by another program.",
                                   "Let the other Hearth window or command finish, then "
                                   "try again.")
    if state == "53300":
        return DatabaseError(f"The PostgreSQL server at {server} has no connection left "
                             "for Hearth.", "Close other programs using it, or raise its "
                             "max_connections.")
    if state.startswith("08") or state in ("57P01", "57P02", "57P03") or (
            isinstance(error, psycopg.OperationalError)
            and any(sign in text for sign in SERVER_DOWN)):
        return DatabaseError(f"The PostgreSQL server at {server} is not answering.",
                             f"Start it (or check that it is reachable), then try again. "
                             f"{URL_HINT}")
    return None


def ensure_vector_extension(engine: Engine, where: str, *, read_only: bool) -> None:
    """Make sure pgvector is enabled in the database: enable it if this role may
    (``CREATE EXTENSION`` needs a superuser or, for a trusted extension, the owner), else
    say precisely what the server's administrator has to do."""
    with engine.connect() as connection:
        enabled = connection.exec_driver_sql(
            "SELECT 1 FROM pg_extension WHERE extname = 'vector'").first()
        if enabled:
            return
        available = connection.exec_driver_sql(
            "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'").first()
    if not available:
        raise DatabaseError(f"The PostgreSQL server of {where} does not have the pgvector "
                            "extension, which Hearth needs for its vector search.",
                            "Install it on the server (Debian: apt-get install "
                            "postgresql-NN-pgvector), then run CREATE EXTENSION vector; in "
                            "the database as a superuser.")
    hint = ("As a superuser, run CREATE EXTENSION vector; in that database "
            "(`psql -d DATABASE -c 'CREATE EXTENSION vector'`), then start Hearth again.")
    if read_only:
        raise DatabaseError(f"pgvector is not enabled in {where}, and a read-only "
                            "connection cannot enable it.", hint)
    try:
        with engine.begin() as connection:
            connection.exec_driver_sql("CREATE EXTENSION IF NOT EXISTS vector")
    except exc.DBAPIError as error:
        if getattr(error.orig, "sqlstate", None) != "42501":  # insufficient_privilege
            raise
        raise DatabaseError(f"pgvector is installed on the server but not enabled in "
                            f"{where}, and this user may not enable it.", hint) from error
