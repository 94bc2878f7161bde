"""Migration 0019 (how an import run ended) on both backends: runs recorded before it
that ended are marked finished, a run that never ended stays unmarked, and up, down and up
again keeps the runs (``outcome`` goes and comes back)."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import inspect, select

from core.storage import migrate, orm
from core.transfer import batches
from support.migration_steps import downgrade

T0 = orm.utcnow()


def columns(storage) -> set[str]:
    with storage.read() as session:
        return {column["name"] for column in inspect(session.connection()).get_columns(
            "import_runs")}


def test_runs_that_ended_are_marked_finished_through_up_down_up(storage) -> None:
    downgrade(storage, "0018")
    assert "outcome" not in columns(storage)
    with storage.write() as session:
        session.execute(orm.ImportRun.__table__.insert(), [
            {"id": 1, "source": "claude", "started_at": T0, "added": 4,
             "finished_at": T0 + timedelta(seconds=3)},
            {"id": 2, "source": "notes", "started_at": T0, "added": 0, "finished_at": None}])

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        with storage.read() as session:
            assert [(run.id, run.added, run.outcome) for run in session.scalars(
                select(orm.ImportRun).order_by(orm.ImportRun.id))] == [
                (1, 4, "finished"), (2, 0, None)]
        assert [run.outcome for run in batches.runs(storage)] == [None, "finished"]
        if round_trip == 0:
            downgrade(storage, "0018")
            assert "outcome" not in columns(storage)
