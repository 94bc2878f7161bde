"""Alembic environment: always run with a connection handed in by ``core.storage.migrate``.

The connection comes from Hearth's own engine, so sqlite-vec is loaded and the PRAGMAs are
set exactly as at run time. ``render_as_batch`` lets migrations alter SQLite tables.
"""

from alembic import context

from core.storage.orm import Base


def include_object(obj: object, name: str | None, type_: str, reflected: bool,
                   compare_to: object | None) -> bool:
    """Autogenerate compares only the ORM tables: FTS5 shadow tables, vector tables and
    their metadata are built by migrations' raw DDL or at run time, not by the models."""
    return not (type_ == "table" and reflected and compare_to is None)


connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=True,
    compare_type=True,
    include_object=include_object,
)
with context.begin_transaction():
    context.run_migrations()
