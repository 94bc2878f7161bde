"""Migration 0013 (the daily tools) on both backends: notes written before it come through
unpinned, unedited and still searchable, nothing is seeded (a new database stays empty),
and up, down and up again keeps the notes (the daily tables, new in 0013, go and come back
empty)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import inspect, select, text

from core.daily.alerts import AlertService
from core.daily.tasks import TaskService
from core.storage import migrate, orm
from support.migration_steps import downgrade, tables
from core.storage.port import IndexedKind, SearchFilters

DAILY_TABLES = {"tasks", "reminders", "scheduled_prompts", "alert_rules", "journal_entries",
                "read_later", "pending_actions"}


def found_notes(storage, words: str) -> list[int]:
    with storage.read() as session:
        return [hit.id for hit in storage.search.text_search(
            session, IndexedKind.NOTE, words, SearchFilters(), 5)]


def test_notes_survive_up_down_up_and_nothing_is_seeded(storage) -> None:
    downgrade(storage, "0012")
    assert not DAILY_TABLES & tables(storage)
    with storage.write() as session:
        session.execute(text(
            "INSERT INTO chat_sessions (id, title, source, started_at, learn_from, incognito) "
            "VALUES ('s1', 'Moving', 'chat', :t, :yes, :no)"),
            {"t": datetime(2025, 5, 1, 10), "yes": True, "no": False})
        session.execute(text(
            "INSERT INTO notes (title, content, session_id, created_at, updated_at) VALUES "
            "('Summary: moving', 'Packing list for the move to Porto', 's1', :t, :t)"),
            {"t": datetime(2025, 5, 1, 10)})

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        assert DAILY_TABLES <= tables(storage)
        with storage.read() as session:
            (note,) = session.scalars(select(orm.Note))
        assert (note.title, note.session_id, note.pinned, note.edited_at) == (
            "Summary: moving", "s1", False, None)
        assert found_notes(storage, "porto") == [note.id]
        with storage.read() as session:
            assert list(session.scalars(select(orm.AlertRule))) == []
        assert [(r.kind, r.cooldown_minutes) for r in AlertService(storage).rules()] == [
            ("task_due_today", 1440), ("task_overdue", 1440)]
        assert TaskService(storage).list() == []  # a downgrade took the daily rows with it
        TaskService(storage).create("Pack the books", due_date="2025-05-02")
        if round_trip == 0:
            downgrade(storage, "0012")
            assert not DAILY_TABLES & tables(storage)
            with storage.read() as session:
                columns = {c["name"] for c in inspect(session.connection()).get_columns("notes")}
            assert "pinned" not in columns and found_notes(storage, "porto") == [note.id]
