"""import run outcome: how an import run ended (finished, cancelled, interrupted, failed)

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-29

``import_runs.finished_at`` was set however a run ended, so an import stopped with Ctrl-C
or cancelled in the window was listed as done. ``outcome`` says how it ended: ``finished``,
``cancelled`` (the user stopped it), ``interrupted`` (Ctrl-C) or ``failed``; it stays null
while the run goes on, and for a run whose process was killed. Runs recorded before this
revision that have a ``finished_at`` are marked ``finished``, as they were listed (how they
really ended was not recorded); downgrading drops the column.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("import_runs", sa.Column("outcome", sa.String(length=16), nullable=True))
    op.execute("UPDATE import_runs SET outcome = 'finished' WHERE finished_at IS NOT NULL")


def downgrade() -> None:
    op.drop_column("import_runs", "outcome")
