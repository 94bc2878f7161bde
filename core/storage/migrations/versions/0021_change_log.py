"""change log: what each write transaction changed, for the processes that did not write

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-01

``change_log`` (``id``, ``origin``, ``domains``): a row per write transaction that changed
something a view shows, appended in that transaction by the writer's change feed
(``core.storage.change_log``): the domains it touched ("facts,chats") and a random token
naming the writing process's feed. An open window watches it (``core.storage.change_watch``)
to reload what another process or device changed. It holds no user data. Not a model: it
is not exported or copied by ``hearth migrate``; downgrading drops it.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "change_log",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True),
        sa.Column("origin", sa.String(length=32), nullable=False),
        sa.Column("domains", sa.String(length=255), nullable=False))


def downgrade() -> None:
    op.drop_table("change_log")
