"""Something in ``hearth.db``'s place that is not Hearth's database: a folder, or another
program's SQLite file. Every command says so in one sentence naming it (exit 1), and
nothing in it changes: another program's database is neither migrated nor switched to
Hearth's journal mode."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from datafolder import digest

FACT = ("facts", "set", "home_city", "Faro")


def test_a_folder_in_the_databases_place_is_named(hearth_cli, tmp_path: Path) -> None:
    home = tmp_path / "home"
    folder = home / "hearth.db"
    (folder / "kept").mkdir(parents=True)
    for args in [("stats",), FACT]:
        run = hearth_cli(home, *args)
        run.assert_sentence()
        assert run.code == 1, (args, run.code, run.err)
        assert f"{folder} is a folder" in run.err and "disk I/O" not in run.err, run.err
    assert [entry.name for entry in folder.iterdir()] == ["kept"]


def another_programs(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        connection.execute("INSERT INTO photos (name) VALUES ('beach.jpg')")
    connection.close()


def another_programs_with_alembic(database: Path) -> None:
    with sqlite3.connect(database) as connection:
        connection.execute("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL)")
        connection.execute("INSERT INTO alembic_version VALUES ('3f2a9c1b7d4e')")
        connection.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, email TEXT)")
    connection.close()


@pytest.mark.parametrize(("make", "commands"), [
    (another_programs, [("stats",), FACT]),
    (another_programs_with_alembic, [FACT]),
    ("hearths with a table of another program", [FACT]),
])
def test_another_programs_database_is_refused_and_left_as_it_was(
        hearth_cli, tmp_path: Path, sqlite_template, make, commands) -> None:
    home = tmp_path / "home"
    home.mkdir()
    database = home / "hearth.db"
    if callable(make):
        make(database)
    else:
        shutil.copyfile(sqlite_template.database, database)
        another_programs(database)
    before = digest(database)
    for args in commands:
        run = hearth_cli(home, *args)
        run.assert_sentence()
        assert run.code == 1, (args, run.code, run.err)
        assert f"{database} is not a Hearth database" in run.err, run.err
    assert digest(database) == before
    wal = home / "hearth.db-wal"  # an empty one is SQLite reading a WAL file read-only
    assert not wal.exists() or wal.stat().st_size == 0
