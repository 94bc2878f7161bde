"""base schema: every memory tier

Revision ID: 0001
Revises:
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import core.storage.orm

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('agent_learnings',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('rule', sa.String(length=400), nullable=False),
    sa.Column('category', sa.String(length=32), nullable=False),
    sa.Column('recurrence_count', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('first_seen', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('last_seen', core.storage.orm.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_agent_learnings')),
    sa.UniqueConstraint('rule', name=op.f('uq_agent_learnings_rule'))
    )
    op.create_table('audit_log',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('timestamp', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('action', sa.String(length=64), nullable=False),
    sa.Column('actor', sa.String(length=32), nullable=False),
    sa.Column('arguments', sa.JSON(), nullable=False),
    sa.Column('result_summary', sa.Text(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_log'))
    )
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_log_timestamp'), ['timestamp'], unique=False)

    op.create_table('chat_sessions',
    sa.Column('id', sa.String(length=64), nullable=False),
    sa.Column('title', sa.Text(), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('conversation_id', sa.String(length=128), nullable=True),
    sa.Column('started_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('last_message_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('closed_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_chat_sessions'))
    )
    op.create_table('context_events',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('event_type', sa.String(length=50), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('source_metadata', sa.JSON(), nullable=False),
    sa.Column('processed', sa.Boolean(), nullable=False),
    sa.Column('attempts', sa.Integer(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('processed_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_context_events'))
    )
    with op.batch_alter_table('context_events', schema=None) as batch_op:
        batch_op.create_index('ix_context_events_pending', ['processed', 'created_at'], unique=False)

    op.create_table('pending_intentions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('context', sa.Text(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('follow_up_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('last_followed_up_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_pending_intentions'))
    )
    with op.batch_alter_table('pending_intentions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_pending_intentions_follow_up_at'), ['follow_up_at'], unique=False)

    op.create_table('runs',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('trigger', sa.String(length=32), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('stages', sa.JSON(), nullable=False),
    sa.Column('counts', sa.JSON(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('started_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('finished_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_runs'))
    )
    op.create_table('user_facts',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('key', sa.String(length=200), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.Column('category', sa.String(length=32), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('embedding_model', sa.String(length=128), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_user_facts')),
    sa.UniqueConstraint('key', name=op.f('uq_user_facts_key'))
    )
    with op.batch_alter_table('user_facts', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_user_facts_category'), ['category'], unique=False)

    op.create_table('fact_history',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('fact_id', sa.Integer(), nullable=False),
    sa.Column('value', sa.Text(), nullable=False),
    sa.Column('category', sa.String(length=32), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('confidence', sa.Float(), nullable=False),
    sa.Column('valid_from', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('replaced_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['fact_id'], ['user_facts.id'], name=op.f('fk_fact_history_fact_id_user_facts'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_fact_history'))
    )
    with op.batch_alter_table('fact_history', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_fact_history_fact_id'), ['fact_id'], unique=False)

    op.create_table('interactions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('session_id', sa.String(length=64), nullable=True),
    sa.Column('user_message', sa.Text(), nullable=False),
    sa.Column('agent_response', sa.Text(), nullable=False),
    sa.Column('speaker', sa.String(length=128), nullable=True),
    sa.Column('channel', sa.String(length=32), nullable=False),
    sa.Column('tools_used', sa.JSON(), nullable=False),
    sa.Column('provider', sa.String(length=64), nullable=True),
    sa.Column('model', sa.String(length=128), nullable=True),
    sa.Column('latency_ms', sa.Float(), nullable=True),
    sa.Column('external_id', sa.String(length=256), nullable=True),
    sa.Column('embedding_model', sa.String(length=128), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['chat_sessions.id'], name=op.f('fk_interactions_session_id_chat_sessions'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_interactions')),
    sa.UniqueConstraint('external_id', name=op.f('uq_interactions_external_id'))
    )
    with op.batch_alter_table('interactions', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_interactions_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_interactions_session_id'), ['session_id'], unique=False)

    op.create_table('notes',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('title', sa.Text(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('session_id', sa.String(length=64), nullable=True),
    sa.Column('embedding_model', sa.String(length=128), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['session_id'], ['chat_sessions.id'], name=op.f('fk_notes_session_id_chat_sessions'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notes'))
    )
    with op.batch_alter_table('notes', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_notes_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_notes_session_id'), ['session_id'], unique=False)

    op.create_table('profile_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_profile_versions_run_id_runs'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_profile_versions'))
    )
    op.create_table('scaffold_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('data', sa.JSON(), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_scaffold_versions_run_id_runs'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_scaffold_versions'))
    )
    op.create_table('working_memory_versions',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('run_id', sa.Integer(), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['runs.id'], name=op.f('fk_working_memory_versions_run_id_runs'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_working_memory_versions'))
    )
    op.create_table('memories',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('content', sa.Text(), nullable=False),
    sa.Column('memory_type', sa.String(length=16), nullable=False),
    sa.Column('namespace', sa.String(length=256), nullable=False),
    sa.Column('priority', sa.String(length=16), nullable=False),
    sa.Column('source', sa.String(length=32), nullable=False),
    sa.Column('tier', sa.String(length=16), nullable=False),
    sa.Column('category', sa.String(length=32), nullable=False),
    sa.Column('tags', sa.JSON(), nullable=False),
    sa.Column('entities', sa.JSON(), nullable=False),
    sa.Column('importance', sa.Float(), nullable=False),
    sa.Column('strength', sa.Float(), nullable=False),
    sa.Column('access_count', sa.Integer(), nullable=False),
    sa.Column('last_accessed_at', core.storage.orm.UTCDateTime(), nullable=True),
    sa.Column('search_hit_count', sa.Integer(), nullable=False),
    sa.Column('is_valid', sa.Boolean(), nullable=False),
    sa.Column('invalid_reason', sa.Text(), nullable=True),
    sa.Column('superseded_by', sa.Integer(), nullable=True),
    sa.Column('session_id', sa.String(length=64), nullable=True),
    sa.Column('interaction_id', sa.Integer(), nullable=True),
    sa.Column('event_id', sa.Integer(), nullable=True),
    sa.Column('external_id', sa.String(length=256), nullable=True),
    sa.Column('embedding_model', sa.String(length=128), nullable=True),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.Column('updated_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['event_id'], ['context_events.id'], name=op.f('fk_memories_event_id_context_events'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['interaction_id'], ['interactions.id'], name=op.f('fk_memories_interaction_id_interactions'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['session_id'], ['chat_sessions.id'], name=op.f('fk_memories_session_id_chat_sessions'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['superseded_by'], ['memories.id'], name=op.f('fk_memories_superseded_by_memories'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_memories')),
    sa.UniqueConstraint('external_id', name=op.f('uq_memories_external_id'))
    )
    with op.batch_alter_table('memories', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_memories_category'), ['category'], unique=False)
        batch_op.create_index(batch_op.f('ix_memories_created_at'), ['created_at'], unique=False)
        batch_op.create_index(batch_op.f('ix_memories_is_valid'), ['is_valid'], unique=False)
        batch_op.create_index(batch_op.f('ix_memories_namespace'), ['namespace'], unique=False)
        batch_op.create_index(batch_op.f('ix_memories_session_id'), ['session_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_memories_tier'), ['tier'], unique=False)

    op.create_table('memory_edges',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('from_id', sa.Integer(), nullable=False),
    sa.Column('to_id', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('weight', sa.Float(), nullable=False),
    sa.Column('created_at', core.storage.orm.UTCDateTime(), nullable=False),
    sa.ForeignKeyConstraint(['from_id'], ['memories.id'], name=op.f('fk_memory_edges_from_id_memories'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['to_id'], ['memories.id'], name=op.f('fk_memory_edges_to_id_memories'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_memory_edges')),
    sa.UniqueConstraint('from_id', 'to_id', 'kind', name='uq_memory_edges_pair')
    )
    with op.batch_alter_table('memory_edges', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_memory_edges_from_id'), ['from_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_memory_edges_to_id'), ['to_id'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('memory_edges', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_memory_edges_to_id'))
        batch_op.drop_index(batch_op.f('ix_memory_edges_from_id'))

    op.drop_table('memory_edges')
    with op.batch_alter_table('memories', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_memories_tier'))
        batch_op.drop_index(batch_op.f('ix_memories_session_id'))
        batch_op.drop_index(batch_op.f('ix_memories_namespace'))
        batch_op.drop_index(batch_op.f('ix_memories_is_valid'))
        batch_op.drop_index(batch_op.f('ix_memories_created_at'))
        batch_op.drop_index(batch_op.f('ix_memories_category'))

    op.drop_table('memories')
    op.drop_table('working_memory_versions')
    op.drop_table('scaffold_versions')
    op.drop_table('profile_versions')
    with op.batch_alter_table('notes', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_notes_session_id'))
        batch_op.drop_index(batch_op.f('ix_notes_created_at'))

    op.drop_table('notes')
    with op.batch_alter_table('interactions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_interactions_session_id'))
        batch_op.drop_index(batch_op.f('ix_interactions_created_at'))

    op.drop_table('interactions')
    with op.batch_alter_table('fact_history', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_fact_history_fact_id'))

    op.drop_table('fact_history')
    with op.batch_alter_table('user_facts', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_user_facts_category'))

    op.drop_table('user_facts')
    op.drop_table('runs')
    with op.batch_alter_table('pending_intentions', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_pending_intentions_follow_up_at'))

    op.drop_table('pending_intentions')
    with op.batch_alter_table('context_events', schema=None) as batch_op:
        batch_op.drop_index('ix_context_events_pending')

    op.drop_table('context_events')
    op.drop_table('chat_sessions')
    with op.batch_alter_table('audit_log', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_audit_log_timestamp'))

    op.drop_table('audit_log')
    op.drop_table('agent_learnings')
