"""Something in ``hearth.db``'s place that is not Hearth's database: a folder. Every command
says so in one sentence naming it (exit 1), and nothing in it changes."""

from __future__ import annotations

from pathlib import Path


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
