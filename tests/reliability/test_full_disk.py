"""A full disk: what would have been written fails with one sentence, and nothing already
stored is lost or damaged (the database checks out and holds the same values once space
is freed)."""

from __future__ import annotations

from pathlib import Path

import pytest
from datafolder import MORE_TURNS, integrity, make_home, only_backups, read_facts, write_transcript
from privileged import fill_disk, tmpfs  # noqa: F401 (a fixture)

DISK_KIB = 3072


@pytest.fixture
def home(tmpfs, embedder) -> Path:  # noqa: F811
    folder = tmpfs(DISK_KIB) / "home"
    make_home(folder, embedder)
    return folder


def leftovers(home: Path) -> list[str]:
    """Files a failed write could leave behind: partial backups, staged restores, exports."""
    names = [p.name for p in (home / "backups").iterdir() if ".partial" in p.name]
    names += [p.name for p in home.glob("hearth.db.restoring-*")]
    names += [p.name for p in home.parent.glob("export.json*")]
    return names


def test_a_full_disk_is_a_sentence_and_loses_nothing(hearth_cli, home: Path,
                                                     tmp_path: Path) -> None:
    database = home / "hearth.db"
    (backup,) = only_backups(home)
    before = read_facts(database)
    transcript = write_transcript(tmp_path)
    filler = fill_disk(home.parent)
    changing = [("facts", "set", "home_city", "Faro"), ("import", "transcript", str(transcript)),
                ("backup",), ("export", str(home.parent / "export.json")),
                ("restore", str(backup))]
    for args in changing:
        run = hearth_cli(home, *args)
        run.assert_sentence()
        assert "is full" in run.err, (args, run.err)
    assert leftovers(home) == []
    assert only_backups(home) == [backup]
    filler.unlink()
    assert integrity(database) == "ok"
    assert read_facts(database) == before
    hearth_cli(home, "facts", "set", "home_city", "Faro").assert_ok()
    assert read_facts(database)["home_city"] == "Faro"


def test_a_disk_that_fills_during_an_import(hearth_cli, home: Path, tmp_path: Path) -> None:
    """Some space left, so Hearth opens and starts writing, then SQLite meets the end."""
    database = home / "hearth.db"
    before = read_facts(database)
    many = {**MORE_TURNS, "sessions": [{**MORE_TURNS["sessions"][0], "turns": [
        {"turn_id": f"n{i}", "speaker": "user",
         "text": f"Entry {i} of my garden diary says the tomato bed number {i} needed "
                 f"{i % 7 + 1} litres of water and a long look at the leaves for aphids "
                 f"after the storm that came through the valley on day {i}"}
        for i in range(120)]}]}
    transcript = write_transcript(tmp_path, many)
    filler = fill_disk(home.parent, leave=256 * 1024)
    run = hearth_cli(home, "import", "transcript", str(transcript))
    run.assert_sentence()
    assert "is full" in run.err, run.err
    filler.unlink()
    assert integrity(database) == "ok"
    assert read_facts(database) == before
    hearth_cli(home, "import", "transcript", str(transcript)).assert_ok()
