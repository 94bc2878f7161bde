"""Backups of a PostgreSQL database with pg_dump and pg_restore, against a real PostgreSQL
16 with pgvector (``pgserver``, on a Unix socket of its own); and the SQL constructs that
compile per dialect, run on both."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pgserver
import pytest
from sqlalchemy import JSON, Engine, create_engine, literal, select, text
from sqlalchemy.engine import make_url

from core.errors import DatabaseError, InvalidInputError
from core.storage.postgres import backup
from core.storage.sql import json_text, utc_day
from core.storage.sqlite.engine import open_engine

SECRET = "hunter2"


@pytest.fixture(scope="module")
def server(tmp_path_factory) -> Iterator[str]:
    """A PostgreSQL server for this module; yields its URL (a Unix socket, no password)."""
    running = pgserver.get_server(tmp_path_factory.mktemp("pg") / "data", cleanup_mode="stop")
    try:
        yield running.get_uri()
    finally:
        running.cleanup()


@pytest.fixture
def database(server: str) -> Iterator[str]:
    """A fresh database on the server, with pgvector and a table of notes."""
    admin = create_engine(server.replace("postgresql://", "postgresql+psycopg://", 1),
                          isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(text("DROP DATABASE IF EXISTS hearth_test"))
        connection.execute(text("CREATE DATABASE hearth_test"))
    admin.dispose()
    url = make_url(server).set(database="hearth_test").render_as_string(hide_password=False)
    engine = engine_for(url)
    try:
        with engine.begin() as connection:
            connection.execute(text("CREATE EXTENSION vector"))
            connection.execute(text("CREATE TABLE notes (id serial PRIMARY KEY, title text, "
                                    "embedding vector(3))"))
            connection.execute(text("INSERT INTO notes (title, embedding) VALUES "
                                    "('in the backup', '[1,2,3]'), ('also kept', '[0,0,1]')"))
    finally:
        engine.dispose()
    return url


def engine_for(url: str) -> Engine:
    return create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))


def notes(url: str) -> list[tuple[str, str]]:
    engine = engine_for(url)
    try:
        with engine.connect() as connection:
            return [tuple(row) for row in connection.execute(
                text("SELECT title, embedding::text FROM notes ORDER BY title"))]
    finally:
        engine.dispose()


def test_a_dump_restores_the_database_as_it_was(database: str, tmp_path: Path) -> None:
    before = notes(database)
    archive = tmp_path / "backups" / "hearth-20260101T000000000000Z.dump"

    backup.dump(database, archive)
    backup.verify(archive, tool=backup.find_tool("pg_restore", database))
    engine = engine_for(database)
    with engine.begin() as connection:
        connection.execute(text("DELETE FROM notes WHERE title = 'also kept'"))
        connection.execute(text("INSERT INTO notes (title) VALUES ('only live')"))
    engine.dispose()
    backup.restore(database, archive)

    assert notes(database) == before == [("also kept", "[0,0,1]"), ("in the backup", "[1,2,3]")]
    assert archive.read_bytes().startswith(b"PGDMP")  # pg_dump's custom format


def test_the_tools_used_are_as_new_as_the_server(database: str) -> None:
    """This machine's PATH may hold an older pg_dump (Debian's 15 beside a 16 server): the
    server's own is used then, never one that would refuse to run."""
    for name in ("pg_dump", "pg_restore"):
        assert backup.tool_major(backup.find_tool(name, database)) >= 16


def test_missing_tools_say_what_to_install_without_the_password(tmp_path: Path) -> None:
    remote = f"postgresql://hearth:{SECRET}@db.example.invalid/hearth"  # never contacted
    empty = tmp_path / "no-tools"
    empty.mkdir()
    with pytest.raises(DatabaseError, match="pg_dump is not installed") as caught:
        backup.dump(remote, tmp_path / "x.dump", search_path=str(empty))
    assert "postgresql-client" in caught.value.hint
    assert SECRET not in str(caught.value) and "hearth:***@" in caught.value.message


def test_what_is_no_archive_is_refused_and_nothing_is_restored(database: str,
                                                               tmp_path: Path) -> None:
    junk = tmp_path / "hearth-20260101T000000000000Z.dump"
    junk.write_bytes(b"not an archive")
    with pytest.raises(DatabaseError, match="not a readable pg_dump archive"):
        backup.restore(database, junk)
    with pytest.raises(InvalidInputError, match="does not exist"):
        backup.restore(database, tmp_path / "missing.dump")
    with pytest.raises(InvalidInputError, match="not a PostgreSQL"):
        backup.dump(f"sqlite:///{tmp_path / 'x.db'}", tmp_path / "x.dump")
    assert len(notes(database)) == 2


@pytest.mark.parametrize("dialect", ["sqlite", "postgresql"])
def test_days_and_json_text_read_the_same_on_both_dialects(dialect: str, server: str,
                                                          tmp_path: Path) -> None:
    engine = engine_for(server) if dialect == "postgresql" else open_engine(tmp_path / "x.db")
    origin = literal({"speaker": "Maya", "turn": 3, "nested": {"speaker": "x"}}, JSON)
    try:
        with engine.connect() as connection:
            day = connection.scalar(select(utc_day(literal(datetime(2026, 3, 1, 23, 59)))))
            speaker = connection.scalar(select(json_text(origin, "speaker")))
            number = connection.scalar(select(json_text(origin, "turn")))
            missing = connection.scalar(select(json_text(origin, "nobody")))
    finally:
        engine.dispose()
    assert (day, speaker, number, missing) == ("2026-03-01", "Maya", None, None)


# --- a forget reaching pg_dump backups (the adapter's copies, on the tests' own server) ---


def _fact_home(url: str, tmp_path: Path, embedder, tools: Path):
    """A PostgreSQL Hearth database holding the fact "pin: 4471-cobalt", and a pg_dump
    backup of it taken before the fact is forgotten."""
    from core.forgetting.database import erase_fact
    from core.knowledge.facts import FactService
    from core.storage.postgres.adapter import PostgresStorage

    storage = PostgresStorage(url)
    FactService(storage, embedder).remember("pin", "4471-cobalt")
    archive = tmp_path / "backups" / "hearth-20260101T000000000000Z.dump"
    backup.dump(url, archive, search_path=str(tools))  # only a superuser is told its bin
    erase_fact(storage, "pin", known_values=["4471-cobalt"], audit=False)
    return storage, archive


def test_a_forget_rewrites_a_pg_dump_backup_through_a_scratch_database(
        postgres_server, tmp_path: Path, embedder) -> None:
    """A role that may create databases (here the superuser, who may also enable
    pgvector): the archive is restored into a scratch database, the fact erased there, and
    the archive replaced by a checked dump without it, keeping its time; the scratch
    database is gone afterwards."""
    from core.forgetting import backups

    name = postgres_server.create_database()
    storage, archive = _fact_home(postgres_server.superuser_url(name), tmp_path, embedder,
                                  postgres_server.binaries.bin)
    try:
        erasure = backups.FactErasure("pin", ("4471-cobalt",))
        assert backups.values_in(storage.copies, archive, "pin") == ["4471-cobalt"]
        assert backups.holds(storage.copies, archive, erasure)
        taken = archive.stat().st_mtime_ns

        outcome = backups.rewrite(storage.copies, archive, erasure)

        assert outcome.ok, outcome.message
        assert not backups.holds(storage.copies, archive, erasure)
        assert archive.stat().st_mtime_ns == taken
        storage.copies.verify(archive)
        assert list(archive.parent.iterdir()) == [archive]
        with postgres_server.superuser() as connection:
            left = connection.execute("SELECT datname FROM pg_database WHERE datname "
                                      "LIKE '%scratch%'").fetchall()
        assert left == []
    finally:
        storage.close()
        postgres_server.drop_database(name)


def test_a_server_that_refuses_a_scratch_database_is_said_plainly(
        postgres_server, postgres_url: str, tmp_path: Path, embedder) -> None:
    """Hearth's ordinary role may not create databases: the backup is left as it was,
    counted as still holding the fact, and the message says why and what to do."""
    from core.forgetting import backups

    storage, archive = _fact_home(postgres_url, tmp_path, embedder,
                                  postgres_server.binaries.bin)
    try:
        before = archive.read_bytes()
        erasure = backups.FactErasure("pin", ("4471-cobalt",))
        assert backups.holds(storage.copies, archive, erasure)

        outcome = backups.rewrite(storage.copies, archive, erasure)

        assert not outcome.ok
        assert "does not let Hearth create a scratch database" in outcome.message
        assert "left as it was" in outcome.message
        # the value is not in it (its digits alone can be part of the server's random port)
        assert "cobalt" not in outcome.message and "***" in outcome.message
        assert archive.read_bytes() == before
    finally:
        storage.close()


def test_a_forget_on_a_server_says_what_postgresql_cannot_promise(
        postgres_url: str, tmp_path: Path, embedder) -> None:
    """No files to search: the tables are vacuumed and the report says in plain words what
    the server may still keep, instead of "searched byte by byte" or nothing."""
    from core.home.paths import HearthPaths
    from core.forgetting import wording
    from core.forgetting.service import FileCheck, ForgetService
    from core.knowledge.facts import FactService
    from core.storage.postgres.adapter import PostgresStorage

    storage = PostgresStorage(postgres_url)
    try:
        FactService(storage, embedder).remember("pin", "4471-cobalt")
        report = ForgetService(storage, embedder, HearthPaths(tmp_path)).forget("pin").report
    finally:
        storage.close()

    assert report.files is FileCheck.ON_SERVER
    said = wording.FILES[report.files]
    assert "VACUUM" in said and "write-ahead log" in said and "cannot search" in said


def test_the_adapter_says_where_it_is_how_big_and_how_healthy_without_the_password(
        postgres_server, postgres_url: str, monkeypatch) -> None:
    from core.storage import migrate
    from core.storage.postgres.adapter import PostgresStorage

    password = make_url(postgres_url).password
    monkeypatch.setenv("PATH", f"{postgres_server.binaries.bin}:{os.environ['PATH']}")
    storage = PostgresStorage(postgres_url)
    try:
        checks = {check.name: check for check in storage.health_checks()}
        size = storage.size_bytes()
        where = storage.location
    finally:
        storage.close()

    assert where.startswith("postgresql://hearth:***@127.0.0.1:") and password not in where
    assert size > 1_000_000  # a migrated database: the catalog alone is several MB
    assert list(checks) == ["database", "PostgreSQL", "pgvector", "pg_dump"]
    assert all(check.ok for check in checks.values()), checks
    assert checks["PostgreSQL"].detail.startswith("version 16")
    assert checks["pg_dump"].detail.startswith("16.")
    assert checks["pgvector"].detail.startswith("0.")
    assert f"schema {migrate.head_revision()}" in checks["database"].detail
    assert not any(password in check.detail for check in checks.values())

    postgres_server.drop_database(make_url(postgres_url).database)
    lost = {check.name: check for check in storage.health_checks()}  # reconnects: gone
    assert not any(check.ok for check in lost.values())
    assert all("does not exist" in check.detail for check in lost.values()), lost


def test_hearths_own_role_restores_a_backup_over_its_database(
        postgres_server, postgres_url: str, tmp_path: Path, embedder) -> None:
    """The documented setup: a superuser enabled pgvector, Hearth's role owns the database.
    ``--clean`` would drop the extension, which only its owner may: it is left in place,
    and the tables come back as they were."""
    from core.knowledge.facts import FactService
    from core.storage.orm import UserFact
    from core.storage.postgres.adapter import PostgresStorage

    tools = str(postgres_server.binaries.bin)
    archive = tmp_path / "hearth-20260101T000000000000Z.dump"
    storage = PostgresStorage(postgres_url)
    try:
        facts = FactService(storage, embedder)
        facts.remember("city", "Porto")
        backup.dump(postgres_url, archive, search_path=tools)
        facts.remember("city", "Lisboa")
        facts.remember("pet", "Miso")
        storage.close()

        backup.restore(postgres_url, archive, search_path=tools)

        with storage.read() as session:
            assert {(fact.key, fact.value) for fact in
                    session.execute(select(UserFact)).scalars()} == {("city", "Porto")}
            assert session.execute(text("SELECT count(*) FROM pg_extension WHERE "
                                        "extname = 'vector'")).scalar_one() == 1
    finally:
        storage.close()


def hearth_cli(capsys, home: Path, *args: str) -> tuple[int, str, str]:
    from cli.main import run

    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_an_old_pg_dump_is_named_by_the_doctor_with_what_to_install(
        capsys, postgres_url: str, postgres_server, tmp_path: Path, monkeypatch) -> None:
    """The server is PostgreSQL 16 and Hearth's role may not read its bin folder: the
    pg_dump on PATH is the only one, and it is 9.6."""
    from support.old_pg_dump import put_first_on_path

    monkeypatch.setenv("HEARTH_DATABASE_URL", postgres_url)
    old = put_first_on_path(tmp_path / "old-client", monkeypatch)

    code, out, _ = hearth_cli(capsys, tmp_path / "h", "doctor")

    assert code == 1
    assert (f"FAIL pg_dump: pg_dump 9.6.0 ({old}) is older than the server (PostgreSQL 16."
            in out)
    assert ("so Hearth cannot back the database up with it.\n      → Install "
            "postgresql-client-16 (Debian and Ubuntu: `sudo apt install "
            "postgresql-client-16`") in out
    assert "or put a pg_dump of version 16 or newer first on PATH" in out
    assert "set dream_without_backup to true" in out
    assert make_url(postgres_url).password not in out

    monkeypatch.setenv("PATH", f"{postgres_server.binaries.bin}:{os.environ['PATH']}")
    code, out, _ = hearth_cli(capsys, tmp_path / "h", "doctor")
    assert code == 0
    assert "ok   pg_dump: 16." in out and "as new as the server" in out


def test_a_dream_stops_at_an_old_pg_dump_unless_told_to_go_on_and_then_says_so(
        capsys, postgres_url: str, tmp_path: Path, monkeypatch) -> None:
    from core.app import Hearth
    from core.storage.orm import Run
    from support.old_pg_dump import put_first_on_path

    monkeypatch.setenv("HEARTH_DATABASE_URL", postgres_url)
    monkeypatch.setenv("HEARTH_LLM_PROVIDER", "embedded")
    put_first_on_path(tmp_path / "old-client", monkeypatch)
    home = tmp_path / "h"

    code, out, err = hearth_cli(capsys, home, "dream", "--stage", "decay")
    assert code == 1
    assert "pg_dump 9.6.0" in err and "is older than the server (PostgreSQL 16." in err
    assert "sudo apt install postgresql-client-16" in err
    assert "Or set dream_without_backup to true" in err

    monkeypatch.setenv("HEARTH_DREAM_WITHOUT_BACKUP", "true")
    code, out, err = hearth_cli(capsys, home, "dream", "--stage", "decay")
    assert code == 0
    assert "warning: No backup was taken before this dream: pg_dump 9.6.0" in err
    assert "It went on without one because dream_without_backup is on." in err
    assert "backup: " not in out

    with Hearth.open(home) as opened, opened.storage.read() as session:
        refused, went_on = session.query(Run).filter(Run.kind == "dream").order_by(Run.id)
        assert refused.status == "failed" and "postgresql-client-16" in refused.error
        assert went_on.status == "done"
        assert went_on.error.startswith("No backup was taken before this dream: pg_dump")
        assert went_on.stages["backup"]["status"] == "skipped"
        assert went_on.stages["decay"]["status"] == "done"
    assert list((home / "backups").glob("*.dump")) == []


def test_a_forget_waits_for_a_short_transaction_elsewhere_but_not_for_a_long_one(
        postgres_url: str, tmp_path: Path, embedder) -> None:
    """A change watcher's poll or another process's read holds a snapshot for milliseconds:
    counted at the wrong moment, it made a forget say "in use" at random. A short one is
    waited for; one held past the wait still says so (its rows cannot be pruned yet)."""
    import threading

    from core.forgetting.service import FileCheck, ForgetService
    from core.home.paths import HearthPaths
    from core.knowledge.facts import FactService
    from core.storage.postgres import adapter
    from core.storage.postgres.adapter import PostgresStorage

    other = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://", 1))
    storage = PostgresStorage(postgres_url)

    def reading_for(seconds: float, started: threading.Event) -> None:
        # REPEATABLE READ: the snapshot lasts the transaction, as a long report's would
        with other.connect().execution_options(isolation_level="REPEATABLE READ") as connection:
            connection.exec_driver_sql("SELECT count(*) FROM user_facts").scalar_one()
            started.set()
            time.sleep(seconds)  # the transaction stays open, holding its snapshot

    def forget_while_reading(seconds: float, key: str) -> FileCheck:
        FactService(storage, embedder).remember(key, "4471-cobalt")
        started = threading.Event()
        reader = threading.Thread(target=reading_for, args=(seconds, started))
        reader.start()
        started.wait(10)
        try:
            forgetting = ForgetService(storage, embedder, HearthPaths(tmp_path))
            return forgetting.forget(key).report.files
        finally:
            reader.join()

    try:
        assert forget_while_reading(0.3, "pin") is FileCheck.ON_SERVER
        assert forget_while_reading(adapter.SNAPSHOT_WAIT_S + 1.5, "code") is FileCheck.IN_USE
    finally:
        storage.close()
        other.dispose()
