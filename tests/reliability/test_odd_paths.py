"""Data folders whose names mean something in a URI (``?``, ``#``, ``%``), or hold spaces
or non-ASCII letters: the database lands inside the folder named, and two such folders
never share one."""

from __future__ import annotations

import json
from pathlib import Path

from datafolder import read_facts

ODD_NAMES = ["a?x", "a?y", "b#1", "c%41", "c%2541", "d e", "é 日本", "file:f?mode=ro"]


def test_each_odd_folder_gets_its_own_database(hearth_cli, tmp_path: Path) -> None:
    parent = tmp_path / "homes"
    parent.mkdir()
    for name in ODD_NAMES:
        hearth_cli(parent / name, "facts", "set", "folder", name).assert_ok()
    for name in ODD_NAMES:
        assert read_facts(parent / name / "hearth.db") == {"folder": name}
    for name in ("a?y", "c%2541"):  # reading back through Hearth finds the same database
        listed = hearth_cli(parent / name, "facts", "list", "--json")
        listed.assert_ok()
        assert [f["value"] for f in json.loads(listed.out)] == [name]
    assert sorted(p.name for p in parent.iterdir()) == sorted(ODD_NAMES)  # nothing outside


def test_backup_and_restore_in_an_odd_folder(hearth_cli, tmp_path: Path) -> None:
    home = tmp_path / "x?y#z %41 é"
    hearth_cli(home, "facts", "set", "city", "Lisbon").assert_ok()
    made = hearth_cli(home, "backup", "--json")
    made.assert_ok()
    backup = Path(json.loads(made.out)["path"])
    assert backup.parent == home / "backups"
    hearth_cli(home, "facts", "set", "city", "Porto").assert_ok()
    hearth_cli(home, "restore", str(backup)).assert_ok()
    assert read_facts(home / "hearth.db") == {"city": "Lisbon"}
    dump = home.parent / "export?.json"
    hearth_cli(home, "export", str(dump)).assert_ok()
    assert json.loads(dump.read_text())["tables"]["user_facts"][0]["value"] == "Lisbon"
