"""Migration 0021 (the change log) on both backends: down, the table goes and writes go on
unlogged; up again, it is back, and a feed of a newly opened database logs into it."""

from __future__ import annotations

from sqlalchemy import func, select

from core.storage import migrate, orm
from core.storage.change_log import CHANGE_LOG
from support.migration_steps import downgrade, tables


def test_the_log_goes_down_and_comes_back_up(storage) -> None:
    downgrade(storage, "0020")
    assert "change_log" not in tables(storage)
    with storage.write() as session:  # nothing to log to: the write still commits
        session.add(orm.UserFact(key="home_city", value="Lisbon", category="location",
                                 source="user"))

    migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
    assert storage.schema_revision() == migrate.head_revision()
    assert "change_log" in tables(storage)
    storage.changes._log = True  # as a database opened at this revision logs
    with storage.write() as session:
        session.add(orm.UserFact(key="employer", value="Acme", category="work",
                                 source="user"))
    with storage.read() as session:
        assert session.scalar(select(func.count()).select_from(orm.UserFact)) == 2
        assert session.execute(select(CHANGE_LOG.c.domains)).scalars().all() == ["facts"]
