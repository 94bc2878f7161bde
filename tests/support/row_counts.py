"""Every table's row count through the storage port (either backend), for tests that
check an operation wrote all of what it should, or nothing at all."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from core.storage.orm import Base


def row_counts(storage: Any) -> dict[str, int]:
    """Rows per table, every table of the schema, in dependency order."""
    with storage.read() as session:
        return {table.name: session.scalar(select(func.count()).select_from(table))
                for table in Base.metadata.sorted_tables}
