"""learned_at (when Hearth stored a memory), and memories "decayed" by age come back

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23

Two clocks: ``created_at`` says when something happened, ``learned_at`` when Hearth stored
it; strength counts unused days from ``last_accessed_at``, else ``learned_at``. Existing rows
get ``learned_at = updated_at``: the time of their insert, or later, never earlier (an
imported two-year-old turn must not count as two years unused).

Age alone never takes a memory out of recall any more: rows that the old decay stage marked
``is_valid = false`` with ``invalid_reason = 'decayed'`` become valid again. They keep their
low strength (so they rank below what is in use) and the next dream's merge stage can fold
them into archival summaries; nothing else about them changes.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ALTER TABLE (no batch copy): keeps the memories' FTS and vector triggers
    op.add_column("memories", sa.Column("learned_at", core.storage.orm.UTCDateTime(),
                                        nullable=True))
    memories = sa.table("memories", sa.column("learned_at"), sa.column("updated_at"),
                        sa.column("is_valid", sa.Boolean()), sa.column("invalid_reason"))
    op.execute(memories.update().where(memories.c.learned_at.is_(None))
               .values(learned_at=memories.c.updated_at))
    op.execute(memories.update().where(memories.c.is_valid.is_(False),
                                       memories.c.invalid_reason == "decayed")
               .values(is_valid=True, invalid_reason=None))


def downgrade() -> None:
    op.drop_column("memories", "learned_at")
