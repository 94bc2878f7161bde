"""Alembic environment: always run with a connection handed in by ``core.storage.migrate``.

The connection comes from Hearth's own engine, so sqlite-vec is loaded and the PRAGMAs are
set exactly as at run time. ``render_as_batch`` lets autogenerate express SQLite table
changes, but a batch "copy and move" drops the table's FTS and vector triggers: prefer a
plain ``op.add_column`` where SQLite supports it (as revisions 0003 and 0004 do).
"""

from alembic import context

from core.storage.migrate import include_object
from core.storage.orm import Base

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
