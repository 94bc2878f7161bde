"""Fixtures that change the machine under a test: a small tmpfs (a disk that fills up), a
read-only bind mount, the immutable flag (``chattr +i``).

Root ignores permission bits, so a read-only folder has to come from the mount or the inode
flag; both need root, and a test using them is skipped, with the reason, where they are
not available. Every mount is undone and every flag cleared in teardown, also when the test
fails, so that pytest can delete its temporary folders.

Import the fixtures into a test module by name (``from privileged import tmpfs, ...``).
"""

from __future__ import annotations

import errno
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


def _run_or_skip(command: list[str], what: str) -> None:
    """Run a privileged command; skip the test (saying why) when this machine refuses it."""
    if os.geteuid() != 0:
        pytest.skip(f"{what} needs root (permission bits mean nothing to root, so the test "
                    "uses mounts and chattr instead)")
    try:
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        pytest.skip(f"{what}: `{command[0]}` is not installed")
    if done.returncode != 0:
        pytest.skip(f"{what}: `{' '.join(command)}` failed: {done.stderr.strip()}")


def _unmount(point: Path) -> None:
    done = subprocess.run(["umount", str(point)], capture_output=True, text=True, check=False)
    if done.returncode != 0:  # still busy (a child left behind): detach it anyway
        subprocess.run(["umount", "-l", str(point)], check=True)


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[int], Path]]:
    """``tmpfs(kib)`` mounts a fresh tmpfs of that size and returns its folder."""
    mounted: list[Path] = []

    def mount(size_kib: int) -> Path:
        point = tmp_path / f"disk{len(mounted)}"
        point.mkdir()
        _run_or_skip(["mount", "-t", "tmpfs", "-o", f"size={size_kib}k", "tmpfs", str(point)],
                     "a small disk (tmpfs)")
        mounted.append(point)
        return point

    yield mount
    for point in reversed(mounted):
        _unmount(point)


@pytest.fixture
def read_only_view(tmp_path: Path) -> Iterator[Callable[[Path], Path]]:
    """``read_only_view(folder)`` bind-mounts ``folder`` read-only elsewhere and returns the
    read-only path (the original stays writable)."""
    mounted: list[Path] = []

    def mount(folder: Path) -> Path:
        point = tmp_path / f"read-only-{len(mounted)}"
        point.mkdir()
        _run_or_skip(["mount", "--bind", str(folder), str(point)], "a read-only bind mount")
        mounted.append(point)
        _run_or_skip(["mount", "-o", "remount,bind,ro", str(point)], "a read-only bind mount")
        return point

    yield mount
    for point in reversed(mounted):
        _unmount(point)


@pytest.fixture
def immutable() -> Iterator[Callable[..., None]]:
    """``immutable(*paths)`` sets the immutable flag: not even root can change, rename or
    delete such a file, or add to such a folder."""
    flagged: list[Path] = []

    def flag(*paths: Path) -> None:
        for path in paths:
            _run_or_skip(["chattr", "+i", str(path)], "the immutable flag")
            flagged.append(path)

    yield flag
    for path in reversed(flagged):
        subprocess.run(["chattr", "-i", str(path)], check=True)


def fill_disk(folder: Path, leave: int = 0) -> Path:
    """Write zeros into ``folder/filler`` until its disk is full, then give back ``leave``
    bytes; delete the file to free the space again."""
    filler = folder / "filler"
    handle = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for chunk in (b"\0" * 65536, b"\0" * 4096, b"\0"):
            try:
                while True:
                    os.write(handle, chunk)
            except OSError as error:
                if error.errno != errno.ENOSPC:
                    raise
        if leave:
            os.ftruncate(handle, max(0, os.fstat(handle).st_size - leave))
    finally:
        os.close(handle)
    return filler
