"""What ``hearth doctor`` checks of a SQLite database: the file itself (``quick_check`` and
its schema revision), and the two extensions recall relies on, sqlite-vec and FTS5, each
probed on a private in-memory connection so one that is missing does not hide the others.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import sqlite_vec
from sqlalchemy import Engine

from core.errors import HearthError
from core.storage import migrate
from core.storage.port import HealthCheck
from core.storage.sqlite.engine import dbapi_module

log = logging.getLogger(__name__)


def health_checks(engine: Engine, path: Path | None) -> list[HealthCheck]:
    """The database, sqlite-vec and FTS5, each reported as ok or with what to do."""
    checks: list[tuple[str, Callable[[], HealthCheck]]] = [
        ("database", lambda: _database(engine, path)),
        ("sqlite-vec", _sqlite_vec),
        ("FTS5", _fts5),
    ]
    results = []
    for name, check in checks:
        try:
            results.append(check())
        except HearthError as exc:
            results.append(HealthCheck(name, False, exc.message, exc.hint))
        except Exception as exc:  # a doctor reports every failure instead of stopping
            log.exception("the %s check failed unexpectedly", name)
            results.append(HealthCheck(name, False, f"{type(exc).__name__}: {exc}",
                                       "Reinstall with `make setup`; if it persists, report "
                                       "it."))
    return results


def _database(engine: Engine, path: Path | None) -> HealthCheck:
    where = str(path) if path else "the in-memory database"
    with engine.connect() as connection:
        verdict = connection.exec_driver_sql("PRAGMA quick_check").scalar()
    if verdict != "ok":
        return HealthCheck("database", False, f"{where}: {verdict}",
                           "Restore a backup with `hearth restore BACKUP`.")
    revision = migrate.current_revision(engine)
    return HealthCheck("database", True, f"{where} (SQLite, schema {revision}, integrity ok)")


def _sqlite_vec() -> HealthCheck:
    connection = dbapi_module().connect(":memory:")
    try:
        connection.enable_load_extension(True)
        sqlite_vec.load(connection)
        version = connection.execute("SELECT vec_version()").fetchone()[0]
    finally:
        connection.close()
    return HealthCheck("sqlite-vec", True, f"{version} via {dbapi_module().__name__}")


def _fts5() -> HealthCheck:
    connection = dbapi_module().connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
    finally:
        connection.close()
    return HealthCheck("FTS5", True, "available")
