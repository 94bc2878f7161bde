"""Migration 0007: memories the old decay stage invalidated for age come back; learned_at."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from sqlalchemy import select, text

from core.storage import migrate, orm
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import open_engine

INSERT = text(
    "INSERT INTO memories (content, memory_type, namespace, priority, source, tier, category, "
    "tags, entities, importance, strength, freshness, access_count, search_hit_count, "
    "is_valid, invalid_reason, created_at, updated_at) VALUES (:content, 'episodic', "
    "'import/c', 'medium', 'import', 'recall', 'general', '[]', '{}', 0.5, :strength, 0.01, 0, "
    "0, :valid, :reason, '2024-01-05 10:00:00', '2026-06-01 08:00:00')")


def test_decayed_memories_come_back_and_other_invalid_ones_stay(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "old.db")
    migrate.upgrade(engine, "0006")
    with engine.begin() as connection:
        for content, valid, reason in (
                ("Dana: I signed the offer from Helio Energy today", 0, "decayed"),
                ("Dana: my landlord raised the rent again", 0, "decayed"),
                ("Dana: I live in Leeds", 0, "contradicted by a newer memory"),
                ("Dana: pottery class on Thursdays", 1, None)):
            connection.execute(INSERT, {"content": content, "valid": valid, "reason": reason,
                                        "strength": 0.01})
    engine.dispose()

    upgraded = SqliteStorage(tmp_path / "old.db")
    try:
        assert upgraded.schema_revision() == migrate.head_revision()
        with upgraded.read() as session:
            rows = {m.content: m for m in session.scalars(select(orm.Memory))}
    finally:
        upgraded.close()
    back = rows["Dana: I signed the offer from Helio Energy today"]
    assert (back.is_valid, back.invalid_reason) == (True, None)
    assert back.strength == 0.01  # still faded: ranked low until it is used or merged
    assert rows["Dana: my landlord raised the rent again"].is_valid
    contradicted = rows["Dana: I live in Leeds"]
    assert (contradicted.is_valid, contradicted.invalid_reason) == (
        False, "contradicted by a newer memory")
    # learned_at starts at the row's insert (updated_at), not at when the turn happened
    assert {m.learned_at for m in rows.values()} == {
        datetime(2026, 6, 1, 8, tzinfo=timezone.utc)}
    assert back.created_at == datetime(2024, 1, 5, 10, tzinfo=timezone.utc)
