"""The hygiene every test is held to (``tests/conftest.py``, ``support.hygiene``): no test
sees the real user's folders, and a CLI run in the test's process leaves nothing behind."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import platformdirs

from core.cli import context
from core.cli.main import run


def test_the_users_folders_are_the_tests_own(tmp_path: Path) -> None:
    assert Path.home().is_relative_to(tmp_path)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        assert Path(os.environ[name]).is_relative_to(tmp_path)
    assert Path(platformdirs.user_config_dir("Hearth")).is_relative_to(tmp_path)
    assert Path(platformdirs.user_data_dir("Hearth")).is_relative_to(tmp_path)


def test_a_cli_run_keeps_no_handler_and_no_home(tmp_path: Path, capsys) -> None:  # noqa: ANN001
    core = logging.getLogger("core")
    handlers = list(core.handlers)
    assert run(["--home", str(tmp_path / "h"), "status"]) == 0
    assert core.handlers == handlers
    assert context.state.home is None
    capsys.readouterr()
