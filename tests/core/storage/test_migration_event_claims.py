"""Migration 0012: pending and processed events come through unclaimed, with their
attempts, errors and retry bookkeeping kept, and the next run can claim them."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select, text

from core.consolidation import event_claims
from core.storage import migrate, orm
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import open_engine


def test_events_come_through_unclaimed_and_can_be_claimed(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "old.db")
    migrate.upgrade(engine, "0011")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO context_events (event_type, content, source_metadata, processed, "
            "attempts, last_error, failed_with, auto_retried, created_at) VALUES "
            "('observation', 'Learning Portuguese.', '{}', 0, 1, 'no answer', "
            "'ollama · qwen', 0, '2026-11-20 10:00:00'), "
            "('observation', 'Moved to Lisbon.', '{}', 1, 0, NULL, NULL, 0, "
            "'2026-11-19 10:00:00')"))
    engine.dispose()

    upgraded = SqliteStorage(tmp_path / "old.db")
    try:
        assert upgraded.schema_revision() == migrate.head_revision()
        with upgraded.read() as session:
            pending, done = session.scalars(select(orm.ContextEvent).order_by(
                orm.ContextEvent.processed))
        assert (pending.content, pending.attempts, pending.last_error,
                pending.failed_with) == ("Learning Portuguese.", 1, "no answer",
                                         "ollama · qwen")
        assert (done.content, done.processed) == ("Moved to Lisbon.", True)
        assert {(e.claimed_by, e.claimed_until) for e in (pending, done)} == {(None, None)}
        assert event_claims.claim(upgraded, [pending.id, done.id], 20) == [pending.id]
    finally:
        upgraded.close()
