"""``HEARTH_PASSPHRASE`` reaches Hearth, never the programs Hearth starts: the ``hearth``
command takes it out of its environment at start (``encryption.passphrase_taken_from_
environment``), and runs what it starts with an environment without it
(``encryption.environment_for_child``). Seen for real: ``hearth daemon --once delivery`` in
a subprocess, on an encrypted folder opened with the variable, shows a due reminder with a
``notify-send`` that writes down the environment it was given. (The window's dream child:
``tests/desktop/dialogs/test_passphrase.py``.)"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core import clock
from core.app import Hearth
from cli.main import run
from core.home import encryption

ROOT = Path(__file__).resolve().parents[3]
PASSPHRASE = "a kettle on the hob at seven"


def test_a_program_the_daemon_starts_does_not_see_the_passphrase(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = datetime.now(UTC).replace(microsecond=0)
    with Hearth.open(isolated_home) as opened, clock.shifted(timedelta(hours=-2)):
        opened.reminders.create("Call the dentist", real - timedelta(hours=1), zone="UTC")
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    assert run(["--home", str(isolated_home), "encrypt"]) == 0
    assert os.environ[encryption.PASSPHRASE_ENV] == PASSPHRASE  # put back after the run
    seen = tmp_path / "environment.txt"
    tools = tmp_path / "bin"
    tools.mkdir()
    script = tools / "notify-send"
    script.write_text(f"#!/bin/sh\nenv > {seen}\n")
    script.chmod(0o755)
    environment = {**os.environ, encryption.PASSPHRASE_ENV: PASSPHRASE,
                   "PATH": f"{tools}:/usr/bin:/bin", "HEARTH_TEST_INHERITED": "yes"}

    done = subprocess.run([sys.executable, "-m", "cli.main", "--home",
                           str(isolated_home), "daemon", "--once", "delivery"],
                          capture_output=True, text=True, env=environment, cwd=ROOT,
                          timeout=300, check=False)

    assert done.returncode == 0, done.stderr
    assert "1 reminder(s)" in done.stdout  # the folder opened with the passphrase
    inherited = seen.read_text().splitlines()
    assert "HEARTH_TEST_INHERITED=yes" in inherited  # notify-send ran, with an environment
    assert not [line for line in inherited if line.startswith(encryption.PASSPHRASE_ENV)]
    assert PASSPHRASE not in seen.read_text()


def test_the_command_keeps_the_passphrase_for_itself_while_it_runs(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """In the command's own process: out of ``os.environ`` (so out of every child, however
    it is started) while the command runs, yet given to the folder; back afterwards."""
    monkeypatch.setenv(encryption.PASSPHRASE_ENV, PASSPHRASE)
    with encryption.passphrase_taken_from_environment():
        assert encryption.PASSPHRASE_ENV not in os.environ
        assert encryption.given_passphrase() == PASSPHRASE
        assert encryption.PASSPHRASE_ENV not in encryption.environment_for_child()
    assert os.environ[encryption.PASSPHRASE_ENV] == PASSPHRASE
    monkeypatch.delenv(encryption.PASSPHRASE_ENV)
    with encryption.passphrase_taken_from_environment():
        assert encryption.given_passphrase() is None
    assert encryption.PASSPHRASE_ENV not in os.environ
