"""``hearth doctor``: check each part Hearth depends on and say how to fix what is wrong.

Each check is independent: a broken model must not hide the state of the database.
Checks report problems as values (``Check.ok`` false with a fix); they never raise.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from core.config import HearthPaths, Settings
from core.embedding import OnnxEmbedder
from core.errors import HearthError
from core.llm.ollama import OllamaProvider
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import dbapi_module

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def check_model(settings: Settings) -> Check:
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=1)
    return Check("embedding model", True, embedder.check())


def check_database(paths: HearthPaths, settings: Settings) -> Check:
    """Opened read-only where the folder cannot be written: checking it changes nothing."""
    storage = SqliteStorage(paths.database, settings.busy_timeout_ms,
                            write_wait_seconds=settings.write_wait_seconds,
                            read_only=not paths.writable())
    try:
        with storage.engine.connect() as connection:
            verdict = connection.exec_driver_sql("PRAGMA quick_check").scalar()
        revision = storage.schema_revision()
    finally:
        storage.close()
    if verdict != "ok":
        return Check("database", False, f"{paths.database}: {verdict}",
                     "Restore a backup with `hearth restore BACKUP`.")
    return Check("database", True, f"{paths.database} (schema {revision}, integrity ok)")


def check_vector_index(paths: HearthPaths, settings: Settings) -> Check:
    """Whether each large vector table's ANN index agrees with its rows (read only: a
    rebuild is long work with progress, for ``hearth reembed`` or the next dream)."""
    from core.storage.sqlite.search import SqliteSearchIndex

    storage = SqliteStorage(paths.database, settings.busy_timeout_ms,
                            write_wait_seconds=settings.write_wait_seconds, read_only=True)
    try:
        states = SqliteSearchIndex(storage.engine, database=paths.database,
                                   read_only=True).vector_index_states()
    finally:
        storage.close()
    indexed = [state for state in states if state.state != "not needed"]
    if not indexed:
        return Check("vector index", True, "not needed yet (every kind is scanned)")
    detail = "; ".join(f"{state.table}: {state.rows:,} vectors, {state.state}"
                       + (f" ({state.reason})" if state.reason else "") for state in indexed)
    if all(state.state == "current" for state in indexed):
        return Check("vector index", True, detail)
    return Check("vector index", False, detail + "; searches scan until it is rebuilt",
                 "Run `hearth reembed` (it rebuilds the index, with progress), or let the "
                 "next dream do it.")


def check_sqlite_vec() -> Check:
    import sqlite_vec

    connection = dbapi_module().connect(":memory:")
    try:
        connection.enable_load_extension(True)
        sqlite_vec.load(connection)
        version = connection.execute("SELECT vec_version()").fetchone()[0]
    finally:
        connection.close()
    return Check("sqlite-vec", True, f"{version} via {dbapi_module().__name__}")


def check_fts5() -> Check:
    connection = dbapi_module().connect(":memory:")
    try:
        connection.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
    finally:
        connection.close()
    return Check("FTS5", True, "available")


def check_ollama(settings: Settings) -> Check:
    """The same probe the app uses to pick a provider (host, model installed)."""
    status = OllamaProvider.from_settings(settings).status()
    if not status.available:
        return Check("ollama", False, status.detail,
                     "Optional: start Ollama (`ollama serve`) and pull the model for better "
                     "replies; Hearth works offline with its embedded model without it.")
    return Check("ollama", True, status.detail)


def run_checks(paths: HearthPaths, settings: Settings) -> list[Check]:
    checks: list[tuple[str, Callable[[], Check]]] = [
        ("embedding model", lambda: check_model(settings)),
        ("database", lambda: check_database(paths, settings)),
        ("vector index", lambda: check_vector_index(paths, settings)),
        ("sqlite-vec", check_sqlite_vec),
        ("FTS5", check_fts5),
        ("ollama", lambda: check_ollama(settings)),
    ]
    results = []
    for name, check in checks:
        try:
            results.append(check())
        except HearthError as exc:
            results.append(Check(name, False, exc.message, exc.hint))
        except Exception as exc:  # a doctor reports every failure instead of stopping
            log.exception("the %s check failed unexpectedly", name)
            results.append(Check(name, False, f"{type(exc).__name__}: {exc}",
                                 "Reinstall with `make setup`; if it persists, report it."))
    return results
