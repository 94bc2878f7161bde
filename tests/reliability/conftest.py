"""Reliability tests run Hearth the way a user does: the ``hearth`` command in a subprocess,
on a real data folder, with the real model and database; nothing inside the process is
patched. Each case checks what the user sees (exit code, the sentence on stderr) and what
is left in the data folder.

``hearth_cli(home, *args)`` runs one command; ``input`` may be bytes (for input that is not
UTF-8) or text. The environment is the test's (``HEARTH_HOME`` is already isolated) with
``env`` laid over it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.folder_contents import populate

PROJECT_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class CliRun:
    """What one ``hearth`` command did, as a user would see it."""

    code: int
    out: str
    err: str

    def assert_sentence(self) -> None:
        """A failure a person can act on: non-zero exit, words on stderr, no traceback."""
        assert self.code != 0, f"expected a failure, got exit 0: {self.out!r}"
        assert self.err.strip(), "a failure must say what went wrong"
        assert "Traceback" not in self.err and "Traceback" not in self.out, self.err

    def assert_ok(self) -> None:
        assert self.code == 0, f"exit {self.code}: {self.err}"
        assert "Traceback" not in self.err, self.err


CliRunner = Callable[..., CliRun]


def run_hearth(home: Path | str, *args: str, input: bytes | str | None = None,  # noqa: A002 (subprocess's name)
               env: Mapping[str, str] | None = None, timeout: float = 180,
               preexec: Callable[[], None] | None = None) -> CliRun:
    """Run ``hearth --home HOME ARGS...`` as its own process and wait for it."""
    merged = {**os.environ, **(env or {})}
    merged["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(PROJECT_ROOT), merged.get("PYTHONPATH", "")]))
    data = input.encode("utf-8") if isinstance(input, str) else input
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "--home", str(home), *args],
        input=data, capture_output=True, env=merged, timeout=timeout, cwd=PROJECT_ROOT,
        preexec_fn=preexec, check=False)
    return CliRun(done.returncode, done.stdout.decode("utf-8", "replace"),
                  done.stderr.decode("utf-8", "replace"))


@pytest.fixture
def hearth_cli() -> CliRunner:
    return run_hearth


@pytest.fixture(scope="module")
def populated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder with what a user would have in it, filled once per test module."""
    home = tmp_path_factory.mktemp("populated") / "home"
    populate(home)
    return home


@pytest.fixture
def home(populated: Path, tmp_path: Path) -> Path:
    """A copy of the populated folder, for one test to try to damage (modules that need
    another kind of folder define their own ``home``)."""
    return Path(shutil.copytree(populated, tmp_path / "populated"))
