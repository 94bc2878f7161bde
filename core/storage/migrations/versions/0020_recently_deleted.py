"""recently deleted entries: a fact, memory or note the user deleted, until its undo ends

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-29

Deleting one entry (a fact, a memory, a note) removes its rows at once, so nothing reads
them any more, but keeps them here for the undo window (``core.knowledge.recently_deleted``):
``rows`` is the entry's rows as they were, per table, ``title`` what the undo says, and
``purge_after`` when the entry goes for good. Downgrading drops the table, and with it the
entries that could still have been undone.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "deleted_entries",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("title", sa.Text(), nullable=False),
        sa.Column("rows", sa.JSON(), nullable=False),
        sa.Column("deleted_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.Column("purge_after", core.storage.orm.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_deleted_entries")),
    )
    op.create_index(op.f("ix_deleted_entries_purge_after"), "deleted_entries",
                    ["purge_after"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_deleted_entries_purge_after"), table_name="deleted_entries")
    op.drop_table("deleted_entries")
