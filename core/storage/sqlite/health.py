"""What ``hearth doctor`` checks of a SQLite database: the file itself (``quick_check`` and
its schema revision), whether each large vector table's ANN index agrees with its rows, and
the two extensions recall relies on, sqlite-vec and FTS5, each probed on a private in-memory
connection so one that is missing does not hide the others.
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
from core.storage.sqlite.derived import IndexState
from core.storage.sqlite.damage import first_problem
from core.storage.sqlite.engine import dbapi_module, module_for, translated_errors

log = logging.getLogger(__name__)


def health_checks(engine: Engine, path: Path | None,
                  vector_index_states: Callable[[], list[IndexState]],
                  text_index_states: Callable[[], list[IndexState]]) -> list[HealthCheck]:
    """The database, its ANN and full-text indexes, sqlite-vec and FTS5, each reported as
    ok or with what to do."""
    checks: list[tuple[str, Callable[[], HealthCheck]]] = [
        ("database", lambda: _database(engine, path)),
        ("vector index", lambda: _derived_index("vector index", vector_index_states())),
        ("full-text index", lambda: _derived_index("full-text index", text_index_states())),
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


FALLBACKS = {"vector index": ("vectors", "searches scan until it is rebuilt"),
             "full-text index": ("rows", "FTS5 answers until it is rebuilt")}


def _derived_index(name: str, states: list[IndexState]) -> HealthCheck:
    """Read only: a rebuild is long work with progress, for ``hearth reembed`` or the next
    dream. An index that is off (an encrypted folder) or not needed yet is fine."""
    unit, fallback = FALLBACKS[name]
    indexed = [state for state in states if state.state not in ("not needed", "off")]
    if not indexed:
        off = any(state.state == "off" for state in states)
        return HealthCheck(name, True, "off in an encrypted folder" if off
                           else "not needed yet (every table is small)")
    detail = "; ".join(f"{state.table}: {state.rows:,} {unit}, {state.state}"
                       + (f" ({state.reason})" if state.reason else "") for state in indexed)
    if all(state.state == "current" for state in indexed):
        return HealthCheck(name, True, detail)
    return HealthCheck(name, False, f"{detail}; {fallback}",
                       "Run `hearth reembed` (it rebuilds the index, with progress), or let "
                       "the next dream do it.")


def _database(engine: Engine, path: Path | None) -> HealthCheck:
    where = str(path) if path else "the in-memory database"
    with translated_errors(path), engine.connect() as connection:  # damage may stop it
        problem = first_problem(connection.exec_driver_sql("PRAGMA quick_check").all())
    if problem is not None:
        return HealthCheck("database", False, f"{where}: {problem}",
                           "Restore a backup with `hearth restore BACKUP`.")
    revision = migrate.current_revision(engine)
    kind = "SQLite" if module_for(path) is dbapi_module() else "SQLite, encrypted (SQLCipher)"
    return HealthCheck("database", True, f"{where} ({kind}, schema {revision}, integrity ok)")


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
