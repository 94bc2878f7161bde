"""A damaged database (cut short, as by a full disk or a copy that stopped, or pages of it
overwritten): every command that meets the damage says so in one sentence with the way back
(restore a backup), and none of them writes over the damaged file, which may still be worth
rescuing."""

from __future__ import annotations

from pathlib import Path

import pytest
from datafolder import (
    digest,
    make_home,
    only_backups,
    read_facts,
    scramble,
    write_transcript,
)

EVERY_KIND = [("status",), ("stats",), ("facts", "list"), ("facts", "set", "home_city", "Faro"),
              ("search", "sister"), ("backup",), ("reembed",)]


@pytest.fixture
def home(tmp_path: Path, embedder) -> Path:
    folder = tmp_path / "home"
    make_home(folder, embedder)
    return folder


def cut(database: Path, keep: int) -> None:
    data = database.read_bytes()
    assert len(data) > keep
    database.write_bytes(data[:keep])


@pytest.mark.parametrize("keep", [8192, "half"])
def test_every_command_says_the_database_is_damaged(hearth_cli, home: Path, tmp_path: Path,
                                                    keep: int | str) -> None:
    database = home / "hearth.db"
    cut(database, database.stat().st_size // 2 if keep == "half" else int(keep))
    damaged = digest(database)
    commands = [*EVERY_KIND, ("export", str(tmp_path / "export.json")),
                ("import", "transcript", str(write_transcript(tmp_path)))]
    for args in commands:
        run = hearth_cli(home, *args)
        run.assert_sentence()
        assert "damaged" in run.err and "hearth restore" in run.err, (args, run.err)
    assert digest(database) == damaged
    assert not (tmp_path / "export.json").exists()


def test_restoring_a_backup_over_a_damaged_database_keeps_the_damaged_one(
        hearth_cli, home: Path) -> None:
    database = home / "hearth.db"
    (backup,) = only_backups(home)
    cut(database, 8192)
    damaged = digest(database)
    restored = hearth_cli(home, "restore", str(backup))
    restored.assert_ok()
    (aside,) = home.glob("hearth.db.before-restore-*")
    assert digest(aside) == damaged
    assert read_facts(database)["home_city"] == "Porto"
    hearth_cli(home, "facts", "list").assert_ok()


@pytest.mark.parametrize(("table", "others"), [
    ("memories", [("stats",), ("search", "sister"), ("backup",)]),
    ("vector_index_meta", [("search", "sister")]),  # read by every command that embeds
])
def test_a_write_is_refused_where_reading_finds_the_database_damaged(
        hearth_cli, home: Path, table: str, others: list[tuple[str, ...]]) -> None:
    """The fact's own pages are intact, so the write alone would not meet the damage; the
    pages the reading commands need are not, and they say so. A backup, which copies pages
    without reading them, says the database is damaged, not the copy it made."""
    database = home / "hearth.db"
    backups = only_backups(home)
    scramble(database, table)
    damaged = digest(database)
    for args in [*others, ("facts", "set", "home_city", "Faro")]:
        run = hearth_cli(home, *args)
        run.assert_sentence()
        assert run.code == 1, (args, run.code, run.err)
        assert f"{database} is damaged" in run.err and "hearth restore" in run.err, (args,
                                                                                     run.err)
    assert digest(database) == damaged
    assert only_backups(home) == backups
