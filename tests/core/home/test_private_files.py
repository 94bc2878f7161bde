"""``core.home.private_files`` below the command line: the rules that tests through the CLI
cannot reach (a file system that ignores permissions, a crash halfway through a write, a
link planted where a file goes)."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from core.home.private_files import exposure_warning, secure_home, write_privately


def test_a_file_the_file_system_leaves_readable_is_warned_about(tmp_path: Path) -> None:
    exported = tmp_path / "everything.json"
    write_privately(exported, lambda handle: handle.write("{}"))
    assert exposure_warning(exported) is None
    exported.chmod(0o644)  # what a FAT USB stick shows whatever was asked

    warning = exposure_warning(exported)

    assert warning is not None and "can read" in warning


def test_a_failed_write_keeps_the_old_file_and_leaves_nothing_behind(tmp_path: Path) -> None:
    target = tmp_path / "settings.json"
    write_privately(target, lambda handle: handle.write('{"a": 1}'))

    def fail_halfway(handle) -> None:
        handle.write('{"a": ')
        raise RuntimeError("the disk is full")

    with pytest.raises(RuntimeError):
        write_privately(target, fail_halfway)

    assert target.read_text() == '{"a": 1}'
    assert [p.name for p in tmp_path.iterdir()] == ["settings.json"]


def test_a_link_where_the_file_goes_is_replaced_not_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "someone-elses.txt"
    victim.write_text("theirs")
    target = tmp_path / "export.json"
    target.symlink_to(victim)

    write_privately(target, lambda handle: handle.write("mine"))

    assert victim.read_text() == "theirs"
    assert not target.is_symlink() and target.read_text() == "mine"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_a_missing_folder_is_left_missing(tmp_path: Path) -> None:
    assert secure_home(tmp_path / "not-yet") == []
    assert not (tmp_path / "not-yet").exists()
