"""A data folder Hearth cannot write (a read-only mount, immutable files): the commands that
only read work; the ones that would change something say so in one sentence."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from datafolder import digest, integrity, make_home, only_backups, read_facts, write_transcript
from privileged import immutable, read_only_view  # noqa: F401 (fixtures)

READING = [("status", "--json"), ("stats", "--json"), ("facts", "list", "--json"),
           ("facts", "history", "home_city", "--json"), ("search", "sister moved", "--json"),
           ("doctor",)]


@pytest.fixture
def home(tmp_path: Path, embedder) -> Path:
    folder = tmp_path / "home"
    make_home(folder, embedder)
    return folder


@pytest.fixture(params=["read-only mount", "immutable files"])
def locked_away(request, home: Path) -> Callable[[], Path]:
    """Make ``home`` unwritable the one way or the other; returns the path to use."""
    def lock() -> Path:
        if request.param == "read-only mount":
            return request.getfixturevalue("read_only_view")(home)
        flag = request.getfixturevalue("immutable")
        flag(*home.rglob("*"), home)
        return home
    return lock


def test_reading_commands_work_on_a_read_only_folder(hearth_cli, home: Path, tmp_path: Path,
                                                     locked_away) -> None:
    before = digest(home / "hearth.db")
    folder = locked_away()
    for args in READING:
        hearth_cli(folder, *args).assert_ok()
    facts = json.loads(hearth_cli(folder, "facts", "list", "--json").out)
    assert {f["key"]: f["value"] for f in facts} == {"home_city": "Porto", "partner_name": "Ana"}
    found = json.loads(hearth_cli(folder, "search", "where did my sister move", "--json").out)
    assert found and found[0]["provenance"]["turn_id"] == "t1"
    dump = tmp_path / "elsewhere" / "export.json"
    hearth_cli(folder, "export", str(dump)).assert_ok()
    assert {r["value"] for r in json.loads(dump.read_text())["tables"]["user_facts"]} == {
        "Porto", "Ana"}
    assert digest(home / "hearth.db") == before


def test_changing_commands_say_the_folder_is_read_only(hearth_cli, home: Path, tmp_path: Path,
                                                       locked_away) -> None:
    before = digest(home / "hearth.db")
    (backup,) = only_backups(home)
    transcript = write_transcript(tmp_path)
    folder = locked_away()
    changing = [("facts", "set", "home_city", "Faro"), ("facts", "forget", "partner_name"),
                ("import", "transcript", str(transcript)), ("backup",),
                ("restore", str(backup)), ("reembed",)]
    for args in changing:
        run = hearth_cli(folder, *args)
        run.assert_sentence()
        assert "read-only" in run.err, (args, run.err)
    assert digest(home / "hearth.db") == before
    assert only_backups(home) == [backup]
    assert read_facts(home / "hearth.db") == {"home_city": "Porto", "partner_name": "Ana"}
    assert integrity(home / "hearth.db") == "ok"


def test_a_read_only_database_behind_this_version_is_not_migrated(hearth_cli, home: Path,
                                                                  read_only_view) -> None:  # noqa: F811 (the fixture)
    connection = sqlite3.connect(home / "hearth.db")
    connection.execute("UPDATE alembic_version SET version_num = '0006'")
    connection.commit()
    connection.close()
    before = digest(home / "hearth.db")
    run = hearth_cli(read_only_view(home), "stats")
    run.assert_sentence()
    assert "older" in run.err and "read-only" in run.err
    assert digest(home / "hearth.db") == before


def test_a_new_folder_on_a_read_only_disk_is_a_sentence(hearth_cli, tmp_path: Path,
                                                        read_only_view) -> None:  # noqa: F811 (the fixture)
    empty = tmp_path / "empty"
    empty.mkdir()
    view = read_only_view(empty)
    for args in [("stats",), ("facts", "set", "a", "b")]:
        run = hearth_cli(view / "home", *args)
        run.assert_sentence()
        assert "read-only" in run.err, run.err
    assert list(empty.iterdir()) == []
