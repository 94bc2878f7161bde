"""``hearth migrate``: a home copied SQLite → PostgreSQL → SQLite, row for row and vector
for vector, against the real PostgreSQL with pgvector of the tests (``support.postgres``);
refusals, an interrupted copy, and the command in a subprocess."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import func, inspect, select, text
from sqlalchemy.engine import make_url

from core.config import Settings
from core.knowledge.memories import MemoryService, MemorySpec
from core.recall.service import RecallQuery, RecallService
from core.scheduling import job_store_table
from core.storage import orm
from core.storage.port import IndexedKind, StoragePort
from core.storage.postgres.adapter import PostgresStorage
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.transfer import CopyCancelled, TargetNotEmpty, copy_database
from support.every_table import T0, fill_every_table
from support.long_text import diary_with

ODD = "Zoë’s café — 東京 🏔️‍🔥 עברית e\u0301 \u200b tab\tnew\nline \\ back\\slash 'quote\" %_"
NEEDLE = "The spare key to the allotment shed hangs behind the blue watering can."


def fill_home(storage: StoragePort, embedder: Any) -> None:
    """Every table, plus what a copy could lose: a long memory with windows, odd Unicode
    in text and JSON, a run's changelog, a job in the scheduler's store."""
    fill_every_table(storage, embedder)
    memories = MemoryService(storage, embedder)
    memories.add_many([MemorySpec(diary_with(NEEDLE), category="diary"),
                       MemorySpec(ODD, tags=[ODD], category="odd")])
    with storage.write() as session:
        session.add(orm.Run(kind="dream", status="ok", started_at=T0 + timedelta(hours=1),
                            changes=[{"what": f"merged {ODD}", "undo": {"ids": [1, 2]}}],
                            stages={"merge": {"ms": 0.125, "ok": True, "none": None}}))
        session.add(orm.ContextEvent(event_type="note", content=ODD, source_metadata={ODD: [ODD]},
                                     created_at=T0 + timedelta(microseconds=1)))
        jobs = job_store_table()
        jobs.create(session.connection(), checkfirst=True)
        session.execute(jobs.insert(), [{"id": "dream", "next_run_time": 1767323045.123456,
                                         "job_state": bytes(range(256)) * 3}])


def rows_of(storage: StoragePort) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table (and the job store), by id."""
    tables = [*orm.Base.metadata.sorted_tables, job_store_table()]
    found = {}
    with storage.read() as session:
        for table in tables:
            key = next(iter(table.primary_key.columns))
            found[table.name] = [dict(row) for row in session.execute(
                select(table).order_by(key)).mappings()]
    return found


def vectors_of(storage: StoragePort) -> dict[str, list[tuple[Any, ...]]]:
    """Every stored vector and window, as exact bytes."""
    found: dict[str, list[tuple[Any, ...]]] = {}
    with storage.read() as session:
        for kind in IndexedKind:
            model = {IndexedKind.MEMORY: orm.Memory, IndexedKind.NOTE: orm.Note,
                     IndexedKind.INTERACTION: orm.Interaction,
                     IndexedKind.FACT: orm.UserFact}[kind]
            ids = list(session.execute(select(model.id)).scalars())
            found[kind.value] = [
                (stored.id, stored.vector.astype(np.float32).tobytes(),
                 stored.chunks.windows, stored.chunks.vectors.astype(np.float32).tobytes())
                for stored in storage.search.stored_embeddings(session, kind, ids)]
    return found


def recalled(storage: StoragePort, embedder: Any, text: str) -> list[int]:
    results = RecallService(storage, embedder, Settings()).recall(RecallQuery(text, k=5))
    return [result.id for result in results]


@pytest.fixture
def empty_postgres(postgres_server) -> Iterator[str]:
    """A migrated PostgreSQL database with no rows (the home server's fresh database)."""
    name = postgres_server.create_database()
    yield postgres_server.url(name)
    postgres_server.drop_database(name)


def test_a_home_goes_to_postgresql_and_back_row_for_row(tmp_path: Path, embedder: Any,
                                                        empty_postgres: str) -> None:
    home = SqliteStorage(tmp_path / "home.db")
    server = PostgresStorage(empty_postgres)
    back = SqliteStorage(tmp_path / "back" / "hearth.db")
    try:
        fill_home(home, embedder)
        before, vectors = rows_of(home), vectors_of(home)
        assert all(before.values()), [name for name, rows in before.items() if not rows]
        with home.read() as session:
            windows = session.scalar(select(func.count()).select_from(
                orm.Base.metadata.tables["memories"]).where(orm.Memory.category == "diary"))
        assert windows == 1 and any(entry[2] for entry in vectors["memory"])
        seen: list[tuple[int, int]] = []

        there = copy_database(home, server, job_store=job_store_table(),
                              progress=lambda done, total: seen.append((done, total)))
        again = copy_database(server, back, job_store=job_store_table())

        assert rows_of(server) == before and rows_of(back) == before
        assert vectors_of(server) == vectors and vectors_of(back) == vectors
        assert there.total == again.total == sum(len(rows) for rows in before.values())
        assert there.revision == server.schema_revision() == back.schema_revision()
        assert seen[0] == (0, there.total) and seen[-1] == (there.total, there.total)
        with server.read() as session:  # set aside while loading, built again at the end
            indexes = set(session.execute(text(
                "SELECT indexname FROM pg_indexes WHERE indexname LIKE '%_hnsw'")).scalars())
        assert indexes == {f"{kind}_vec{part}_hnsw" for kind in
                           ("memories", "notes", "interactions", "user_facts")
                           for part in ("", "_chunks")}
        for storage in (server, back):  # nothing of the copy is left behind
            with storage.read() as session:
                assert not inspect(session.connection()).has_table("hearth_copy_unfinished")
        for question in ("where is the key to the shed?", "moving to Porto", ODD):
            assert recalled(server, embedder, question) == recalled(home, embedder, question)
            assert recalled(back, embedder, question) == recalled(home, embedder, question)
        assert recalled(server, embedder, "key to the shed")[0] == next(
            row["id"] for row in before["memories"] if row["category"] == "diary")
        # opened again as Hearth opens them, nothing is queued for embedding again
        again_server, again_back = PostgresStorage(empty_postgres), SqliteStorage(back.path)
        try:
            for reopened in (again_server, again_back):
                assert not reopened.search.ensure_dimensions(embedder.dimensions)
                assert rows_of(reopened) == before and vectors_of(reopened) == vectors
        finally:
            again_server.close()
            again_back.close()
        # PostgreSQL's sequences went past the copied ids: new rows get new ids
        newest = max(row["id"] for row in before["memories"])
        (added,) = MemoryService(server, embedder).add_many([MemorySpec("A new memory.")])
        assert added == newest + 1
    finally:
        for storage in (home, server, back):
            storage.close()


def test_a_target_that_holds_anything_is_refused_and_a_stopped_copy_says_so(
        tmp_path: Path, embedder: Any) -> None:
    home = SqliteStorage(tmp_path / "home.db")
    other = SqliteStorage(tmp_path / "other.db")
    try:
        fill_home(home, embedder)
        polls = iter(range(10_000))
        jobs = job_store_table()

        with pytest.raises(CopyCancelled, match="stopped; it is marked unfinished"):
            copy_database(home, other, job_store=jobs, cancelled=lambda: next(polls) == 3)
        partial = sum(len(rows) for rows in rows_of(other).values())
        assert 0 < partial < sum(len(rows) for rows in rows_of(home).values())
        with pytest.raises(TargetNotEmpty, match="stopped before it finished") as stopped:
            copy_database(home, other, job_store=jobs)
        assert "--replace" in stopped.value.hint

        copy_database(home, other, replace=True, job_store=jobs)
        assert rows_of(other) == rows_of(home)
        with pytest.raises(TargetNotEmpty, match=r"already holds \d+ rows"):
            copy_database(home, other, job_store=jobs)
    finally:
        home.close()
        other.close()


def test_the_command_moves_a_home_to_postgresql_and_switches_to_it(
        tmp_path: Path, embedder: Any, isolated_home: Path, empty_postgres: str) -> None:
    """``hearth migrate --to URL --switch`` in a subprocess, as a person runs it (on a
    machine without a system keyring: the tests' environment); the password is never
    printed nor written into settings.json, but into the data folder's pass file, for the
    user alone, which the URL names and the output points to; the next command, and a new
    Hearth in this process, read the home from PostgreSQL."""
    from core.app import Hearth

    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        fill_home(hearth.storage, embedder)
        before = rows_of(hearth.storage)
    password = str(make_password(empty_postgres))
    environment = {**os.environ, "HEARTH_HOME": str(isolated_home)}

    moved = subprocess.run([sys.executable, "-m", "cli.main", "migrate", "--to",
                            empty_postgres, "--switch"], capture_output=True, text=True,
                           env=environment, timeout=300, check=False)

    assert moved.returncode == 0, moved.stderr
    passfile = (isolated_home / "database.pgpass").resolve()
    said = " ".join(moved.stdout.split())  # rich wraps long lines
    assert "This home now uses postgresql://hearth@127.0.0.1:" in said, said
    assert f"Its password is kept in {passfile}, not in settings.json." in said
    assert password not in moved.stdout + moved.stderr
    assert password not in (isolated_home / "settings.json").read_text()
    settings = json.loads((isolated_home / "settings.json").read_text())
    stored = make_url(settings["database_url"])
    plain = make_url(empty_postgres)
    assert stored.password is None and stored.query == {"passfile": str(passfile)}
    assert (stored.username, stored.host, stored.port, stored.database) == (
        plain.username, plain.host, plain.port, plain.database)
    assert stat.S_IMODE(passfile.stat().st_mode) == 0o600
    assert password in passfile.read_text()
    with Hearth.open(isolated_home, embedder=embedder) as reopened:  # a new Hearth
        assert reopened.storage.location.startswith("postgresql://hearth@127.0.0.1:")
        assert rows_of(reopened.storage) == before
    listed = subprocess.run([sys.executable, "-m", "cli.main", "facts", "list",
                             "--json"], capture_output=True, text=True, env=environment,
                            timeout=300, check=False)
    assert listed.returncode == 0, listed.stderr
    assert [fact["key"] for fact in json.loads(listed.stdout)] == ["home_city"]
    server = PostgresStorage(empty_postgres)
    try:
        assert rows_of(server) == before
    finally:
        server.close()

    again = subprocess.run([sys.executable, "-m", "cli.main", "migrate", "--to",
                            empty_postgres], capture_output=True, text=True,
                           env=environment, timeout=300, check=False)
    assert again.returncode != 0
    assert "is the database being copied" in again.stderr


def make_password(url: str) -> str:
    from sqlalchemy.engine import make_url

    password = make_url(url).password
    assert password
    return password


def test_ctrl_c_leaves_the_target_unfinished_and_the_next_run_says_so(
        tmp_path: Path, embedder: Any, isolated_home: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Ctrl-C in the middle of ``hearth migrate`` (a KeyboardInterrupt after the first page
    went in): exit 130 and a sentence; the next run names the unfinished copy and
    ``--replace`` finishes it; the home itself is untouched and still in use."""
    from contextlib import contextmanager

    from core.app import Hearth
    from cli import migrate_cmd
    from cli.main import run

    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        fill_home(hearth.storage, embedder)
        before = rows_of(hearth.storage)
    monkeypatch.setattr("core.storage.transfer.PAGE_ROWS", 2)

    @contextmanager
    def interrupted(_label: str, *, enabled: bool = True) -> Iterator[Any]:
        def update(done: int, _total: int) -> None:
            if done >= 6:
                raise KeyboardInterrupt

        yield update

    target = f"sqlite:///{tmp_path / 'moved.db'}"
    with monkeypatch.context() as patched:
        patched.setattr(migrate_cmd, "progress_bar", interrupted)
        assert run(["migrate", "--to", target]) == 130
    assert "stopped; it is marked unfinished" in capsys.readouterr().err

    assert run(["migrate", "--to", target]) == 1
    assert "was stopped before it finished" in capsys.readouterr().err
    assert run(["migrate", "--to", target, "--replace"]) == 0
    said = capsys.readouterr().out
    assert "This home still uses the embedded SQLite database" in said and "--switch" in said
    moved = SqliteStorage(tmp_path / "moved.db")
    try:
        assert rows_of(moved) == before
    finally:
        moved.close()
    stored = isolated_home / "settings.json"  # without --switch the home keeps its database
    assert not stored.exists() or "database_url" not in json.loads(stored.read_text())


def test_a_home_in_use_is_not_copied(tmp_path: Path, isolated_home: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The copy holds the folder's exclusive lock: with the window (or any process) holding
    the folder open, it is refused at once and nothing is written anywhere."""
    from cli.main import run
    from core.home.instance_lock import FolderLock

    with FolderLock(isolated_home, exclusive=False):  # what Hearth.open holds
        code = run(["migrate", "--to", f"sqlite:///{tmp_path / 'moved.db'}"])

    assert code == 1
    assert "Another Hearth process is using" in capsys.readouterr().err
    assert not (tmp_path / "moved.db").exists()


def test_moving_to_a_server_an_old_pg_dump_cannot_back_up_says_what_to_install(
        tmp_path: Path, isolated_home: Path, empty_postgres: str,
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Set-up is when to hear it, not the first night: the copy and the switch are done,
    and a warning names the pg_dump that is too old and the package to install."""
    from cli.main import run
    from support.old_pg_dump import put_first_on_path

    old = put_first_on_path(tmp_path / "old-client", monkeypatch)

    assert run(["migrate", "--to", empty_postgres, "--switch"]) == 0

    said = capsys.readouterr()
    assert "This home now uses postgresql://hearth@" in said.out  # its password kept out
    assert (f"warning: pg_dump 9.6.0 ({old}) is older than the server (PostgreSQL 16."
            in said.err)
    assert "Install postgresql-client-16 (Debian and Ubuntu: `sudo apt install " \
           "postgresql-client-16`" in said.err
    assert "every dream stops before it starts" in said.err
    assert make_password(empty_postgres) not in said.out + said.err
