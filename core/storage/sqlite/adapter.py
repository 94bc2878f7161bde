"""The SQLite implementation of the storage port."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import filelock
from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from core.errors import DatabaseError, DatabaseLockedError, HearthError
from core.storage import file_claims, migrate
from core.storage.change_feed import ChangeFeed
from core.storage.port import BackupCopies, HealthCheck, RowClaims, SearchIndex
from core.storage.sqlite.copies import SqliteCopies, with_sidecars
from core.storage.sqlite.engine import (
    DEFAULT_WRITE_WAIT_SECONDS,
    WRITE_OPTION,
    connect_file,
    open_engine,
    translated_errors,
)
from core.storage.sqlite.damage import FirstWriteCheck
from core.storage.sqlite.data_version import DataVersion
from core.storage.sqlite.health import health_checks
from core.storage.sqlite.ownership import refuse_another_programs
from core.storage.sqlite.derived import new_generation
from core.storage.sqlite.search import KINDS, SqliteSearchIndex

MIGRATION_LOCK = "migrate.lock"
"""In the database's folder: held by the one process that upgrades the schema."""


class SqliteStorage:
    """One Hearth database file (or a private in-memory one when ``path`` is None).

    Opening it brings the schema up to date, so every caller sees the newest tables. Two
    processes opening an out-of-date file at once take turns (``MIGRATION_LOCK``): the
    second waits, then finds the schema at head. Write transactions wait up to
    ``write_wait_seconds`` for another process's (``engine.begin_immediate``). A
    ``read_only`` one changes nothing, so it cannot migrate: it refuses a schema this
    version would have to change, and every write fails with ``ReadOnlyError``. Another
    program's SQLite file is refused before anything is written to it (``ownership``).
    """

    def __init__(self, path: Path | None, busy_timeout_ms: int = 5000, *,
                 write_wait_seconds: float = DEFAULT_WRITE_WAIT_SECONDS,
                 read_only: bool = False) -> None:
        self._path = path
        self._write_wait_seconds = write_wait_seconds
        self._first_write = None if path is None or read_only else FirstWriteCheck(path)
        self._engine: Engine = open_engine(path, busy_timeout_ms,
                                           write_wait_seconds=write_wait_seconds,
                                           read_only=read_only, first_write=self._first_write)
        self._write_engine = self._engine.execution_options(**{WRITE_OPTION: True})
        if path is not None:  # before the first connection, which switches to WAL
            refuse_another_programs(path)
        with translated_errors(path):
            if read_only:
                migrate.require_current(self._engine)
            else:
                self._migrate()
        self._reader = sessionmaker(self._engine, expire_on_commit=False)
        self._writer = sessionmaker(self._write_engine,
                                    expire_on_commit=False)
        self._search = SqliteSearchIndex(self._engine, database=path, read_only=read_only)
        self._copies = SqliteCopies(path, SqliteStorage)
        self._claims = file_claims.FileClaims(
            path.parent / file_claims.CLAIMS_FOLDER if path is not None else None)
        self._changes = ChangeFeed(self._engine, probe=DataVersion, shared=path is not None)

    def _migrate(self) -> None:
        """Upgrade the schema, one process at a time.

        Two processes migrating together both start from the old revision and one of them
        fails (its DDL cannot take the lock the other holds), losing that command's write.
        Checked again under the lock: the process that waited finds the schema at head. An
        up-to-date file (every open but the first after an update) takes no lock at all."""
        if self._path is None:  # private to this process: nobody to take turns with
            migrate.upgrade(self._engine, writer=self._write_engine)
            return
        if migrate.is_current(self._engine):
            return
        lock = filelock.FileLock(self._path.parent / MIGRATION_LOCK, mode=0o600,
                                 timeout=self._write_wait_seconds)
        try:
            lock.acquire()
        except filelock.Timeout as exc:
            raise DatabaseLockedError(
                f"Another Hearth process has been upgrading {self._path} for more than "
                f"{self._write_wait_seconds:g} seconds.",
                "Let it finish (a large database takes a while), then try again.") from exc
        except PermissionError as exc:
            raise DatabaseError(f"{self._path.parent} is read-only, so its database cannot "
                                "be upgraded to this version of Hearth.",
                                "Check the folder's permissions.") from exc
        try:
            migrate.upgrade(self._engine, writer=self._write_engine)
        finally:
            lock.release()

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def location(self) -> str:
        return str(self._path) if self._path else "the in-memory database"

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
        """A file has a pool of connections; an in-memory database has one, shared."""
        return self._path is not None

    @contextmanager
    def read(self) -> Iterator[Session]:
        with translated_errors(self._path), self._reader() as session:
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
        there, before the caller's body runs), so the body never meets a busy database;
        what it changed is told once it is committed (``ChangeFeed.transaction``)."""
        with translated_errors(self._path), self._changes.transaction(self._writer) as session:
            yield session

    def check_writable(self) -> None:
        """Run the whole-file check of the first write now (``core.storage.sqlite.damage``):
        a damaged file is refused at once, however long until the first write."""
        if self._first_write is None:
            return
        with translated_errors(self._path):
            raw = self._engine.raw_connection()
            try:
                self._first_write.before_write(raw.driver_connection)
            finally:
                raw.close()

    def backup_to(self, target: Path) -> None:
        """SQLite's online backup API: a consistent snapshot while others keep writing.

        The copy is switched from WAL to a rollback journal, so it is one self-contained
        file: opening it read-only later (to verify or restore it) then leaves no -wal or
        -shm beside it. It gets a vector generation of its own, so once restored no ANN
        index file built from this database is taken for its (``derived.new_generation``).

        The database is checked whole first (``check_writable``, once per open): a copy of a
        damaged file would only fail its own check, and be told as a damaged backup."""
        self.check_writable()
        target.parent.mkdir(parents=True, exist_ok=True)
        destination = connect_file(target)
        try:
            with translated_errors(self._path):
                raw = self._engine.raw_connection()
                try:
                    raw.driver_connection.backup(destination)  # type: ignore[union-attr]  # open: never None
                finally:
                    raw.close()
                new_generation(destination)
                destination.execute("PRAGMA journal_mode=DELETE")
        finally:
            destination.close()

    @property
    def copies(self) -> BackupCopies:
        return self._copies

    def size_bytes(self) -> int:
        """The database file with its write-ahead log and shared memory."""
        if self._path is None:
            return 0
        return sum(file.stat().st_size for file in with_sidecars(self._path) if file.is_file())

    def health_checks(self) -> list[HealthCheck]:
        return health_checks(self._engine, self._path, self._search.vector_index_states,
                             self._search.text_index_states)

    def erase_deleted(self, *, compact: bool = False) -> bool:
        """Rewrite the ANN index files without the vectors deleted since they were written
        (``core.storage.sqlite.ann``) and the full-text index folders without the terms of
        rows deleted or changed since theirs (``core.storage.sqlite.text_index``),
        ``optimize`` every FTS5 index (FTS5 keeps a deleted
        row's terms in its older segments until they are merged; merging them into one
        drops them), then ``VACUUM``
        if asked, then ``wal_checkpoint(TRUNCATE)``. Every connection runs with
        ``secure_delete`` (``engine``), so the pages these steps free are zeroed.

        FTS5's own ``secure-delete`` option would purge terms at each delete, but a database
        with it set can no longer be read by SQLite older than 3.42, which the standard
        library of some Pythons still is; merging on a forget gives the same result."""
        if self._path is None:
            return True
        with translated_errors(self._path):
            self._search.erase_removed()
            with self._write_engine.begin() as connection:
                for spec in KINDS.values():
                    connection.exec_driver_sql(
                        f"INSERT INTO {spec.fts}({spec.fts}) VALUES ('optimize')")
            if compact:
                raw = self._engine.raw_connection()
                try:
                    driver = raw.driver_connection
                    driver.execute("VACUUM")  # type: ignore[union-attr]  # open: never None
                finally:
                    raw.close()
        return self.checkpoint()

    def checkpoint(self) -> bool:
        """``wal_checkpoint(TRUNCATE)``: the log copied into the file and emptied; False if
        another connection still reads part of it."""
        if self._path is None:
            return True
        with translated_errors(self._path):
            raw = self._engine.raw_connection()
            try:
                driver = raw.driver_connection
                busy = driver.execute(  # type: ignore[union-attr]  # open: never None
                    "PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0]
            finally:
                raw.close()
        return bool(busy == 0)

    @property
    def claims(self) -> RowClaims:
        """Lock files in ``running/`` beside the database file (``core.storage.file_claims``);
        none for a private in-memory database, whose rows no other process can see."""
        return self._claims

    def exclusive(self, name: str, busy: HearthError) -> AbstractContextManager[None]:
        """``<name>.lock`` beside the database file (``<home>/dream.lock`` for the data
        folder's own database), held with ``flock``: the system drops it with its process."""
        return file_claims.exclusive(self._path.parent if self._path is not None else None,
                                     name, busy, owner=self)

    def schema_revision(self) -> str | None:
        return migrate.current_revision(self._engine)

    def close(self) -> None:
        self._changes.close()
        self._engine.dispose()
