"""An import stopped with Ctrl-C is recorded as interrupted, not finished: ``hearth
import notes`` gets SIGINT part-way through a folder, exits 130, and ``hearth imports``
lists the run as interrupted with what it committed counted."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

from reliability.conftest import CliRunner
from reliability.test_stale_states import start_hearth, until

NOTES = 1280
"""Twenty groups of 64 notes: seconds of embedding left when the first group is in."""


def memories_in(home: Path) -> int:
    """How many memories the database holds, read without opening the folder."""
    connection = sqlite3.connect(f"file:{home / 'hearth.db'}?mode=ro", uri=True)
    try:
        return connection.execute("SELECT count(*) FROM memories").fetchone()[0]
    finally:
        connection.close()


def test_ctrl_c_during_an_import_records_the_run_interrupted(
        sqlite_template, tmp_path: Path, hearth_cli: CliRunner) -> None:
    home = sqlite_template.copy_home(tmp_path / "home")
    vault = tmp_path / "vault"
    vault.mkdir()
    for index in range(NOTES):
        (vault / f"Note {index:04d}.md").write_text(f"Note {index} of the pile.\n",
                                                    encoding="utf-8")
    importing = start_hearth(home, {}, "import", "notes", str(vault), "--json")
    try:
        until(lambda: memories_in(home), "the first group of notes was committed", importing)
        importing.send_signal(signal.SIGINT)
        _, err = importing.communicate(timeout=120)
    finally:
        if importing.poll() is None:
            importing.kill()
            importing.communicate()

    assert importing.returncode == 130, err.decode(errors="replace")
    listed = hearth_cli(home, "imports", "--json")
    listed.assert_ok()
    (run,) = json.loads(listed.out)
    committed = memories_in(home)
    assert (run["outcome"], run["added"]) == ("interrupted", committed)
    assert run["finished_at"] is not None and 0 < committed < NOTES
    table = hearth_cli(home, "imports")
    table.assert_ok()
    assert "interrupted" in table.out and "done" not in table.out
