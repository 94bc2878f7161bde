"""daily tools: tasks, reminders, scheduled prompts, alert rules, journal entries, read-later
items and pending actions; notes can be pinned and edited by hand

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25

The tables of ``core.daily``. Local days and wall-clock times are ISO text (see the models);
moments are UTC like everywhere else. No rows are seeded: the two alert rules have their
defaults in code (``core.daily.alerts.DEFAULT_RULES``) and get a row when first changed or
fired, so a fresh database stays empty (``hearth migrate`` and an import of an export
refuse a target that holds anything). Existing notes come through unpinned and unedited.
Downgrading drops the new tables (and their rows) and the two note columns.
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = '0013'
down_revision: str | None = '0012'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('alert_rules',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('enabled', sa.Boolean(), server_default='1', nullable=False),
    sa.Column('cooldown_minutes', sa.Integer(), nullable=False),
    sa.Column('last_fired_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.CheckConstraint("kind IN ('task_due_today', 'task_overdue')", name=op.f('ck_alert_rules_kind')),
    sa.CheckConstraint('cooldown_minutes > 0', name=op.f('ck_alert_rules_cooldown')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_alert_rules')),
    sa.UniqueConstraint('kind', name=op.f('uq_alert_rules_kind'))
    )
    op.create_table('journal_entries',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('title', sa.Text(), nullable=True),
    sa.Column('included_in_reflection_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_journal_entries'))
    )
    with op.batch_alter_table('journal_entries', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_journal_entries_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_journal_entries_included_in_reflection_at'), ['included_in_reflection_at'], unique=False)

    op.create_table('read_later',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('url', sa.Text(), nullable=False),
    sa.Column('title', sa.Text(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('summary', sa.Text(), nullable=True),
    sa.Column('tags', sa.JSON(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.CheckConstraint("status IN ('unread', 'read', 'archived')", name=op.f('ck_read_later_status')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_read_later'))
    )
    with op.batch_alter_table('read_later', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_read_later_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_read_later_status'), ['status'], unique=False)

    op.create_table('reminders',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('remind_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('zone', sa.String(length=64), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('sent_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('snooze_count', sa.Integer(), nullable=False),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.CheckConstraint("source IN ('user', 'assistant', 'rule')", name=op.f('ck_reminders_source')),
    sa.CheckConstraint("status IN ('pending', 'sent', 'cancelled')", name=op.f('ck_reminders_status')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_reminders'))
    )
    with op.batch_alter_table('reminders', schema=None) as batch_op:
        batch_op.create_index('ix_reminders_status_remind_at', ['status', 'remind_at'], unique=False)

    op.create_table('scheduled_prompts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('prompt', sa.Text(), nullable=False),
    sa.Column('cron', sa.String(length=120), nullable=False),
    sa.Column('zone', sa.String(length=64), nullable=False),
    sa.Column('enabled', sa.Boolean(), server_default='1', nullable=False),
    sa.Column('last_run_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_scheduled_prompts')),
    sa.UniqueConstraint('name', name=op.f('uq_scheduled_prompts_name'))
    )
    op.create_table('tasks',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.Text(), nullable=False),
    sa.Column('details', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=8), nullable=False),
    sa.Column('due_date', sa.String(length=10), nullable=True),
    sa.Column('due_time', sa.String(length=5), nullable=True),
    sa.Column('done_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('notified_kind', sa.String(length=32), nullable=True),
    sa.Column('notified_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('source', sa.String(length=16), nullable=False),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.CheckConstraint("source IN ('user', 'assistant', 'rule')", name=op.f('ck_tasks_source')),
    sa.CheckConstraint("status IN ('todo', 'done')", name=op.f('ck_tasks_status')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_tasks'))
    )
    with op.batch_alter_table('tasks', schema=None) as batch_op:
        batch_op.create_index('ix_tasks_status_due', ['status', 'due_date'], unique=False)

    op.create_table('pending_actions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('action', sa.String(length=64), nullable=False),
    sa.Column('arguments', sa.JSON(), nullable=False),
    sa.Column('preview', sa.Text(), nullable=False),
    sa.Column('source_message', sa.Text(), nullable=False),
    sa.Column('session_id', sa.String(length=64), nullable=True),
    sa.Column('interaction_id', sa.Integer(), nullable=True),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('expires_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('decided_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('result', sa.Text(), nullable=True),
    sa.CheckConstraint("status IN ('pending', 'confirmed', 'cancelled', 'expired')", name=op.f('ck_pending_actions_status')),
    sa.ForeignKeyConstraint(['interaction_id'], ['interactions.id'], name=op.f('fk_pending_actions_interaction_id_interactions'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['session_id'], ['chat_sessions.id'], name=op.f('fk_pending_actions_session_id_chat_sessions'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pending_actions'))
    )
    with op.batch_alter_table('pending_actions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pending_actions_session_id'), ['session_id'], unique=False)
        batch_op.create_index('ix_pending_actions_status_expires', ['status', 'expires_at'], unique=False)

    # plain ALTER TABLE, not a batch: recreating ``notes`` on SQLite would drop its
    # full-text and vector triggers
    op.add_column('notes', sa.Column('pinned', sa.Boolean(), server_default='0', nullable=False))
    op.add_column('notes', sa.Column('edited_at', core.storage.orm.UTCDateTime(), nullable=True))



def downgrade() -> None:
    op.drop_column('notes', 'edited_at')
    op.drop_column('notes', 'pinned')

    with op.batch_alter_table('pending_actions', schema=None) as batch_op:
        batch_op.drop_index('ix_pending_actions_status_expires')
        batch_op.drop_index(batch_op.f('ix_pending_actions_session_id'))

    op.drop_table('pending_actions')
    with op.batch_alter_table('tasks', schema=None) as batch_op:
        batch_op.drop_index('ix_tasks_status_due')

    op.drop_table('tasks')
    op.drop_table('scheduled_prompts')
    with op.batch_alter_table('reminders', schema=None) as batch_op:
        batch_op.drop_index('ix_reminders_status_remind_at')

    op.drop_table('reminders')
    with op.batch_alter_table('read_later', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_read_later_status'))
        batch_op.drop_index(batch_op.f('ix_read_later_created_at'))

    op.drop_table('read_later')
    with op.batch_alter_table('journal_entries', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_journal_entries_included_in_reflection_at'))
        batch_op.drop_index(batch_op.f('ix_journal_entries_created_at'))

    op.drop_table('journal_entries')
    op.drop_table('alert_rules')
