"""An expression index on origin.import_batch: what one import run added, found at once

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-25

The Memories view filters by import run, ``hearth imports`` counts each run's memories and
``hearth imports undo`` lists them; all three compare ``origin.import_batch``, a key inside
a JSON document, which without an index reads every memory's ``origin`` (a full scan: at a
million memories, seconds per page). The index holds that key, spelled as
``core.storage.sql.import_batch_of`` reads it, then ``created_at`` and ``id`` (the list's
order, so one run's newest page is read in order rather than sorted), only for the
memories that have one (a partial index: conversations' and dreams' memories take no room
in it). Nothing is rewritten; downgrading drops the index.
"""

from collections.abc import Sequence

from alembic import op

from core.storage.sql import IMPORT_BATCH_INDEX, import_batch_index_ddl

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(import_batch_index_ddl(op.get_bind().dialect.name))


def downgrade() -> None:
    op.execute(f"DROP INDEX {IMPORT_BATCH_INDEX}")
