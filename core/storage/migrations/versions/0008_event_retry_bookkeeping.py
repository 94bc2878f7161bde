"""event retry bookkeeping: which model failed an event last, and its one automatic retry

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23

Existing events have no recorded model and their automatic retry unused, so events an
Ollama outage poisoned before this version get one more try once the model answers.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("context_events", sa.Column("failed_with", sa.String(length=300),
                                              nullable=True))
    op.add_column("context_events", sa.Column("auto_retried", sa.Boolean(), nullable=False,
                                              server_default="0"))


def downgrade() -> None:
    op.drop_column("context_events", "auto_retried")
    op.drop_column("context_events", "failed_with")
