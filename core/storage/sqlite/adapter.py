"""The SQLite implementation of the storage port."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from core.storage import migrate
from core.storage.port import SearchIndex
from core.storage.sqlite.engine import WRITE_OPTION, dbapi_module, open_engine, translated_errors
from core.storage.sqlite.search import SqliteSearchIndex


class SqliteStorage:
    """One Hearth database file (or a private in-memory one when ``path`` is None).

    Opening it brings the schema up to date, so every caller sees the newest tables. A
    ``read_only`` one changes nothing, so it cannot migrate: it refuses a schema this
    version would have to change, and every write fails with ``ReadOnlyError``.
    """

    def __init__(self, path: Path | None, busy_timeout_ms: int = 5000, *,
                 read_only: bool = False) -> None:
        self._path = path
        self._engine: Engine = open_engine(path, busy_timeout_ms, read_only=read_only)
        with translated_errors(path):
            if read_only:
                migrate.require_current(self._engine)
            else:
                migrate.upgrade(self._engine)
        self._reader = sessionmaker(self._engine, expire_on_commit=False)
        self._write_engine = self._engine.execution_options(**{WRITE_OPTION: True})
        self._writer = sessionmaker(self._write_engine,
                                    expire_on_commit=False)
        self._search = SqliteSearchIndex(self._engine)

    @property
    def path(self) -> Path | None:
        return self._path

    @property
    def engine(self) -> Engine:
        return self._engine

    def write_engine(self) -> Engine:
        return self._write_engine

    @property
    def search(self) -> SearchIndex:
        return self._search

    @contextmanager
    def read(self) -> Iterator[Session]:
        with translated_errors(self._path), self._reader() as session:
            try:
                yield session
            finally:
                session.expunge_all()  # returned objects stay usable after the rollback
                session.rollback()

    @contextmanager
    def write(self) -> Iterator[Session]:
        with translated_errors(self._path), self._writer() as session, session.begin():
            yield session

    def backup_to(self, target: Path) -> None:
        """SQLite's online backup API: a consistent snapshot while others keep writing.

        The copy is switched from WAL to a rollback journal, so it is one self-contained
        file: opening it read-only later (to verify or restore it) then leaves no -wal or
        -shm beside it."""
        target.parent.mkdir(parents=True, exist_ok=True)
        destination = dbapi_module().connect(str(target))
        try:
            with translated_errors(self._path):
                raw = self._engine.raw_connection()
                try:
                    raw.driver_connection.backup(destination)  # type: ignore[union-attr]
                finally:
                    raw.close()
                destination.execute("PRAGMA journal_mode=DELETE")
        finally:
            destination.close()

    def schema_revision(self) -> str | None:
        return migrate.current_revision(self._engine)

    def close(self) -> None:
        self._engine.dispose()
