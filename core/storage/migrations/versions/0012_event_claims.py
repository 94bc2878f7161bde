"""event claims: a batch of context events is claimed by one process before its model call

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24

Several Hearth processes, on one machine or on several devices sharing a PostgreSQL
database, may consolidate at once. ``claimed_by`` names the process that took an event
(``core.consolidation.claims``) and ``claimed_until`` is when its lease runs out: until
then the others skip the event, so no two processes spend a model call on the same batch;
after it (the claimer was killed) the event is taken up again. Existing events are
unclaimed.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("context_events", sa.Column("claimed_by", sa.String(200), nullable=True))
    op.add_column("context_events", sa.Column("claimed_until", core.storage.orm.UTCDateTime(),
                                              nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("context_events") as batch:
        batch.drop_column("claimed_until")
        batch.drop_column("claimed_by")
