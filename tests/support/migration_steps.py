"""Moving a test's database down and listing its tables: the up/down/up migration tests
(``tests/core/storage/test_migration_*.py``) on either backend."""

from __future__ import annotations

from typing import Any

from alembic import command
from sqlalchemy import inspect

from core.storage import migrate

CHANGE_LOG_REVISION = "0021"
"""The migration that made ``change_log``."""


def downgrade(storage: Any, revision: str) -> None:
    """Run the migrations down to ``revision`` on the storage's own writer. Below the
    change log's revision the storage's writes stop appending to it, which is gone."""
    config = migrate.alembic_config()
    with storage.write_engine().begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
    if revision < CHANGE_LOG_REVISION:
        storage.changes._log = False


def tables(storage: Any) -> set[str]:
    """The names of the tables the database has now."""
    with storage.read() as session:
        return set(inspect(session.connection()).get_table_names())
