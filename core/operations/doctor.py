"""``hearth doctor``: check each part Hearth depends on and say how to fix what is wrong.

Each check is independent: a broken model must not hide the state of the database.
Checks report problems as values (``Check.ok`` false with a fix); they never raise.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from core.config import Settings
from core.home.paths import HearthPaths
from core.embedding import OnnxEmbedder
from core.errors import HearthError
from core.llm.ollama import OllamaProvider
from core.storage.factory import describe, open_storage
from core.storage.port import HealthCheck as Check

log = logging.getLogger(__name__)

__all__ = ["Check", "check_database", "check_model", "check_ollama", "run_checks"]


def check_model(settings: Settings) -> Check:
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=1)
    return Check("embedding model", True, embedder.check())


def check_database(paths: HearthPaths, settings: Settings) -> list[Check]:
    """The database the settings name and what it relies on, as its adapter checks them
    (``StoragePort.health_checks``: SQLite's file, sqlite-vec and FTS5). Opened read-only
    where the folder cannot be written: checking it changes nothing. A database that
    cannot be opened is one failed check, saying which database it was (password masked)."""
    chosen = Check("database_url", True, describe(settings))
    try:
        storage = open_storage(settings, paths, read_only=not paths.writable())
    except HearthError as exc:
        return [chosen, Check("database", False, exc.message, exc.hint)]
    try:
        return [chosen, *storage.health_checks()]
    finally:
        storage.close()


def check_ollama(settings: Settings) -> Check:
    """The same probe the app uses to pick a provider (host, model installed)."""
    status = OllamaProvider.from_settings(settings).status()
    if not status.available:
        return Check("ollama", False, status.detail,
                     "Optional: start Ollama (`ollama serve`) and pull the model for better "
                     "replies; Hearth works offline with its embedded model without it.")
    return Check("ollama", True, status.detail)


def run_checks(paths: HearthPaths, settings: Settings) -> list[Check]:
    checks: list[tuple[str, Callable[[], Check | list[Check]]]] = [
        ("embedding model", lambda: check_model(settings)),
        ("database", lambda: check_database(paths, settings)),
        ("ollama", lambda: check_ollama(settings)),
    ]
    results: list[Check] = []
    for name, check in checks:
        try:
            found = check()
            results.extend(found if isinstance(found, list) else [found])
        except HearthError as exc:
            results.append(Check(name, False, exc.message, exc.hint))
        except Exception as exc:  # a doctor reports every failure instead of stopping
            log.exception("the %s check failed unexpectedly", name)
            results.append(Check(name, False, f"{type(exc).__name__}: {exc}",
                                 "Reinstall with `make setup`; if it persists, report it."))
    return results
