"""agent_tokens: a bearer token per agent for MCP over HTTP, kept only as a hash

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-25

``agent_tokens`` holds the tokens the user made with ``hearth mcp token add NAME``: the
agent each one names (whoever presents it is that agent over HTTP), a SHA-256 of the token
(never the token), when it was made, last used and revoked. The table is new, so existing
rows are untouched; downgrading drops it and its rows (clients holding a named token are
then refused; the data folder's own token still works).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agent_tokens",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("created_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.Column("last_used_at", core.storage.orm.UTCDateTime(), nullable=True),
        sa.Column("revoked_at", core.storage.orm.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"],
                                name=op.f("fk_agent_tokens_agent_id_agents"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_tokens")),
        sa.UniqueConstraint("token_sha256", name=op.f("uq_agent_tokens_token_sha256")),
    )
    with op.batch_alter_table("agent_tokens", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_tokens_agent_id"), ["agent_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("agent_tokens", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_agent_tokens_agent_id"))
    op.drop_table("agent_tokens")
