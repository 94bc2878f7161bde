"""context logs (what each reply was given) and compaction state of a conversation

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "context_logs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("interaction_id", sa.Integer(), nullable=False),
        sa.Column("session_id", sa.String(length=64), nullable=True),
        sa.Column("system_prompt_sha256", sa.String(length=64), nullable=False),
        sa.Column("items", sa.JSON(), nullable=False),
        sa.Column("tokens", sa.JSON(), nullable=False),
        sa.Column("created_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["interaction_id"], ["interactions.id"],
                                name=op.f("fk_context_logs_interaction_id_interactions"),
                                ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["session_id"], ["chat_sessions.id"],
                                name=op.f("fk_context_logs_session_id_chat_sessions"),
                                ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_context_logs")),
        sa.UniqueConstraint("interaction_id", name=op.f("uq_context_logs_interaction_id")),
    )
    op.create_index(op.f("ix_context_logs_session_id"), "context_logs", ["session_id"])
    # plain ALTER TABLE (no batch copy): keeps the other tables' triggers intact
    op.add_column("chat_sessions", sa.Column("compaction_summary", sa.Text(), nullable=True))
    op.add_column("chat_sessions", sa.Column("compacted_through", sa.Integer(), nullable=True))


def downgrade() -> None:
    op.drop_column("chat_sessions", "compacted_through")
    op.drop_column("chat_sessions", "compaction_summary")
    op.drop_index(op.f("ix_context_logs_session_id"), table_name="context_logs")
    op.drop_table("context_logs")
