"""Starting the window's child processes: what the child writes is as private as what the
window writes (``core.private_files``)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from core.backups import list_backups
from desktop.isolated import run_in_child
from desktop.runs import DREAM
from support.scripted_llm import ScriptedLLM


@pytest.fixture
def umask_022() -> Iterator[None]:
    """This process's umask as a program that never heard of Hearth's would leave it, and
    back to what it was afterwards."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_what_the_child_process_writes_is_private(ctx, umask_022) -> None:  # noqa: ANN001
    run_in_child(DREAM, ctx.hearth.paths.home, only="decay", provider_factory=ScriptedLLM)

    made = list_backups(ctx.hearth.paths)
    assert len(made) == 1  # a dream backs up first
    assert stat.S_IMODE(made[0].path.stat().st_mode) == 0o600
    assert stat.S_IMODE(ctx.hearth.paths.backups.stat().st_mode) == 0o700
