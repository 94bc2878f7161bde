"""The hygiene every test is held to (``tests/conftest.py``, ``support.hygiene``): no test
sees the real user's folders, and a CLI run in the test's process leaves nothing behind."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

import platformdirs
import pytest

from cli import context
from cli.main import run


def test_the_users_folders_are_the_tests_own(user_folders_isolated: Path) -> None:
    assert Path.home().is_relative_to(user_folders_isolated)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        assert Path(os.environ[name]).is_relative_to(user_folders_isolated)
    assert Path(platformdirs.user_config_dir("Hearth")).is_relative_to(user_folders_isolated)
    assert Path(platformdirs.user_data_dir("Hearth")).is_relative_to(user_folders_isolated)


def test_a_cli_run_keeps_no_handler_and_no_home(tmp_path: Path, capsys) -> None:
    core = logging.getLogger("core")
    handlers = list(core.handlers)
    assert run(["--home", str(tmp_path / "h"), "status"]) == 0
    assert core.handlers == handlers
    assert context.state.home is None
    capsys.readouterr()


@pytest.mark.parametrize("module", ["core", "core.learning.pipeline", "desktop.tray"])
def test_a_warning_from_hearths_own_code_fails_the_test(module: str) -> None:
    with pytest.raises(UserWarning, match="said by"):
        warnings.warn_explicit(f"said by {module}", UserWarning, f"{module}.py", 1,
                               module=module)


@pytest.mark.parametrize("module", ["sqlalchemy.orm", "corelib", "desktopish"])
def test_a_warning_from_elsewhere_is_only_reported(module: str) -> None:
    with warnings.catch_warnings(record=True) as caught:  # the filters in force, unchanged
        warnings.warn_explicit(f"said by {module}", UserWarning, f"{module}.py", 1,
                               module=module)
    assert [str(warning.message) for warning in caught] == [f"said by {module}"]
