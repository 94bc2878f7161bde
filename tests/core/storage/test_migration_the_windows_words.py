"""Migration 0023 (four concepts take the window's words: Habits, Follow-ups, About you,
Notes about you) on both backends: a folder from before keeps every row, with its id, under
the new names, and the words stored inside records follow (audit actions, what a run kept
for its undo and its changelog); up, down and up again loses nothing. An export written
before the rename imports under the new names."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy import select, text

from core.storage import former_names, migrate, orm
from core.storage.sqlite.adapter import SqliteStorage
from core.transfer.export import export_all, import_export
from support.every_table import fill_every_table
from support.migration_steps import downgrade, tables
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)

STAMP = "2026-11-01 09:00:00"
WHEN = datetime(2026, 11, 1, 9, tzinfo=timezone.utc)
STAGES = {"apply": {"learnings_before": [{"id": 4, "status": "candidate"}]},
          "daily": {"status": "done", "titled": 1},
          "parse": {"intentions": 1, "learnings": 1}}
CHANGES = [{"kind": "profile", "text": "Reworded your profile", "version": 2},
           {"kind": "follow_ups", "text": "Will follow up", "intentions": [7]}]
OLD_ACTIONS = ["intention.resolve", "learning.promote", "profile.save", "scaffold.save",
               "tool.call"]
RUNS = sa.table("runs", sa.column("id", sa.Integer()), sa.column("kind", sa.String()),
                sa.column("trigger", sa.String()), sa.column("status", sa.String()),
                sa.column("stages", sa.JSON()), sa.column("counts", sa.JSON()),
                sa.column("changes", sa.JSON()), sa.column("started_at", orm.UTCDateTime()))


def _fill_before_the_rename(storage) -> None:
    """A row in each renamed table and the old words inside records, at revision 0022."""
    with storage.write() as session:
        run = session.execute(RUNS.insert().values(
            kind="reflection", trigger="test", status="done", stages=STAGES,
            counts={"intentions_added": 1}, changes=CHANGES, started_at=WHEN)
            .returning(RUNS.c.id)).scalar_one()
        session.execute(text(
            "INSERT INTO agent_learnings (id, rule, category, recurrence_count, status, "
            "first_seen, last_seen) VALUES (4, 'confirm before deleting', 'general', 2, "
            "'active', :t, :t)"), {"t": STAMP})
        session.execute(text(
            "INSERT INTO pending_intentions (id, text, context, status, follow_up_at, "
            "created_at, updated_at) VALUES (7, 'call the dentist', '', 'open', :t, :t, :t)"),
            {"t": STAMP})
        session.execute(text(
            "INSERT INTO profile_versions (id, content, source, run_id, created_at) "
            "VALUES (2, 'Lives in Porto.', 'reflection', :run, :t)"), {"run": run, "t": STAMP})
        session.execute(sa.table("scaffold_versions", sa.column("id", sa.Integer()),
                                 sa.column("data", sa.JSON()), sa.column("source", sa.String()),
                                 sa.column("created_at", orm.UTCDateTime())).insert().values(
            id=3, data={"Family": {"sister": "Ana"}}, source="user", created_at=WHEN))
        for action in OLD_ACTIONS:
            session.execute(text(
                "INSERT INTO audit_log (timestamp, action, actor, arguments, result_summary) "
                "VALUES (:t, :action, 'user', '{}', '')"), {"t": STAMP, "action": action})


def test_a_folder_from_before_keeps_every_row_under_the_new_names(storage) -> None:
    downgrade(storage, "0022")
    assert set(former_names.TABLES) <= tables(storage)
    _fill_before_the_rename(storage)

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        assert not set(former_names.TABLES) & tables(storage)
        with storage.read() as session:
            assert session.get(orm.Habit, 4).rule == "confirm before deleting"
            assert session.get(orm.FollowUp, 7).text == "call the dentist"
            assert session.get(orm.AboutYouVersion, 2).content == "Lives in Porto."
            assert session.get(orm.NotesAboutYouVersion, 3).data == {"Family": {"sister": "Ana"}}
            assert sorted(session.scalars(select(orm.AuditEntry.action))) == [
                "about_you.save", "follow_up.resolve", "habit.promote", "notes_about_you.save",
                "tool.call"]
            run = session.scalars(select(orm.Run)).one()
            assert run.stages == {
                "apply": {"habits_before": [{"id": 4, "status": "candidate"}]},
                "summaries": {"status": "done", "titled": 1},
                "parse": {"follow_ups": 1, "habits": 1}}
            assert run.counts == {"follow_ups_added": 1}
            assert [entry["kind"] for entry in run.changes] == ["about_you", "follow_ups"]
            assert run.changes[1]["follow_ups"] == [7]
        if round_trip == 0:
            downgrade(storage, "0022")
            with storage.read() as session:
                assert session.execute(text("SELECT rule FROM agent_learnings")).scalar_one() \
                    == "confirm before deleting"
                assert sorted(session.execute(text("SELECT action FROM audit_log")).scalars()) \
                    == OLD_ACTIONS
                assert session.execute(select(RUNS.c.stages)).scalar_one() == STAGES
    with storage.write() as session:  # new rows take ids after the copied ones
        habit = orm.Habit(rule="answer briefly")
        session.add(habit)
        session.flush()
        assert habit.id > 4


def test_an_export_written_before_the_rename_imports_under_the_new_names(
        tmp_path: Path, storage, embedder) -> None:
    fill_every_table(storage, embedder)
    path = tmp_path / "export.json"
    export_all(storage, path)
    envelope = json.loads(path.read_text(encoding="utf-8"))
    envelope["schema_revision"] = "0022"
    old_names = former_names.inverse(former_names.TABLES)
    envelope["tables"] = {old_names.get(name, name): rows
                          for name, rows in envelope["tables"].items()}
    envelope["tables"]["audit_log"][0]["action"] = "learning.promote"
    path.write_text(json.dumps(envelope), encoding="utf-8")

    target = SqliteStorage(tmp_path / "restored.db")
    try:
        restored = import_export(path, target, embedder)
        assert all(restored[name] == 1 for name in former_names.TABLES.values())
        with target.read() as session:
            assert session.scalars(select(orm.Habit.rule)).one() == "Answer in short paragraphs"
            assert session.scalars(select(orm.FollowUp.text)).one() == "Register at the câmara"
            assert session.scalars(select(orm.AuditEntry.action)).first() == "habit.promote"
    finally:
        target.close()
