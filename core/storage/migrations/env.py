"""Alembic environment: always run with a connection handed in by ``core.storage.migrate``.

The connection comes from Hearth's own engine, so sqlite-vec is loaded and the PRAGMAs are
set exactly as at run time. ``render_as_batch`` lets migrations alter SQLite tables.
"""

from alembic import context

from core.storage.orm import Base

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=Base.metadata,
    render_as_batch=True,
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
