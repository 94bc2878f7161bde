"""memory freshness: exp(-age / tau), recomputed by the decay stage

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22

Existing memories start fresh (1.0) until the first decay run computes their value.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ALTER TABLE (no batch copy): keeps the memories' FTS and vector triggers
    op.add_column("memories", sa.Column("freshness", sa.Float(), nullable=False,
                                        server_default="1.0"))


def downgrade() -> None:
    op.drop_column("memories", "freshness")
