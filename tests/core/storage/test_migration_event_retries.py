"""Migration 0008: events keep their attempts and errors and gain the retry bookkeeping, with
the automatic retry unused (events an outage poisoned before get one more try)."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select, text

from core.storage import migrate, orm
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import open_engine


def test_poisoned_events_come_through_with_their_automatic_retry_unused(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "old.db")
    migrate.upgrade(engine, "0007")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO context_events (event_type, content, source_metadata, processed, "
            "attempts, last_error, created_at) VALUES ('observation', 'Learning Portuguese.', "
            "'{}', 0, 3, 'Ollama is not running at http://127.0.0.1:11434.', "
            "'2026-11-20 10:00:00')"))
    engine.dispose()

    upgraded = SqliteStorage(tmp_path / "old.db")
    try:
        assert upgraded.schema_revision() == migrate.head_revision()  # 0008 or later
        with upgraded.read() as session:
            (event,) = session.scalars(select(orm.ContextEvent))
    finally:
        upgraded.close()
    assert (event.attempts, event.failed_with, event.auto_retried) == (3, None, False)
    assert event.last_error == "Ollama is not running at http://127.0.0.1:11434."
