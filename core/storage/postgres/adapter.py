"""The PostgreSQL implementation of the storage port: a Hearth database on a server.

The same ORM models and the same Alembic history as SQLite (the few dialect-specific steps
branch inside the migrations); full-text search on tsvector columns with GIN indexes and
vector search with pgvector (``core.storage.postgres.search``). What differs from a SQLite
file is what a server is: there is no ``path``, several machines may connect, and backups
and reclaiming deleted text are the server's business (``backup_to``, ``erase_deleted``).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from sqlalchemy import Connection, Engine, exc, text
from sqlalchemy.orm import Session, sessionmaker

from core.errors import HearthError
from core.storage import migrate
from core.storage.change_feed import ChangeFeed
from core.config.database_url import masked
from core.storage.port import BackupCopies, HealthCheck, RowClaims, SearchIndex, StoragePort
from core.storage.postgres import backup, locks
from core.storage.postgres.copies import PostgresCopies
from core.storage.postgres.engine import (
    describe,
    ensure_vector_extension,
    open_engine,
    translated_errors,
)
from core.storage.postgres.health import health_checks
from core.storage.postgres.search import PostgresSearchIndex, erasable_tables
from core.storage.write_turns import DEFAULT_WRITE_WAIT_SECONDS, WRITE_OPTION


INSUFFICIENT_PRIVILEGE = "42501"
SNAPSHOT_WAIT_S = 2.0
"""How long a vacuum waits for other sessions' short transactions to end."""


class PostgresStorage:
    """One Hearth database on a PostgreSQL server, named by a ``postgresql://`` URL.

    Opening it makes sure pgvector is enabled and brings the schema up to date, so every
    caller sees the newest tables; two processes migrating at once take turns on the write
    lock (the migration is one write transaction, and PostgreSQL's DDL is transactional).
    Write transactions wait up to ``write_wait_seconds`` for another process's
    (``engine.take_write_lock``). A ``read_only`` one changes nothing: it refuses a schema
    this version would have to change, and the server refuses every write.
    """

    def __init__(self, url: str, *, read_only: bool = False,
                 write_wait_seconds: float = DEFAULT_WRITE_WAIT_SECONDS) -> None:
        self._url = url
        self._where = describe(url)
        self._engine = open_engine(url, read_only=read_only,
                                   write_wait_seconds=write_wait_seconds)
        try:
            with translated_errors(self._where):
                ensure_vector_extension(self._engine, self._where, read_only=read_only)
                if read_only:
                    migrate.require_current(self._engine)
                else:
                    migrate.upgrade(self._engine)
        except BaseException:
            self._engine.dispose()
            raise
        self._reader = sessionmaker(
            self._engine.execution_options(isolation_level="REPEATABLE READ"),
            expire_on_commit=False)
        self._write_engine = self._engine.execution_options(**{WRITE_OPTION: True})
        self._writer = sessionmaker(self._write_engine, expire_on_commit=False)
        self._search = PostgresSearchIndex(self._engine)
        self._claims = locks.AdvisoryClaims(self._engine)
        self._copies = PostgresCopies(url, _open_copy)
        self._changes = ChangeFeed(self._engine)  # the change log's key is the counter

    @property
    def path(self) -> Path | None:
        """None: the database lives on a server, not in a file of the data folder."""
        return None

    @property
    def location(self) -> str:
        """The server's URL with the password masked."""
        return masked(self._url)

    @property
    def engine(self) -> Engine:
        return self._engine

    def write_engine(self) -> Engine:
        return self._write_engine

    @property
    def search(self) -> SearchIndex:
        return self._search

    @property
    def concurrent_reads(self) -> bool:
        """Every session takes its own pooled connection to the server."""
        return True

    @contextmanager
    def read(self) -> Iterator[Session]:
        """One snapshot for the whole session (REPEATABLE READ), rolled back at the end."""
        with translated_errors(self._where), self._reader() as session:
            try:
                yield session
            finally:
                session.expunge_all()  # returned objects stay usable after the rollback
                session.rollback()

    @property
    def changes(self) -> ChangeFeed:
        return self._changes

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A write transaction whose lock is taken on entry (waiting for another writer
        there, before the caller's body runs); what it changed is told once it is committed
        (``ChangeFeed.transaction``)."""
        with translated_errors(self._where), self._changes.transaction(self._writer) as session:
            yield session

    def backup_to(self, target: Path) -> None:
        """A ``pg_dump`` of the database into ``target`` (``core.storage.postgres.backup``),
        taken from one snapshot while others keep writing."""
        backup.dump(self._url, target)

    @property
    def copies(self) -> BackupCopies:
        return self._copies

    def size_bytes(self) -> int:
        """The server's own count for the database (``pg_database_size``: its tables,
        indexes and TOAST, not the write-ahead log, which the server shares)."""
        with translated_errors(self._where), self._engine.connect() as connection:
            return int(connection.exec_driver_sql(
                "SELECT pg_database_size(current_database())").scalar_one())

    def health_checks(self) -> list[HealthCheck]:
        return health_checks(self._engine, self._where, self._url)

    def check_writable(self) -> None:
        """Nothing to check from here: the server verifies its own pages as it reads them
        (and refuses what it cannot write, each time)."""

    def erase_deleted(self, *, compact: bool = False) -> bool:
        """``VACUUM`` every table that holds user text, so the rows a forget deleted (and
        the old versions of rows it changed) are pruned from their pages and from the
        full-text and vector indexes; with ``compact``, ``VACUUM FULL`` rewrites each table
        and its indexes into new files, so no page of the old files is kept by the server.

        What PostgreSQL does not allow (docs/architecture.md, "PostgreSQL"): VACUUM marks
        the space free without zeroing it, so until it is reused the bytes stay in the
        table's file (``compact`` rewrites the files; the filesystem may keep old blocks);
        the write-ahead log keeps the deleted text until the server recycles its segments,
        and the server's archives, replicas and dumps are out of Hearth's reach. A row
        version that another open transaction may still see cannot be removed yet: then
        this returns False, and a later vacuum (autovacuum, or the next forget) removes it.
        """
        statement = "VACUUM (FULL, ANALYZE)" if compact else "VACUUM (ANALYZE)"
        with translated_errors(self._where):
            with self._engine.connect() as probe:
                tables = erasable_tables(probe)
                others = self._open_elsewhere(probe)
            with self._engine.connect().execution_options(
                    isolation_level="AUTOCOMMIT") as connection:
                for table in tables:
                    connection.exec_driver_sql(f'{statement} "{table}"')
        return int(others) == 0

    @staticmethod
    def _open_elsewhere(probe: Connection) -> int:
        """How many other sessions of this database hold a snapshot (their transactions may
        still see what a vacuum would remove), after waiting up to ``SNAPSHOT_WAIT_S`` for
        short ones to end: a change watcher's poll or another process's read takes
        milliseconds, and counting one of those made a forget say "in use" at random."""
        deadline = time.monotonic() + SNAPSHOT_WAIT_S
        while True:
            others = int(probe.execute(text(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL")).scalar_one())
            probe.rollback()
            if others == 0 or time.monotonic() >= deadline:
                return others
            time.sleep(0.05)

    def checkpoint(self) -> bool:
        """``CHECKPOINT``: every page the server changed is written to its table's files,
        and the write-ahead log before it may be recycled (its segments are then reused or
        removed as the server needs, not emptied). It needs a superuser or the
        ``pg_checkpoint`` role (PostgreSQL 15), which Hearth's own role usually lacks:
        then False, and the server's next timed checkpoint does it (``checkpoint_timeout``,
        5 minutes by default)."""
        with translated_errors(self._where):
            try:
                with self._engine.connect().execution_options(
                        isolation_level="AUTOCOMMIT") as connection:
                    connection.exec_driver_sql("CHECKPOINT")
            except exc.DBAPIError as error:
                if getattr(error.orig, "sqlstate", None) != INSUFFICIENT_PRIVILEGE:
                    raise
                return False
        return True

    @property
    def claims(self) -> RowClaims:
        """Advisory locks on the server (``core.storage.postgres.locks``): every device
        sharing the database sees them, and the server drops a dead process's."""
        return self._claims

    def exclusive(self, name: str, busy: HearthError) -> AbstractContextManager[None]:
        """A session advisory lock held on a connection of its own for the block: one
        holder across every device sharing the database (not a lock file, which another
        device's data folder would not have)."""
        return locks.exclusive(self._engine, name, busy)

    def schema_revision(self) -> str | None:
        return migrate.current_revision(self._engine)

    def close(self) -> None:
        self._changes.close()
        self._claims.close()
        self._engine.dispose()


def _open_copy(url: str) -> StoragePort:
    """A scratch database holding a backup, opened as the live one is (migrated)."""
    return PostgresStorage(url)
