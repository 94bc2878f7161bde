"""agents: the local programs using Hearth's memory over MCP, and the writes they asked for

Revision ID: 0015
Revises: 0014_link_watermark
Create Date: 2026-11-25

``agents`` holds one row per MCP client the user has seen (its name from the client's
``initialize``), with the user's grant (none, read, write) and whether its writes are
trusted. ``agent_writes`` holds what an agent asked to write (a fact, an observation, a
forget), held for the user's review unless the agent is trusted (``core.agents``). Both
are new, so existing rows are untouched; downgrading drops them and their rows.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0015"
down_revision: str | None = "0014_link_watermark"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "agents",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("access", sa.String(length=8), nullable=False),
        sa.Column("trusted", sa.Boolean(), nullable=False),
        sa.Column("first_seen_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.Column("last_seen_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.CheckConstraint("access IN ('none', 'read', 'write')", name=op.f("ck_agents_access")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agents")),
        sa.UniqueConstraint("name", name=op.f("uq_agents_name")),
    )
    op.create_table(
        "agent_writes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("agent_id", sa.Integer(), nullable=False),
        sa.Column("action", sa.String(length=32), nullable=False),
        sa.Column("arguments", sa.JSON(), nullable=False),
        sa.Column("preview", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.Column("decided_at", core.storage.orm.UTCDateTime(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.CheckConstraint("status IN ('held', 'accepted', 'rejected')",
                           name=op.f("ck_agent_writes_status")),
        sa.ForeignKeyConstraint(["agent_id"], ["agents.id"],
                                name=op.f("fk_agent_writes_agent_id_agents"), ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agent_writes")),
    )
    with op.batch_alter_table("agent_writes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_agent_writes_agent_id"), ["agent_id"], unique=False)
        batch_op.create_index("ix_agent_writes_status_created", ["status", "created_at"],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table("agent_writes", schema=None) as batch_op:
        batch_op.drop_index("ix_agent_writes_status_created")
        batch_op.drop_index(batch_op.f("ix_agent_writes_agent_id"))
    op.drop_table("agent_writes")
    op.drop_table("agents")
