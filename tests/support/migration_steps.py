"""Moving a test's database down and listing its tables: the up/down/up migration tests
(``tests/core/storage/test_migration_*.py``) on either backend."""

from __future__ import annotations

from typing import Any

from alembic import command
from sqlalchemy import inspect

from core.storage import migrate


def downgrade(storage: Any, revision: str) -> None:
    """Run the migrations down to ``revision`` on the storage's own writer. Every revision
    these tests go down to is older than the change log (0021), so the storage's writes
    stop appending to it from then on."""
    config = migrate.alembic_config()
    with storage.write_engine().begin() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
    storage.changes._log = False


def tables(storage: Any) -> set[str]:
    """The names of the tables the database has now."""
    with storage.read() as session:
        return set(inspect(session.connection()).get_table_names())
