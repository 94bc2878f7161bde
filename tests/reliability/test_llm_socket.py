"""The embedded model leaves nothing behind when Hearth is killed: no ``hearth-llm-*``
folder in the temporary folder, no listener, no process outliving Hearth.

`hearth ask` on the embedded model (the real SmolLM2 GGUF in models/) is SIGKILLed while it
answers; its temporary folder is a private one so other programs' files do not count."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest
from test_stale_states import kill, start_hearth, until

from core.config import DEFAULT_EMBEDDED_LLM

pytestmark = pytest.mark.skipif(not Path("/proc/net/unix").exists(), reason="reads /proc")


def listeners_of(pid: int) -> list[str]:
    """The embedded model's listeners of process ``pid``, by name (/proc/net/unix)."""
    names = (line.split()[-1] for line in Path("/proc/net/unix").read_text().splitlines()[1:])
    return [name for name in names if f"hearth-llm-{pid}-" in name]


def in_session(session_id: int) -> list[int]:
    """Processes left in the session the killed command led (its children, if any)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue  # ended while we looked
        fields = stat.rsplit(")", 1)[1].split()  # state ppid pgrp session ...
        if int(fields[3]) == session_id:
            members.append(int(entry.name))
    return members


@pytest.mark.skipif(not DEFAULT_EMBEDDED_LLM.is_file(), reason="run `make models` first")
def test_a_killed_ask_on_the_embedded_model_leaves_no_socket_folder_or_process(
        isolated_home: Path, tmp_path: Path) -> None:
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    env = {"HEARTH_LLM_PROVIDER": "embedded", "TMPDIR": str(temporary)}
    asking = start_hearth(isolated_home, env, "ask",
                          "Write a very long story about a dragon who learns to bake bread.",
                          new_session=True)
    try:
        assert asking.stdout is not None
        until(lambda: asking.stdout.read(1), "the embedded model answered", asking)
        assert list(temporary.iterdir()) == []  # nothing on disk for the model's listener
        assert listeners_of(asking.pid)  # though it is loaded and listening
    finally:
        kill(asking)

    assert list(temporary.iterdir()) == []
    assert listeners_of(asking.pid) == []
    assert in_session(asking.pid) == []
    with pytest.raises(ProcessLookupError):
        os.killpg(asking.pid, signal.SIGKILL)  # no process group outlives it either
