"""``hearth doctor``: check each part Hearth depends on and say how to fix what is wrong.

Each check is independent: a broken model must not hide the state of the database.
Checks report problems as values (``Check.ok`` false with a fix); they never raise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

import httpx

from core.config import HearthPaths, Settings
from core.embedding import OnnxEmbedder
from core.errors import HearthError
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import dbapi_module

DEFAULT_OLLAMA_HOST = "http://127.0.0.1:11434"


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    fix: str = ""


def ollama_host() -> str:
    """The Ollama address from ``OLLAMA_HOST`` (as Ollama itself reads it), else the default."""
    raw = os.environ.get("OLLAMA_HOST", "").strip()
    if not raw:
        return DEFAULT_OLLAMA_HOST
    if "://" not in raw:
        raw = f"http://{raw}"
    parts = urlsplit(raw)
    host = parts.hostname or "127.0.0.1"
    if host == "0.0.0.0":
        host = "127.0.0.1"
    return f"{parts.scheme}://{host}:{parts.port or 11434}"


def check_model(settings: Settings) -> Check:
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=1)
    return Check("embedding model", True, embedder.check())


def check_database(paths: HearthPaths, settings: Settings) -> Check:
    storage = SqliteStorage(paths.database, settings.busy_timeout_ms)
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


def check_ollama() -> Check:
    host = ollama_host()
    try:
        response = httpx.get(f"{host}/api/version", timeout=2.0)
        response.raise_for_status()
        version = response.json().get("version", "unknown")
    except (httpx.HTTPError, ValueError) as exc:
        return Check("ollama", False, f"not reachable at {host} ({type(exc).__name__})",
                     "Optional: install and start Ollama (`ollama serve`) for better replies; "
                     "Hearth works offline without it.")
    return Check("ollama", True, f"{host} (version {version})")


def run_checks(paths: HearthPaths, settings: Settings) -> list[Check]:
    checks: list[tuple[str, Callable[[], Check]]] = [
        ("embedding model", lambda: check_model(settings)),
        ("database", lambda: check_database(paths, settings)),
        ("sqlite-vec", check_sqlite_vec),
        ("FTS5", check_fts5),
        ("ollama", check_ollama),
    ]
    results = []
    for name, check in checks:
        try:
            results.append(check())
        except HearthError as exc:
            results.append(Check(name, False, exc.message, exc.hint))
        except Exception as exc:  # a doctor reports every failure instead of stopping
            results.append(Check(name, False, f"{type(exc).__name__}: {exc}",
                                 "Reinstall with `make setup`; if it persists, report it."))
    return results
