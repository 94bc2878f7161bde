"""Migration 0015 (agents over MCP) on both backends: facts and the audit log written before
it come through untouched, and up, down and up again keeps them (the two agent tables, new
in 0015, go and come back empty)."""

from __future__ import annotations

from sqlalchemy import select

from core.storage import migrate, orm
from support.migration_steps import downgrade, tables

AGENT_TABLES = {"agents", "agent_writes"}


def test_facts_and_audit_survive_up_down_up(storage) -> None:
    downgrade(storage, "0014_link_watermark")
    assert not AGENT_TABLES & tables(storage)
    with storage.write() as session:
        session.add(orm.UserFact(key="home_city", value="Porto", category="location"))
        session.add(orm.AuditEntry(action="tool.recall_facts", actor="assistant",
                                   arguments={"query": "city"}, result_summary="1 facts"))

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        assert AGENT_TABLES <= tables(storage)
        with storage.read() as session:
            assert [(f.key, f.value) for f in session.scalars(select(orm.UserFact))] == [
                ("home_city", "Porto")]
            assert [a.action for a in session.scalars(select(orm.AuditEntry))] == [
                "tool.recall_facts"]
            assert list(session.scalars(select(orm.Agent))) == []
        with storage.write() as session:
            agent = orm.Agent(name="editor", access="read")
            session.add(agent)
            session.flush()
            session.add(orm.AgentWrite(agent_id=agent.id, action="record_observation",
                                       arguments={"content": "likes tea"},
                                       preview="Note: likes tea"))
        if round_trip == 0:
            downgrade(storage, "0014_link_watermark")
            assert not AGENT_TABLES & tables(storage)
