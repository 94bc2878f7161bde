"""agent scope: an agent limited to searching, categories kept from it, and its request

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-30

A grant said only how much an agent may do (none, read, write). ``scope`` narrows reading
to searching memories and notes ("search"; "all" as before), ``hidden_categories`` lists
the fact categories whose facts and memories the agent never sees (none as before). An
agent that calls a tool before the user has given it access asks for it: ``asked_at`` notes
when, and ``answered_at`` when the user last set its grant, so the window can ask the user
once per new agent. Agents recorded before this revision were already listed for the user
to grant: they count as answered (at their last sighting) and ask nothing. Downgrading drops
the four columns.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Plain ADD COLUMN, not a batch copy of the table: on SQLite a batch drops and recreates
    # ``agents``, and the cascade would take every agent's held writes and tokens with it.
    op.add_column("agents", sa.Column("scope", sa.String(length=8), nullable=False,
                                      server_default="all"))
    op.add_column("agents", sa.Column("hidden_categories", sa.JSON(), nullable=False,
                                      server_default="[]"))
    op.add_column("agents", sa.Column("asked_at", core.storage.orm.UTCDateTime(),
                                      nullable=True))
    op.add_column("agents", sa.Column("answered_at", core.storage.orm.UTCDateTime(),
                                      nullable=True))
    op.execute("UPDATE agents SET answered_at = last_seen_at")


def downgrade() -> None:
    for column in ("answered_at", "asked_at", "hidden_categories", "scope"):
        op.drop_column("agents", column)
