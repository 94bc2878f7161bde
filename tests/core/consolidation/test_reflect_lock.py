"""A manual reflection never runs beside a dream cycle (which reflects itself)."""

from __future__ import annotations

from cli.main import run
from core.home.instance_lock import FolderLock


def test_hearth_reflect_refuses_while_a_dream_cycle_runs(capsys, tmp_path) -> None:
    home = tmp_path / "h"
    with FolderLock(home, exclusive=True, name="dream.lock"):  # another process's dream
        code = run(["--home", str(home), "reflect"])
    err = capsys.readouterr().err
    assert code == 1
    assert "dream cycle is already running" in err
