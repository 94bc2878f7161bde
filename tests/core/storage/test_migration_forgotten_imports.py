"""Migration 0016 (forgotten imports, import runs) on both backends: memories, facts and
the audit log written before it come through untouched, and up, down and up again keeps
them (the two tables, new in 0016, go and come back empty)."""

from __future__ import annotations

from datetime import datetime, timezone

from sqlalchemy import select

from core.storage import migrate, orm
from support.migration_steps import downgrade, tables

NEW_TABLES = {"forgotten_imports", "import_runs"}
T0 = datetime(2025, 1, 2, 3, 4, 5, tzinfo=timezone.utc)


def test_memories_facts_and_audit_survive_up_down_up(storage) -> None:
    downgrade(storage, "0015")
    assert not NEW_TABLES & tables(storage)
    with storage.write() as session:
        session.add(orm.UserFact(key="home_city", value="Porto", category="location"))
        session.add(orm.AuditEntry(action="memory.delete", actor="user",
                                   arguments={"count": 1}, result_summary="deleted 1"))
        session.add(orm.Memory(content="User: I moved to Porto", source="import",
                               external_id="turn:chatgpt:c1:m1",
                               origin={"service": "chatgpt", "message_id": "m1"}))

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        assert NEW_TABLES <= tables(storage)
        with storage.read() as session:
            assert [(f.key, f.value) for f in session.scalars(select(orm.UserFact))] == [
                ("home_city", "Porto")]
            assert [a.action for a in session.scalars(select(orm.AuditEntry))] == [
                "memory.delete"]
            assert [(m.content, m.external_id, m.origin)
                    for m in session.scalars(select(orm.Memory))] == [
                ("User: I moved to Porto", "turn:chatgpt:c1:m1",
                 {"service": "chatgpt", "message_id": "m1"})]
            assert list(session.scalars(select(orm.ForgottenImport))) == []
            assert list(session.scalars(select(orm.ImportRun))) == []
        with storage.write() as session:
            session.add(orm.ForgottenImport(key_sha256="ab" * 32, forgotten_at=T0))
            session.add(orm.ImportRun(source="claude", started_at=T0, added=2))
        if round_trip == 0:
            downgrade(storage, "0015")
            assert not NEW_TABLES & tables(storage)
