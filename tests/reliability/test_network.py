"""The only network peer Hearth has is the configured Ollama host.

Each command runs under ``strace``, which records every ``connect`` and every addressed
``sendto`` (and ``execve``, to show it traced at all) of the process and its threads and children (a
DNS lookup is a ``connect`` or a
``sendto`` to port 53). The test fails on any peer other than the fake Ollama server on
127.0.0.1: this is how onnxruntime's telemetry lookups of
``mobile.events.data.microsoft.com`` were found (they start a few seconds after the first
embedding, so the chat is kept open, idle, for longer than that).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.fake_ollama import FakeOllama, FakeReply

PROJECT_ROOT = Path(__file__).resolve().parents[2]
MODEL = "llama3.2:3b"
TRANSCRIPT = PROJECT_ROOT / "benchmarks" / "data" / "conversations" / "conv-maya.json"
IDLE_SECONDS = 15
"""How long the chat sits idle after its first embedding: onnxruntime's telemetry looked
up its host 5 to 9 s after the first inference, then every few seconds."""

INET_PEER = re.compile(
    r"(?:connect|sendto)\(\d+, .*?\{sa_family=AF_INET6?, "
    r"sin6?_port=htons\((?P<port>\d+)\), .*?(?:inet_addr|inet_pton\(AF_INET6?, )"
    r"\(?\"(?P<address>[^\"]+)\"")

pytestmark = pytest.mark.skipif(shutil.which("strace") is None,
                                reason="strace is not installed (make test installs it)")


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    def answer(body: dict) -> FakeReply:
        if body.get("format") is not None:
            return FakeReply(text=json.dumps({"facts": []}))
        return FakeReply(text="Noted.")

    with FakeOllama(models=[MODEL], responder=answer) as server:
        yield server


def traced(log: Path, home: Path, *args: str, ollama: FakeOllama) -> list[str]:
    """The command line that runs ``hearth ARGS`` under strace, logging to ``log``."""
    return ["strace", "-f", "-qq", "-e", "trace=connect,sendto,execve", "-o", str(log),
            sys.executable, "-m", "cli.main", "--home", str(home), *args]


def environment(ollama: FakeOllama) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(PROJECT_ROOT),
            "HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": ollama.url,
            "HEARTH_OLLAMA_MODEL": MODEL}


def foreign_peers(log: Path, allowed_port: int) -> list[str]:
    """Every recorded IP peer that is not the Ollama server, and any traced call to an IP
    peer that the pattern could not read (so an unfamiliar format fails, not passes)."""
    found = []
    for line in log.read_text(errors="replace").splitlines():
        if "AF_INET" not in line:
            continue
        match = INET_PEER.search(line)
        if match is None:
            found.append(line)
        elif (match["address"], int(match["port"])) != ("127.0.0.1", allowed_port):
            found.append(line)
    return found


def test_import_chat_and_dream_talk_to_nobody_but_ollama(tmp_path: Path,
                                                         ollama: FakeOllama) -> None:
    home = tmp_path / "home"
    env = environment(ollama)
    port = int(ollama.url.rsplit(":", 1)[1])
    logs = []

    log = tmp_path / "import.strace"
    subprocess.run(traced(log, home, "import", "transcript", str(TRANSCRIPT), ollama=ollama),
                   env=env, check=True, capture_output=True, timeout=300, cwd=PROJECT_ROOT)
    logs.append(log)

    log = tmp_path / "chat.strace"
    chat = subprocess.Popen(traced(log, home, "chat", ollama=ollama), env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=PROJECT_ROOT)
    assert chat.stdin is not None
    chat.stdin.write(b"Where did Maya go hiking last spring?\n")
    chat.stdin.flush()
    time.sleep(IDLE_SECONDS)  # a person reading the reply: the process is idle, not waited on
    out, err = chat.communicate(b"/quit\n", timeout=120)
    assert chat.returncode == 0, err.decode(errors="replace")
    assert b"Noted." in out
    logs.append(log)

    log = tmp_path / "dream.strace"
    subprocess.run(traced(log, home, "dream", ollama=ollama), env=env,
                   capture_output=True, timeout=600, cwd=PROJECT_ROOT)
    logs.append(log)

    assert ollama.chat_requests(), "the chat never reached the Ollama server"
    for log in logs:
        assert "execve(" in log.read_text(errors="replace"), f"strace did not trace {log.stem}"
        assert foreign_peers(log, port) == [], f"{log.stem} talked to another peer"
