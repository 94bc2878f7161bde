"""Ctrl-C on a command is an interruption, and the exit code says so (130), so a script can
tell a stopped answer from a whole one; what was said so far is kept.

``hearth ask`` streams a slow reply from ``FakeOllama``; SIGINT arrives while it streams."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from support.fake_ollama import FakeOllama, FakeReply

from core.storage.orm import Interaction
from core.storage.sqlite.adapter import SqliteStorage
from reliability.conftest import PROJECT_ROOT
from reliability.test_stale_states import MODEL, STORY, ollama_env, until


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    server = FakeOllama(models=[MODEL]).start()
    yield server
    server.stop()


def interrupted_ask(home: Path, server: FakeOllama, *flags: str) -> tuple[int, str, str]:
    """``hearth ask`` with SIGINT sent once the model has been asked (as Ctrl-C would)."""
    server.script(FakeReply(text=STORY, delay=0.5))  # 30 s of reply, a word at a time
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--home", str(home), "ask",
         "Tell me a long story.", *flags],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=PROJECT_ROOT,
        env={**os.environ, **ollama_env(server), "PYTHONPATH": str(PROJECT_ROOT)},
        # a test run in the background of a non-interactive shell ignores SIGINT, and a
        # child inherits that (Python then installs no Ctrl-C handler)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        until(lambda: server.chat_requests(), "the model was asked", process)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def saved_exchange(home: Path) -> Interaction:
    storage = SqliteStorage(home / "hearth.db")
    try:
        with storage.read() as session:
            (exchange,) = session.scalars(select(Interaction)).all()
            return exchange
    finally:
        storage.close()


def test_an_interrupted_ask_exits_130_and_keeps_the_message(
        isolated_home: Path, ollama: FakeOllama) -> None:
    code, _out, err = interrupted_ask(isolated_home, ollama)
    assert code == 130, err
    assert "Interrupted" in err and "Traceback" not in err
    assert saved_exchange(isolated_home).user_message == "Tell me a long story."


def test_an_interrupted_ask_with_json_says_stopped_and_exits_130(
        isolated_home: Path, ollama: FakeOllama) -> None:
    code, out, err = interrupted_ask(isolated_home, ollama, "--json")
    assert code == 130, err
    assert "Traceback" not in err
    answer = json.loads(out)
    assert answer["stopped"] is True
    assert STORY.startswith(answer["reply"])
    exchange = saved_exchange(isolated_home)
    assert exchange.id == answer["interaction_id"]
    assert exchange.user_message == "Tell me a long story."
