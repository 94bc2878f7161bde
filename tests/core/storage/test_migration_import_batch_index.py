"""Migration 0018 (the expression index of ``origin.import_batch``) on both backends:
memories written before it keep their origin and are found by their run through the new
index; up, down and up again builds, drops and rebuilds only that index."""

from __future__ import annotations

from sqlalchemy import select, text

from core.storage import migrate, orm
from core.storage.sql import IMPORT_BATCH_INDEX, of_import_batch
from core.transfer import batches
from support.migration_steps import downgrade

ORIGIN = {"service": "claude", "message_id": "m1", "import_batch": 1}


def indexes(storage) -> set[str]:
    """The names of the memories table's indexes (expression ones included, which
    SQLAlchemy's inspector leaves out on SQLite)."""
    with storage.read() as session:
        query = ("SELECT name FROM sqlite_master WHERE type = 'index' AND "
                 "tbl_name = 'memories'" if session.bind.dialect.name == "sqlite" else
                 "SELECT indexname FROM pg_indexes WHERE tablename = 'memories'")
        return set(session.scalars(text(query)))


def test_memories_keep_their_run_through_up_down_up(storage) -> None:
    downgrade(storage, "0017")
    assert IMPORT_BATCH_INDEX not in indexes(storage)
    with storage.write() as session:
        session.execute(orm.ImportRun.__table__.insert(), [  # the columns 0017 has
            {"id": 1, "source": "claude", "started_at": orm.utcnow(), "added": 1}])
        session.add(orm.Memory(content="User: I moved to Porto", source="import",
                               external_id="turn:claude:c1:m1", origin=ORIGIN))
        session.add(orm.Memory(content="I like tea", origin={"channel": "chat"}))

    for round_trip in range(2):
        migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
        assert storage.schema_revision() == migrate.head_revision()
        assert IMPORT_BATCH_INDEX in indexes(storage)
        with storage.read() as session:
            assert [(m.content, m.origin) for m in session.scalars(
                select(orm.Memory).order_by(orm.Memory.id))] == [
                ("User: I moved to Porto", ORIGIN), ("I like tea", {"channel": "chat"})]
        assert len(batches.memories_of(storage, 1)) == 1
        assert [(run.id, run.present) for run in batches.runs(storage)] == [(1, 1)]
        if round_trip == 0:
            downgrade(storage, "0017")
            assert IMPORT_BATCH_INDEX not in indexes(storage)
            with storage.read() as session:  # found by a scan, as before (the ORM's run
                # has columns 0017 lacks, so the memories are asked for directly)
                assert session.scalars(select(orm.Memory.id).where(
                    of_import_batch(orm.Memory.origin, 1))).all() == [1]
