"""What ``hearth doctor`` checks of a PostgreSQL database: the connection (and the schema
revision it is at), the server's version, the pgvector extension recall relies on, and a
``pg_dump`` as new as the server (every backup, and so every dream, needs one), each asked
on its own so one that fails does not hide the others. Checks are values, never raised: a
server that is down is a failed line with what to do."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import Engine

from core.errors import HearthError
from core.storage import migrate
from core.storage.port import HealthCheck
from core.storage.postgres import backup
from core.storage.postgres.engine import person_error, translated_errors

log = logging.getLogger(__name__)

MIN_SERVER_MAJOR = 13
"""``DROP DATABASE ... WITH (FORCE)`` and the other statements Hearth uses need 13."""
WITHOUT_A_DUMP = ("Until then `hearth backup` fails and every dream stops before it "
                  "starts; set dream_without_backup to true to let the dream go on without "
                  "a backup (docs/settings.md).")
"""What a missing or old ``pg_dump`` costs, and the way on meanwhile."""


def health_checks(engine: Engine, where: str, url: str) -> list[HealthCheck]:
    """The connection, the server, pgvector and ``pg_dump``, each reported as ok or with
    what to do."""
    checks: list[tuple[str, Callable[[], HealthCheck]]] = [
        ("database", lambda: _connection(engine, where)),
        ("PostgreSQL", lambda: _server(engine)),
        ("pgvector", lambda: _pgvector(engine, where)),
        ("pg_dump", lambda: client_tools(url)),
    ]
    results = []
    for name, check in checks:
        try:
            with translated_errors(where):
                results.append(check())
        except HearthError as exc:
            results.append(HealthCheck(name, False, exc.message, exc.hint))
        except Exception as exc:  # a doctor reports every failure instead of stopping
            known = person_error(exc, where)
            if known is not None:
                results.append(HealthCheck(name, False, known.message, known.hint))
                continue
            log.exception("the %s check failed unexpectedly", name)
            results.append(HealthCheck(name, False, f"{type(exc).__name__}: {exc}",
                                       "Check the server's log; if it persists, report it."))
    return results


def _connection(engine: Engine, where: str) -> HealthCheck:
    revision = migrate.current_revision(engine)
    return HealthCheck("database", True, f"{where} (PostgreSQL, schema {revision}, connected)")


def _server(engine: Engine) -> HealthCheck:
    with engine.connect() as connection:
        number = int(connection.exec_driver_sql("SHOW server_version_num").scalar_one())
        version = connection.exec_driver_sql("SHOW server_version").scalar_one()
    if number // 10000 < MIN_SERVER_MAJOR:
        return HealthCheck("PostgreSQL", False, f"version {version}",
                           f"Upgrade the server to PostgreSQL {MIN_SERVER_MAJOR} or newer.")
    return HealthCheck("PostgreSQL", True, f"version {version}")


def _pgvector(engine: Engine, where: str) -> HealthCheck:
    with engine.connect() as connection:
        version = connection.exec_driver_sql(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'").scalar()
    if version is None:
        return HealthCheck("pgvector", False, f"not enabled in {where}",
                           "As a superuser, run CREATE EXTENSION vector; in that database.")
    return HealthCheck("pgvector", True, f"{version}")


def client_tools(url: str) -> HealthCheck:
    """Whether a ``pg_dump`` as new as the server is at hand (``backup.usable_tool``):
    the one found and its version, or which ones are too old and what to install."""
    try:
        tool = backup.usable_tool("pg_dump", url)
    except backup.ClientToolsError as exc:
        return HealthCheck("pg_dump", False, exc.message, f"{exc.hint} {WITHOUT_A_DUMP}")
    return HealthCheck("pg_dump", True, f"{tool.version} ({tool.path}), as new as the server")
