"""Migration 0022 (an agent's scope, the categories kept from it, its request for access)
on both backends: agents recorded before it keep their grant, read everything they read
before, and count as answered (the window does not ask about them again); up, down and up
again keeps them, with their held writes (a copy of the table would cascade them away)."""

from __future__ import annotations

from sqlalchemy import inspect, select, text

from core.storage import migrate, orm
from support.migration_steps import downgrade


def agent_columns(storage) -> set[str]:
    with storage.read() as session:
        return {column["name"] for column in inspect(session.connection()).get_columns("agents")}


def test_agents_keep_their_grant_and_ask_nothing_after_the_upgrade(storage) -> None:
    downgrade(storage, "0021")
    assert "scope" not in agent_columns(storage)
    with storage.write() as session:
        session.execute(text(
            "INSERT INTO agents (name, access, trusted, first_seen_at, last_seen_at) VALUES "
            "('editor', 'write', :no, '2026-11-01 10:00:00', '2026-11-02 10:00:00'), "
            "('stranger', 'none', :no, '2026-11-03 10:00:00', '2026-11-03 10:00:00')"),
            {"no": False})
        editor = session.scalars(select(orm.Agent.id).where(orm.Agent.name == "editor")).one()
        session.add(orm.AgentWrite(agent_id=editor, action="record_observation",
                                   arguments={"content": "likes tea"}, preview="Note: likes tea"))

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        with storage.read() as session:
            rows = [(a.name, a.access, a.scope, a.hidden_categories, a.asked_at is None,
                     a.answered_at == a.last_seen_at)
                    for a in session.scalars(select(orm.Agent).order_by(orm.Agent.name))]
        assert rows == [("editor", "write", "all", [], True, True),
                        ("stranger", "none", "all", [], True, True)]
        with storage.read() as session:
            assert [w.preview for w in session.scalars(select(orm.AgentWrite))] == [
                "Note: likes tea"]
        if round_trip == 0:
            downgrade(storage, "0021")
            assert "scope" not in agent_columns(storage)
