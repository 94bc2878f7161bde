"""Migration 0009: exchanges saved before it were learned from (the old quit finished the
learning queue first), so none of them is due; a row saved without saying (an imported
turn) is not due either: only the conversation marks an exchange due."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select, text

from core.storage import migrate, orm
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import open_engine


def test_exchanges_from_before_are_not_due(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "old.db")
    migrate.upgrade(engine, "0008")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO interactions (user_message, agent_response, channel, tools_used, "
            "status, created_at) VALUES ('I moved to Porto', 'Noted.', 'desktop', '[]', "
            "'completed', '2026-11-20 10:00:00')"))
    engine.dispose()

    upgraded = SqliteStorage(tmp_path / "old.db")
    try:
        assert upgraded.schema_revision() == migrate.head_revision()
        with upgraded.read() as session:
            (interaction,) = session.scalars(select(orm.Interaction))
            assert interaction.learning_due is False
        with upgraded.write() as session:
            session.add(orm.Interaction(user_message="hello", agent_response=""))
        with upgraded.read() as session:
            assert list(session.scalars(select(orm.Interaction.learning_due))) == [False,
                                                                                   False]
    finally:
        upgraded.close()
