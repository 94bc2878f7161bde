"""The database itself: schema, migrations, pragmas, bad files, locks, backups.

The tests that take the ``storage`` fixture run on SQLite and PostgreSQL; the others check
the SQLite adapter's file handling (PostgreSQL's own are in ``test_postgres.py``)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path

import filelock
import pytest
from sqlalchemy import inspect, select, text

from core import scheduling
from core.consolidation import link_log
from core.storage import backups
from core.storage.sqlite import restore
from core.home.paths import HearthPaths
from core.errors import DatabaseError, DatabaseLockedError
from core.home.instance_lock import FolderLock
from core.storage import change_log, migrate, orm, transfer
from core.storage.port import StoragePort
from core.storage.sqlite import damage
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.engine import dbapi_module, open_engine
from core.storage.sqlite.ownership import FIRST_SCHEMA, MADE_ELSEWHERE, VERSION_TABLE, hearth_tables

EVERY_TIER = {
    "interactions", "chat_sessions", "user_facts", "fact_history", "about_you_versions",
    "notes_about_you_versions", "working_memory_versions", "notes", "memories", "memory_edges",
    "context_events", "habits", "follow_ups", "audit_log", "runs",
    "context_logs",
}


def test_fresh_database_has_every_tier_and_the_newest_schema(storage: StoragePort) -> None:
    inspector = inspect(storage.engine)
    tables = set(inspector.get_table_names())
    assert EVERY_TIER <= tables
    searchable = ("memories", "notes", "interactions", "user_facts")
    if storage.engine.dialect.name == "sqlite":
        assert {f"{table}_fts" for table in searchable} <= tables
    else:
        for table in searchable:
            assert "fulltext" in {column["name"] for column in inspector.get_columns(table)}
    assert storage.schema_revision() == migrate.head_revision()


def test_the_fast_path_head_is_alembics_head() -> None:
    assert migrate.HEAD == migrate.head_revision()


def test_memory_columns_named_by_the_design(storage: SqliteStorage) -> None:
    columns = {c["name"] for c in inspect(storage.engine).get_columns("memories")}
    assert {"content", "memory_type", "namespace", "priority", "source", "tier", "category",
            "tags", "entities", "importance", "strength", "access_count", "last_accessed_at",
            "search_hit_count", "is_valid", "superseded_by", "session_id", "interaction_id",
            "event_id", "external_id", "embedding_model", "created_at",
            "updated_at"} <= columns


@pytest.mark.filterwarnings(  # SQLite's reflection skips it; include_object leaves it out
    "ignore:Skipped unsupported reflection of expression-based index ix_memories_import_batch")
def test_the_migrations_build_exactly_the_models(storage: SqliteStorage) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    with storage.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={
            "include_object": migrate.include_object, "compare_type": True})
        assert compare_metadata(context, orm.Base.metadata) == []


@pytest.mark.sqlite_only
def test_connection_pragmas(storage: SqliteStorage) -> None:
    with storage.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
        assert connection.exec_driver_sql("SELECT vec_version()").scalar().startswith("v")


def test_upgrade_from_the_first_revision_keeps_data_and_indexes_it(tmp_path: Path) -> None:
    engine = open_engine(tmp_path / "old.db")
    migrate.upgrade(engine, "0001")
    assert migrate.current_revision(engine) == "0001"
    assert set(inspect(engine).get_table_names()) == FIRST_SCHEMA | {VERSION_TABLE}
    stamp = "2025-05-01 10:00:00"
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO memories (content, memory_type, namespace, priority, source, tier, "
            "category, tags, entities, importance, strength, access_count, search_hit_count, "
            "is_valid, created_at, updated_at) VALUES ('My sister Ines lives in Porto', "
            "'semantic', 'user', 'high', 'user', 'recall', 'personal', '[]', '{}', 0.7, 1.0, "
            "0, 0, 1, :t, :t)"), {"t": stamp})
        connection.execute(text(
            "INSERT INTO user_facts (key, value, category, source, confidence, created_at, "
            "updated_at) VALUES ('home_city', 'Lisbon', 'location', 'user', 1.0, :t, :t)"),
            {"t": stamp})
    engine.dispose()

    upgraded = SqliteStorage(tmp_path / "old.db")
    try:
        assert upgraded.schema_revision() == migrate.head_revision()
        with upgraded.read() as session:
            memory = session.scalars(select(orm.Memory)).one()
            assert memory.content == "My sister Ines lives in Porto"
            assert memory.created_at == datetime(2025, 5, 1, 10, tzinfo=timezone.utc)
            assert session.scalars(select(orm.UserFact.value)).one() == "Lisbon"
            found = session.execute(text(
                "SELECT rowid FROM memories_fts WHERE memories_fts MATCH 'porto'")).all()
            assert [row[0] for row in found] == [memory.id]
    finally:
        upgraded.close()


def test_every_table_hearth_makes_is_known_as_hearths(tmp_path: Path) -> None:
    """A new table made outside the models and the search index must be declared, or
    every database holding it would be refused as another program's."""
    assert MADE_ELSEWHERE == {link_log.CHANGES.name, link_log.STATE.name,
                              scheduling.JOBSTORE_TABLE, transfer.MARKER,
                              change_log.CHANGE_LOG.name}
    storage = SqliteStorage(tmp_path / "hearth.db")
    try:
        storage.search.ensure_dimensions(8)
        with storage.write() as session:
            for table in (scheduling.job_store_table(), transfer._marker()):
                table.create(session.connection())
        made = set(inspect(storage.engine).get_table_names()) - {"sqlite_sequence"}
    finally:
        storage.close()
    assert made <= hearth_tables()
    SqliteStorage(tmp_path / "hearth.db").close()  # opened again as Hearth's


def test_an_out_of_date_database_in_a_read_only_folder_says_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Upgrading takes the folder's migration lock first; a folder that refuses it (tests
    run as root, for whom no folder is read-only, hence the stand-in) gets a sentence."""
    engine = open_engine(tmp_path / "old.db")
    migrate.upgrade(engine, "0001")
    engine.dispose()

    def refused(*_args: object, **_kwargs: object) -> None:
        raise PermissionError(13, "Permission denied", str(tmp_path / "migrate.lock"))

    monkeypatch.setattr(filelock.FileLock, "acquire", refused)
    with pytest.raises(DatabaseError, match="read-only"):
        SqliteStorage(tmp_path / "old.db")


def test_a_database_from_a_newer_version_is_refused(tmp_path: Path) -> None:
    SqliteStorage(tmp_path / "new.db").close()
    engine = open_engine(tmp_path / "new.db")
    with engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    with pytest.raises(DatabaseError, match="newer version"):
        SqliteStorage(tmp_path / "new.db")


def test_a_file_that_is_not_sqlite_is_refused_with_a_hint(tmp_path: Path) -> None:
    bogus = tmp_path / "hearth.db"
    bogus.write_text("these are my shopping notes, not a database\n" * 20)
    with pytest.raises(DatabaseError) as caught:
        SqliteStorage(bogus)
    assert "not a SQLite database" in caught.value.message
    assert "restore" in caught.value.hint
    assert bogus.read_text().startswith("these are my shopping notes")


def test_a_corrupt_database_body_is_reported_not_raised_raw(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    SqliteStorage(path).close()
    data = bytearray(path.read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)
    path.write_bytes(bytes(data))
    with pytest.raises(DatabaseError):
        storage = SqliteStorage(path)
        with storage.read() as session:
            session.scalars(select(orm.Memory)).all()


def test_the_file_is_checked_once_before_its_first_write(tmp_path: Path, sqlite_template,
                                                          monkeypatch) -> None:
    """Reading never pays for the whole-file check; the first write does, once per open."""
    checks: list[str | None] = []
    real = damage._quick_check
    monkeypatch.setattr(damage, "_quick_check",
                        lambda connection: checks.append(real(connection)) or checks[-1])
    storage = SqliteStorage(sqlite_template.copy_database(tmp_path / "hearth.db"))
    try:
        assert note_titles(storage) == [] and checks == []
        for title in ("one", "two"):
            with storage.write() as session:
                session.add(orm.Note(title=title, content="saved"))
        assert checks == [None]  # None: nothing wrong
        assert sorted(note_titles(storage)) == ["one", "two"]
    finally:
        storage.close()


@contextmanager
def write_lock_held(path: Path) -> Iterator[None]:
    """Another program's write transaction on ``path`` while the block runs."""
    holder = dbapi_module().connect(str(path), isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        yield
        holder.execute("ROLLBACK")
    finally:
        holder.close()


def note_titles(storage: SqliteStorage) -> list[str]:
    with storage.read() as session:
        return list(session.scalars(select(orm.Note.title)))


def test_a_write_waits_for_another_writer_and_is_saved(tmp_path: Path) -> None:
    storage = SqliteStorage(tmp_path / "hearth.db", busy_timeout_ms=50)
    waiting = threading.Event()

    class Notice(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "Waiting for another Hearth process" in record.getMessage():
                waiting.set()

    notice = Notice()
    logging.getLogger("core.storage").addHandler(notice)
    outcome: list[BaseException | str] = []

    def save() -> None:
        try:
            with storage.write() as session:
                session.add(orm.Note(title="waited", content="and was saved"))
            outcome.append("saved")
        except BaseException as exc:  # reported below, in the test's thread
            outcome.append(exc)

    try:
        with write_lock_held(tmp_path / "hearth.db"):
            writer = threading.Thread(target=save)
            writer.start()
            deadline = time.monotonic() + 30
            while not waiting.wait(0.05) and writer.is_alive() and time.monotonic() < deadline:
                pass
            assert waiting.is_set(), f"the write never waited: {outcome}"
        writer.join(30)
    finally:
        logging.getLogger("core.storage").removeHandler(notice)
    assert outcome == ["saved"]
    assert note_titles(storage) == ["waited"]
    storage.close()


def test_a_write_that_waited_past_its_limit_fails_with_a_sentence(tmp_path: Path) -> None:
    path = tmp_path / "hearth.db"
    storage = SqliteStorage(path, busy_timeout_ms=50, write_wait_seconds=0.3)
    with write_lock_held(path):
        with pytest.raises(DatabaseLockedError) as caught:
            with storage.write() as session:
                session.add(orm.Note(title="t", content="c"))
        assert "stayed locked by another program's write" in caught.value.message
        assert "not saved" in caught.value.message
    with storage.write() as session:
        session.add(orm.Note(title="after", content="the lock was released"))
    assert note_titles(storage) == ["after"]
    storage.close()


def test_a_write_that_holds_the_lock_is_never_refused_until_it_commits(tmp_path: Path) -> None:
    """Why waiting belongs in BEGIN IMMEDIATE only ("Writers take turns" in
    docs/architecture.md): once a write transaction has the lock, readers with old
    snapshots and the checkpoint its commit triggers do not make it fail, while another
    writer is refused at once."""
    path = tmp_path / "hearth.db"
    storage = SqliteStorage(path)
    module = dbapi_module()
    reader = module.connect(str(path), isolation_level=None)
    other_writer = module.connect(str(path), isolation_level=None, timeout=0)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM notes").fetchone() == (0,)
        with storage.write() as session:
            with pytest.raises(module.OperationalError, match="locked"):
                other_writer.execute("BEGIN IMMEDIATE")
            session.add_all(orm.Note(title=f"n{i}", content="x" * 4000) for i in range(2000))
        assert reader.execute("SELECT count(*) FROM notes").fetchone() == (0,)  # its snapshot
        reader.execute("COMMIT")
    finally:
        reader.close()
        other_writer.close()
    assert len(note_titles(storage)) == 2000
    storage.close()


def test_a_failed_write_rolls_back_everything(storage: SqliteStorage) -> None:
    with pytest.raises(RuntimeError):
        with storage.write() as session:
            session.add(orm.Note(title="half", content="written"))
            session.flush()
            raise RuntimeError("crash in the middle")
    with storage.read() as session:
        assert session.scalars(select(orm.Note)).all() == []


def test_backup_rotation_and_restore(tmp_path: Path) -> None:
    paths = HearthPaths(tmp_path / "home")
    storage = SqliteStorage(paths.database)
    with storage.write() as session:
        session.add(orm.Note(title="before", content="kept in every backup"))
    made = [backups.create_backup(storage, paths, keep=2,
                                  now=datetime(2026, 1, day, tzinfo=timezone.utc))
            for day in (1, 2, 3)]
    kept = backups.list_backups(paths)
    assert [b.path for b in kept] == [made[2].path, made[1].path]
    with storage.write() as session:
        session.add(orm.Note(title="after", content="only in the live database"))
    storage.close()

    with FolderLock(paths.home, exclusive=True):
        aside = restore.restore_backup(paths, made[2].path)
    assert aside.exists()
    restored = SqliteStorage(paths.database)
    with restored.read() as session:
        assert session.scalars(select(orm.Note.title)).all() == ["before"]
    restored.close()


def test_restore_refuses_a_file_that_is_not_a_backup(tmp_path: Path) -> None:
    paths = HearthPaths(tmp_path / "home")
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite at all")
    with pytest.raises(DatabaseError):
        restore.restore_backup(paths, junk)


def test_restore_needs_the_folder_to_itself(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with FolderLock(home, exclusive=False):
        with pytest.raises(DatabaseLockedError):
            FolderLock(home, exclusive=True)
    FolderLock(home, exclusive=True).release()
