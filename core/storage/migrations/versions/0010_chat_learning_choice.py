"""chat learning choice: a chat the user asked Hearth not to learn from, and incognito chats

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24

Every existing chat is learned from, as before, and none is incognito.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("chat_sessions", sa.Column("learn_from", sa.Boolean(), nullable=False,
                                             server_default="1"))
    op.add_column("chat_sessions", sa.Column("incognito", sa.Boolean(), nullable=False,
                                             server_default="0"))


def downgrade() -> None:
    op.drop_column("chat_sessions", "incognito")
    op.drop_column("chat_sessions", "learn_from")
