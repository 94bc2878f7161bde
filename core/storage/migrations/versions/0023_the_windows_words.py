"""the window's words: four tables, and the names stored inside records, renamed

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-29

Each concept now has one name from table to screen, the one the window shows:
``agent_learnings`` → ``habits`` (Habits I keep), ``pending_intentions`` → ``follow_ups``
(Follow-ups), ``profile_versions`` → ``about_you_versions`` (About you) and
``scaffold_versions`` → ``notes_about_you_versions`` (Notes about you). Each table is made
anew under its name (so its key, unique and index names follow it on both backends) and its
rows are copied with their ids; PostgreSQL's id sequence is set past the largest.

The same words stored inside records follow: audit actions (``learning.promote`` →
``habit.promote``, ``intention.resolve`` → ``follow_up.resolve``, ``profile.save``,
``scaffold.save``), the counts and stages a run kept (``learnings_before`` →
``habits_before``, ``intentions_added`` → ``follow_ups_added``, the dream's ``daily`` stage
→ ``summaries``), a run's changelog (an ``intentions`` list, the ``profile`` kind) and what
each reply's context log names (``learning``, ``profile``, ``scaffold`` items). Downgrading
puts every name back.
"""

from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

import core.storage.orm
from core.storage import former_names as former
from core.storage.former_names import TABLES, Change

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PAGE = 500


def _columns(table: str) -> list[Any]:
    """The columns and constraints of ``table`` (by its new name) as revision 0001 made them
    under the old one."""
    run_key = [sa.Column("run_id", sa.Integer(), nullable=True),
               sa.Column("created_at", core.storage.orm.UTCDateTime(), nullable=False),
               sa.ForeignKeyConstraint(["run_id"], ["runs.id"], ondelete="SET NULL",
                                       name=f"fk_{table}_run_id_runs")]
    return {
        "habits": [
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("rule", sa.String(length=400), nullable=False),
            sa.Column("category", sa.String(length=32), nullable=False),
            sa.Column("recurrence_count", sa.Integer(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("first_seen", core.storage.orm.UTCDateTime(), nullable=False),
            sa.Column("last_seen", core.storage.orm.UTCDateTime(), nullable=False),
            sa.UniqueConstraint("rule", name=f"uq_{table}_rule")],
        "follow_ups": [
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("context", sa.Text(), nullable=False),
            sa.Column("status", sa.String(length=16), nullable=False),
            sa.Column("follow_up_at", core.storage.orm.UTCDateTime(), nullable=True),
            sa.Column("last_followed_up_at", core.storage.orm.UTCDateTime(), nullable=True),
            sa.Column("created_at", core.storage.orm.UTCDateTime(), nullable=False),
            sa.Column("updated_at", core.storage.orm.UTCDateTime(), nullable=False)],
        "about_you_versions": [
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("content", sa.Text(), nullable=False),
            sa.Column("source", sa.String(length=32), nullable=False), *run_key],
        "notes_about_you_versions": [
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("data", sa.JSON(), nullable=False),
            sa.Column("source", sa.String(length=32), nullable=False), *run_key],
    }[_canonical(table)]


def _canonical(table: str) -> str:
    return TABLES.get(table, table)


def _move(old: str, new: str) -> None:
    """Make ``new`` with ``old``'s columns, copy every row (ids kept), drop ``old``."""
    columns = _columns(new)
    op.create_table(new, *columns, sa.PrimaryKeyConstraint("id", name=f"pk_{new}"))
    if "follow_up_at" in {getattr(column, "name", None) for column in columns}:
        op.create_index(f"ix_{new}_follow_up_at", new, ["follow_up_at"], unique=False)
    names = ", ".join(column.name for column in columns if isinstance(column, sa.Column))
    op.execute(f"INSERT INTO {new} ({names}) SELECT {names} FROM {old}")
    op.drop_table(old)
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"SELECT setval(pg_get_serial_sequence('{new}', 'id'), "
                   f"COALESCE((SELECT MAX(id) FROM {new}), 0) + 1, false)")


def _rewrite(table: str, column: str, change: Change) -> None:
    """Apply ``change`` to every row's JSON ``column``, writing back only what it changed."""
    bind = op.get_bind()
    rows = sa.table(table, sa.column("id", sa.Integer()), sa.column(column, sa.JSON()))
    last = 0
    while True:
        page = bind.execute(sa.select(rows.c.id, rows.c[column]).where(rows.c.id > last)
                            .order_by(rows.c.id).limit(PAGE)).all()
        if not page:
            return
        for row_id, value in page:
            changed = change(value)
            if changed != value:
                bind.execute(rows.update().where(rows.c.id == row_id)
                             .values({column: changed}))
        last = page[-1][0]


def _audit(prefixes: Mapping[str, str]) -> None:
    for old, new in prefixes.items():
        op.execute(sa.text("UPDATE audit_log SET action = CAST(:new AS VARCHAR(64)) "
                           "|| substr(action, :cut) WHERE action LIKE :pattern")
                   .bindparams(new=new, cut=len(old) + 1, pattern=f"{old}%"))


def upgrade() -> None:
    for old, new in TABLES.items():
        _move(old, new)
    _audit(former.AUDIT_PREFIXES)
    for table, columns in former.COLUMNS.items():
        for column, change in columns.items():
            if table != "audit_log":  # one UPDATE above, not row by row
                _rewrite(table, column, change)


def downgrade() -> None:
    names, stages = former.inverse(former.RUN_KEYS), former.inverse(former.STAGES)
    _rewrite("context_logs", "items", former.context_items(former.inverse(former.CONTEXT_KINDS)))
    _rewrite("runs", "changes", former.changelog(names, former.inverse(former.CHANGE_KINDS)))
    _rewrite("runs", "counts", former.run_record(names, stages))
    _rewrite("runs", "stages", former.run_record(names, stages))
    _audit(former.inverse(former.AUDIT_PREFIXES))
    for old, new in TABLES.items():
        _move(new, old)
