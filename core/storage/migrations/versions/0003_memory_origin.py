"""memory origin: where a memory came from, in its source's own terms

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22

Imported turns keep their conversation, session, turn id and speaker here, so recall can
cite the source turn even when several imported conversations reuse the same turn ids.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # a plain ALTER TABLE: a batch "copy and move" would drop the FTS and vector triggers
    op.add_column("memories", sa.Column("origin", sa.JSON(), nullable=True))


def downgrade() -> None:
    op.drop_column("memories", "origin")
