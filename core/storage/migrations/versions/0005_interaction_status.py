"""interaction status: pending, completed, stopped or failed (with the error)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22

Existing exchanges are completed ones.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # plain ALTER TABLE (no batch copy): keeps the interactions' FTS and vector triggers
    op.add_column("interactions", sa.Column("status", sa.String(length=16), nullable=False,
                                            server_default="completed"))
    op.add_column("interactions", sa.Column("error", sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column("interactions", "error")
    op.drop_column("interactions", "status")
