"""Migration 0017 (agents' named tokens) on both backends: the agents, their held writes
and the audit log written before it come through untouched, and up, down and up again
keeps them (``agent_tokens``, new in 0017, goes and comes back empty)."""

from __future__ import annotations

from sqlalchemy import select, text

from core.storage import migrate, orm
from support.migration_steps import downgrade, tables


def test_agents_writes_and_audit_survive_up_down_up(storage) -> None:
    downgrade(storage, "0016")
    assert "agent_tokens" not in tables(storage)
    with storage.write() as session:  # the agents table as it was then (no scope yet)
        session.execute(text(
            "INSERT INTO agents (name, access, trusted, first_seen_at, last_seen_at) "
            "VALUES ('editor', 'write', :yes, '2026-11-01 10:00:00', '2026-11-01 10:00:00')"),
            {"yes": True})
        agent_id = session.scalars(select(orm.Agent.id)).one()
        session.add(orm.AgentWrite(agent_id=agent_id, action="record_observation",
                                   arguments={"content": "likes tea"},
                                   preview="Note: likes tea"))
        session.add(orm.AuditEntry(action="agent.grant", actor="user",
                                   arguments={"agent": "editor", "access": "write"},
                                   result_summary="none -> write"))

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        assert "agent_tokens" in tables(storage)
        with storage.read() as session:
            assert [(a.name, a.access, a.trusted) for a in session.scalars(
                select(orm.Agent))] == [("editor", "write", True)]
            assert [w.preview for w in session.scalars(select(orm.AgentWrite))] == [
                "Note: likes tea"]
            assert [a.action for a in session.scalars(select(orm.AuditEntry))] == [
                "agent.grant"]
            assert list(session.scalars(select(orm.AgentToken))) == []
            agent_id = session.scalars(select(orm.Agent.id)).one()
        with storage.write() as session:
            session.add(orm.AgentToken(agent_id=agent_id, token_sha256="ab" * 32))
        if round_trip == 0:
            downgrade(storage, "0016")
            assert "agent_tokens" not in tables(storage)
