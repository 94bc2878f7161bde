"""Migration 0020 (recently deleted entries) on both backends: up adds the table an undo
reads, down drops it, and up again works; an entry written in between survives a reopen."""

from __future__ import annotations

from datetime import timedelta

from core.storage import migrate, orm
from support.migration_steps import downgrade, tables


def test_the_table_comes_and_goes_through_up_down_up(storage) -> None:
    assert "deleted_entries" in tables(storage)
    downgrade(storage, "0019")
    assert "deleted_entries" not in tables(storage)

    migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
    assert storage.schema_revision() == migrate.head_revision()
    now = orm.utcnow()
    with storage.write() as session:
        session.add(orm.DeletedEntry(kind="fact", title="home city: Porto",
                                     rows={"user_facts": [{"id": 1, "key": "home_city",
                                                           "value": "Porto"}]},
                                     deleted_at=now, purge_after=now + timedelta(minutes=30)))
    with storage.read() as session:
        (entry,) = session.query(orm.DeletedEntry).all()
        assert entry.rows["user_facts"][0]["value"] == "Porto"
        assert entry.purge_after - entry.deleted_at == timedelta(minutes=30)
