"""Several devices on one PostgreSQL database: real processes, each with a data folder of
its own, one server (``support.postgres``), the scripted Ollama server.

- Two processes consolidating the same pending events at once process each exactly once,
  and the model is asked once per batch (the batch is claimed before the model call).
- Two dream cycles: while one holds the dream lock, another device's dream and reflection
  are refused at once; the lock of a dream whose process is killed is freed by the server.
- A fact one device sets is in the other's next turn prompt, in a conversation that
  process had already started (nothing cached per process hides it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from core.app import Hearth
from core.assistant import Assistant
from cli.main import run
from core.consolidation.dream import DreamAlreadyRunning, dream_lock
from core.conversation.events import TurnFinished
from core.learning.events import add_event
from core.storage.orm import ContextEvent
from support.fake_ollama import FakeOllama, FakeReply

MODEL = "llama3.2:3b"
CHILD = Path(__file__).parents[2] / "support" / "device_child.py"
EVENTS = 50  # three batches of at most 20
PROCESSED = json.dumps({"updated_scaffold": {"city": "Lisbon"},
                        "updated_working_memory": "Settling in Lisbon.",
                        "facts_to_embed": []})


@pytest.fixture
def shared(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    """The shared database and model server, named in this process's environment (which
    the device processes inherit)."""
    with FakeOllama(models=[MODEL]) as fake:
        monkeypatch.setenv("HEARTH_DATABASE_URL", postgres_url)
        fake.configure(monkeypatch, MODEL)
        yield fake


def device(home: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(CHILD), str(home), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONPATH": str(CHILD.parents[2])})


def wait_for(child: subprocess.Popen[str], line: str) -> None:
    assert child.stdout is not None
    for seen in child.stdout:
        if seen.strip() == line:
            return
    raise AssertionError(f"the device stopped before {line}: {child.communicate()[1]}")


def test_two_devices_consolidating_at_once_process_each_event_once(
        shared: FakeOllama, tmp_path: Path, embedder) -> None:
    asked: list[str] = []
    lock = threading.Lock()

    def respond(body: dict) -> FakeReply:
        with lock:
            asked.append(body["messages"][-1]["content"])
        return FakeReply(text=PROCESSED, delay=1.0)  # a slow model: the batches overlap

    shared.responder = respond
    with Hearth.open(tmp_path / "seed", embedder=embedder) as seed:
        ids = [add_event(seed.storage, "observation", f"Observation number {n}.", {})
               for n in range(EVENTS)]
    go = tmp_path / "go"
    devices = [device(tmp_path / name, "process", str(go)) for name in ("laptop", "desktop")]
    try:
        for child in devices:
            wait_for(child, "READY")
        go.touch()
        reports = [json.loads(child.communicate(timeout=120)[0].strip().splitlines()[-1])
                   for child in devices]
    finally:
        for child in devices:
            if child.poll() is None:
                child.kill()
    assert all(child.returncode == 0 for child in devices)
    assert sum(report["processed"] for report in reports) == EVENTS
    assert all(report["failed"] == 0 for report in reports)
    assert len(asked) == 3, asked  # one model call per batch, none spent twice
    for n in range(EVENTS):          # every observation was shown to the model once
        assert sum(f"Observation number {n}." in prompt for prompt in asked) == 1
    with Hearth.open(tmp_path / "seed", embedder=embedder) as seed, \
            seed.storage.read() as session:
        rows = list(session.scalars(select(ContextEvent).where(ContextEvent.id.in_(ids))))
    assert all(row.processed and row.claimed_by is None for row in rows)
    assert min(report["processed"] for report in reports) > 0  # both took part


def test_one_dream_at_a_time_across_devices_and_a_killed_dream_frees_the_lock(
        shared: FakeOllama, tmp_path: Path, capsys, embedder) -> None:
    shared.responder = lambda _body: FakeReply(text="{}")
    dreaming = device(tmp_path / "laptop", "dream")
    try:
        wait_for(dreaming, "DREAMING")
        code = run(["--home", str(tmp_path / "desktop"), "dream", "--stage", "decay"])
        err = capsys.readouterr().err
        assert code == 1 and "already running" in err
        code = run(["--home", str(tmp_path / "desktop"), "reflect"])
        assert code == 1 and "dream cycle is already running" in capsys.readouterr().err
        with Hearth.open(tmp_path / "desktop", embedder=embedder) as other:
            with pytest.raises(DreamAlreadyRunning):
                with dream_lock(other.storage):
                    pass
            dreaming.send_signal(signal.SIGKILL)
            dreaming.wait(timeout=30)
            deadline = time.monotonic() + 10  # the server notices the dropped connection
            while True:
                try:
                    with dream_lock(other.storage):
                        break
                except DreamAlreadyRunning:
                    assert time.monotonic() < deadline, "the killed dream's lock stayed held"
                    time.sleep(0.1)
    finally:
        if dreaming.poll() is None:
            dreaming.kill()
        dreaming.communicate()


def test_a_fact_set_on_one_device_is_in_the_other_devices_next_turn(
        shared: FakeOllama, tmp_path: Path, embedder) -> None:
    shared.responder = lambda body: FakeReply(
        text=json.dumps({"facts": []}) if body.get("format") is not None else "Noted.")
    with Hearth.open(tmp_path / "desktop", embedder=embedder) as hearth:
        assistant = Assistant.start(hearth, confirm=lambda _q: False, channel="cli")
        try:
            session_id = assistant.conversation.sessions.new_session()
            first = list(assistant.conversation.send(session_id, "What tea should I buy?"))
            assert isinstance(first[-1], TurnFinished)
            setter = subprocess.run(
                [sys.executable, "-m", "cli.main", "--home", str(tmp_path / "laptop"),
                 "facts", "set", "favourite_tea", "Lapsang souchong"],
                capture_output=True, text=True, timeout=120,
                env={**os.environ, "PYTHONPATH": str(CHILD.parents[2])})
            assert setter.returncode == 0, setter.stderr
            second = list(assistant.conversation.send(session_id, "And which tea do I like?"))
            assert isinstance(second[-1], TurnFinished)
        finally:
            assistant.close()
    turns = [body for body in shared.chat_requests() if body.get("format") is None]
    assert "Lapsang souchong" not in turns[0]["messages"][0]["content"]
    assert "Lapsang souchong" in turns[-1]["messages"][0]["content"]
