"""Another account on the computer reads nothing Hearth writes (issue #10: the user
``nobody`` read a passport number out of a 0644 database).

Each case runs real commands on a data folder inside a folder every account may enter and
list, as a home directory or ``/tmp`` is (pytest's own ``tmp_path`` is 0700 and would hide
the problem), then checks the mode bits and tries, as ``nobody``, to list every folder and
read every file. A control file proves that ``nobody`` can read what is left open, so the
check can fail.
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parents[2]
NOBODY = 65534
CliRunner = Callable[..., "CliRun"]  # noqa: F821 (the hearth_cli fixture, conftest.py)

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="reading as the user nobody needs root and setpriv (util-linux)")


@pytest.fixture
def shared() -> Iterator[Path]:
    """A 0755 folder under /tmp: any account may enter it and list it."""
    folder = Path(tempfile.mkdtemp(dir="/tmp", prefix="hearth-perms-"))
    folder.chmod(0o755)
    control = folder / "control.txt"
    control.write_text("left open on purpose")
    control.chmod(0o644)
    assert nobody_can_read(control), "nobody must be able to read an open file here"
    yield folder
    shutil.rmtree(folder)


def as_nobody(*command: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}",
                           "--clear-groups", *command], capture_output=True, check=False)


def nobody_can_read(path: Path) -> bool:
    """Can ``nobody`` list this folder or read this file?"""
    return as_nobody("ls" if path.is_dir() else "cat", str(path)).returncode == 0


def everything_in(home: Path) -> list[Path]:
    return [home, *sorted(home.rglob("*"))]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


def assert_private(paths: list[Path]) -> None:
    """Folders 0700, files 0600, and ``nobody`` can open none of them."""
    expected = {path: 0o700 if path.is_dir() else 0o600 for path in paths}
    assert {path: mode(path) for path in paths} == expected
    readable = [path for path in paths if nobody_can_read(path)]
    assert readable == [], f"nobody could open {readable}"


def test_nothing_hearth_writes_can_be_read_by_another_user(hearth_cli: CliRunner,
                                                           shared: Path) -> None:
    """Checked after every command, as a command's own files come after its repair of the
    folder (``secure_home``): only the umask makes them private."""
    home = shared / "home"
    hearth_cli(home, "facts", "set", "passport", "X1234567", "--category", "personal"
               ).assert_ok()
    assert_private(everything_in(home))
    (home / "backups").write_text("")  # a file where the folder goes: an unexpected error
    failed = hearth_cli(home, "backup")
    failed.assert_sentence()
    assert "hearth.log" in failed.err
    assert_private(everything_in(home))
    (home / "backups").unlink()
    for command in (("backup",), ("export", str(home / "exports" / "all.json")),
                    ("daemon", "--once", "decay")):
        hearth_cli(home, *command).assert_ok()
        assert_private(everything_in(home))
    outside = shared / "export.json"
    hearth_cli(home, "export", str(outside)).assert_ok()

    written = everything_in(home)
    names = {path.relative_to(home).as_posix() for path in written}
    assert {"hearth.db", "hearth.lock", "logs/hearth.log", "logs/daemon.log",
            "exports/all.json"} <= names
    assert any(name.startswith("backups/hearth-") for name in names)
    assert_private(written + [outside])
    assert "X1234567" in outside.read_text(encoding="utf-8")  # the secret is in there


def test_a_running_hearth_keeps_its_write_ahead_log_private(hearth_cli: CliRunner,
                                                            shared: Path) -> None:
    home = shared / "home"
    hearth_cli(home, "facts", "set", "bank_pin", "4471").assert_ok()
    daemon = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--home", str(home), "daemon"],
        cwd=PROJECT_ROOT, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wal = home / "hearth.db-wal"
        deadline = time.monotonic() + 120
        while not (wal.exists() and (home / "hearth.db-shm").exists()):
            assert daemon.poll() is None, f"the daemon stopped with {daemon.returncode}"
            assert time.monotonic() < deadline, "the daemon never opened the database"
            time.sleep(0.2)
        assert_private(everything_in(home))
    finally:
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=60)


@pytest.mark.parametrize("command", [("facts", "list"), ("backup", "--list")])
def test_a_folder_an_older_version_left_open_is_repaired(hearth_cli: CliRunner, shared: Path,
                                                        command: tuple[str, ...]) -> None:
    home = shared / "home"
    hearth_cli(home, "facts", "set", "passport", "X1234567").assert_ok()
    hearth_cli(home, "backup").assert_ok()
    for path in everything_in(home):  # what versions before issue #10 left behind
        path.chmod(0o755 if path.is_dir() else 0o644)
    assert nobody_can_read(home / "hearth.db")

    repaired = hearth_cli(home, *command)

    repaired.assert_ok()
    assert f"Made {home} private" in repaired.err
    assert_private(everything_in(home))


def test_only_hearths_own_files_change_and_links_are_not_followed(hearth_cli: CliRunner,
                                                                  shared: Path) -> None:
    """Pointed at a folder that holds other things (``--home ~``), Hearth closes the folder
    but changes nothing of the rest; a link is never followed out of the folder."""
    home = shared / "home"
    (home / "photos").mkdir(parents=True)
    (home / "photos" / "beach.jpg").write_bytes(b"...")
    elsewhere = shared / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "theirs.txt").write_text("someone else's file")
    (home / "cache").symlink_to(elsewhere)  # a name Hearth uses, pointing out of the folder
    for path in (home, home / "photos", elsewhere):
        path.chmod(0o755)
    for path in (home / "photos" / "beach.jpg", elsewhere / "theirs.txt"):
        path.chmod(0o644)

    hearth_cli(home, "facts", "set", "city", "Lisbon").assert_ok()

    assert (mode(home), mode(home / "hearth.db")) == (0o700, 0o600)
    assert (mode(home / "photos"), mode(home / "photos" / "beach.jpg")) == (0o755, 0o644)
    assert (mode(elsewhere), mode(elsewhere / "theirs.txt")) == (0o755, 0o644)


def test_a_folder_shared_by_design_is_not_closed(hearth_cli: CliRunner, shared: Path) -> None:
    """``--home`` on a sticky folder like /tmp: closing it would lock every other user out
    of it, so Hearth's files are private and a warning says the rest."""
    home = shared / "everyone"
    home.mkdir()
    home.chmod(0o1777)

    ran = hearth_cli(home, "facts", "set", "city", "Lisbon")

    ran.assert_ok()
    assert "shared with every user" in ran.err
    assert mode(home) == 0o1777
    assert_private([path for path in everything_in(home) if path != home])


def test_a_file_that_cannot_be_changed_is_a_warning_not_a_failure(hearth_cli: CliRunner,
                                                                  shared: Path) -> None:
    home = shared / "home"
    hearth_cli(home, "facts", "set", "city", "Lisbon").assert_ok()
    hearth_cli(home, "backup").assert_ok()
    [stuck] = (home / "backups").glob("hearth-*.db")
    stuck.chmod(0o644)
    home.chmod(0o755)
    if subprocess.run(["chattr", "+i", str(stuck)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i (an immutable file, which even root cannot chmod) is not "
                    "supported here")
    try:
        listed = hearth_cli(home, "facts", "list", "--json")
    finally:
        subprocess.run(["chattr", "-i", str(stuck)], check=True)

    listed.assert_ok()
    assert '"Lisbon"' in listed.out
    assert f"Could not make {stuck} private" in listed.err
    assert mode(home) == 0o700


def test_an_export_is_private_wherever_it_goes(hearth_cli: CliRunner, shared: Path) -> None:
    home = shared / "home"
    hearth_cli(home, "facts", "set", "passport", "X1234567").assert_ok()
    existing = shared / "old-export.json"
    existing.write_text("{}")
    existing.chmod(0o644)

    replaced = hearth_cli(home, "export", str(existing))

    replaced.assert_ok()
    assert "warning" not in replaced.err  # others may list /tmp/...: they see only the name
    assert mode(existing) == 0o600  # the old file's looser mode is not kept
    assert not nobody_can_read(existing)


def test_an_export_others_could_replace_is_warned_about(hearth_cli: CliRunner,
                                                        shared: Path) -> None:
    home = shared / "home"
    hearth_cli(home, "facts", "set", "passport", "X1234567").assert_ok()
    drop = shared / "drop"
    drop.mkdir()
    drop.chmod(0o777)  # anyone may write, and no sticky bit: anyone may rename or delete

    exported = hearth_cli(home, "export", str(drop / "all.json"))

    exported.assert_ok()
    assert "warning:" in exported.err and "delete or replace" in exported.err
    assert mode(drop / "all.json") == 0o600
    assert not nobody_can_read(drop / "all.json")


def test_the_window_writes_private_files_too(shared: Path) -> None:
    home = shared / "home"
    started = subprocess.run(
        [sys.executable, "-m", "desktop", "--home", str(home), "--quit-after", "3"],
        cwd=PROJECT_ROOT, capture_output=True, timeout=180, check=False,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT), "QT_QPA_PLATFORM": "offscreen",
             "XDG_CONFIG_HOME": str(shared / "config")})

    assert started.returncode == 0, started.stderr.decode()
    assert (home / "hearth.db").exists()
    assert_private(everything_in(home))
