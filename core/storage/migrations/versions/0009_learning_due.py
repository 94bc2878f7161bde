"""learning_due: an exchange the background learning has not finished with yet

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24

Quitting no longer waits for the learning queue: an exchange stays due until its learning
is done, and the next start picks it up. Existing exchanges were learned from (the old quit
finished the queue first), so they are not due.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ALTER TABLE (no batch copy): keeps the interactions' FTS and vector triggers
    op.add_column("interactions", sa.Column("learning_due", sa.Boolean(), nullable=False,
                                            server_default="0"))
    op.create_index("ix_interactions_learning_due", "interactions", ["learning_due"])


def downgrade() -> None:
    op.drop_index("ix_interactions_learning_due", "interactions")
    op.drop_column("interactions", "learning_due")
