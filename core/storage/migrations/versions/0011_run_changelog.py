"""run changelog: what each dream and reflection changed, in plain words, and when the
user saw it

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24

``runs.changes`` is the run's changelog (``core.consolidation.changelog``): one entry per
change with the ids needed to undo it. ``runs.reviewed_at`` is set once the window has
shown it ("While you were away"). Earlier runs keep an empty changelog.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("runs", sa.Column("changes", sa.JSON(), nullable=False,
                                    server_default="[]"))
    op.add_column("runs", sa.Column("reviewed_at", core.storage.orm.UTCDateTime(),
                                    nullable=True))


def downgrade() -> None:
    op.drop_column("runs", "reviewed_at")
    op.drop_column("runs", "changes")
