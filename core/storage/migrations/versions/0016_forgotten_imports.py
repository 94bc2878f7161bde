"""forgotten_imports and import_runs: a deleted imported item stays out; an import is a batch

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-25

``forgotten_imports`` holds a SHA-256 of the external id of each imported item the user
deleted (never its text), which every importer leaves out. ``import_runs`` holds one row
per ``hearth import`` run; the memories a run adds name it in ``origin.import_batch``.
Both are new, so existing rows are untouched; downgrading drops them and their rows (the
``import_batch`` keys in ``origin`` stay, unused).
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "forgotten_imports",
        sa.Column("key_sha256", sa.String(length=64), nullable=False),
        sa.Column("forgotten_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("key_sha256", name=op.f("pk_forgotten_imports")),
    )
    op.create_table(
        "import_runs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("source", sa.String(length=16), nullable=False),
        sa.Column("started_at", core.storage.orm.UTCDateTime(), nullable=False),
        sa.Column("finished_at", core.storage.orm.UTCDateTime(), nullable=True),
        sa.Column("added", sa.Integer(), nullable=False),
        sa.Column("undone_at", core.storage.orm.UTCDateTime(), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_import_runs")),
    )


def downgrade() -> None:
    op.drop_table("import_runs")
    op.drop_table("forgotten_imports")
