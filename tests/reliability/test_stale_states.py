"""Work a killed process left unfinished is marked ``interrupted`` by the next command, and
work of a live process is left alone.

``hearth ask`` streams a slow reply from ``FakeOllama`` and ``hearth dream`` waits on a slow
model; while they run, another command opens the same folder and must leave their
``pending`` exchange and ``running`` runs alone; after a SIGKILL, the next command marks
them ``interrupted`` (keeping what they had written) and leaves no claim file behind."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from sqlalchemy import select
from support.fake_ollama import FakeOllama, FakeReply

from core.app import Hearth
from core.learning.events import add_event
from core.storage.orm import ContextEvent, Interaction, Run
from core.storage.sqlite.adapter import SqliteStorage
from reliability.conftest import PROJECT_ROOT, CliRunner

MODEL = "llama3.2:3b"
STORY = " ".join(f"word{n}" for n in range(60))
T = TypeVar("T")


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    server = FakeOllama(models=[MODEL]).start()
    yield server
    server.stop()  # wakes every delayed answer


def ollama_env(server: FakeOllama) -> dict[str, str]:
    return {"HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": server.url,
            "HEARTH_OLLAMA_MODEL": MODEL, "HEARTH_LLM_RETRIES": "0"}


def start_hearth(home: Path, env: dict[str, str], *args: str,
                 new_session: bool = False) -> subprocess.Popen[bytes]:
    """A ``hearth`` command left running, for the test to kill (``new_session``: as the
    leader of a session of its own, so its descendants can be found)."""
    merged = {**os.environ, **env, "PYTHONPATH": str(PROJECT_ROOT)}
    return subprocess.Popen([sys.executable, "-m", "cli.main", "--home", str(home), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=merged,
                            cwd=PROJECT_ROOT, start_new_session=new_session,
                            preexec_fn=_as_from_a_terminal)


def _as_from_a_terminal() -> None:
    """Ctrl-C at its default and not blocked in the child, as a shell starts a command: an
    ignored or blocked SIGINT is inherited across exec, and a test worker's state must not
    decide whether the command sees its Ctrl-C (in the full suite it once did not)."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def kill(process: subprocess.Popen[bytes]) -> None:
    process.kill()
    process.communicate(timeout=30)
    assert process.returncode == -signal.SIGKILL


def until(probe: Callable[[], T | None], what: str, process: subprocess.Popen[bytes],
          timeout: float = 120) -> T:
    """Poll ``probe`` until it gives something, failing early if ``process`` ended."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = probe()
        if found:
            return found
        if process.poll() is not None:
            _, err = process.communicate()
            pytest.fail(f"the command ended ({process.returncode}) before {what}: "
                        f"{err.decode(errors='replace')}")
        time.sleep(0.05)
    pytest.fail(f"timed out waiting for {what}")


def stored(home: Path, model: type[Any]) -> list[Any]:
    """The rows as they are in the file, read without opening the folder (which would
    reconcile them)."""
    storage = SqliteStorage(home / "hearth.db")
    try:
        with storage.read() as session:
            return list(session.scalars(select(model).order_by(model.id)))
    finally:
        storage.close()


def claim_files(home: Path) -> list[str]:
    folder = home / "running"
    return sorted(path.name for path in folder.iterdir()) if folder.is_dir() else []


def test_a_killed_ask_is_interrupted_and_a_live_one_is_left_alone(
        isolated_home: Path, hearth_cli: CliRunner, ollama: FakeOllama) -> None:
    ollama.script(FakeReply(text=STORY, delay=0.5))  # 30 s of reply, a word at a time
    asking = start_hearth(isolated_home, ollama_env(ollama), "ask", "Tell me a long story.")
    try:
        assert asking.stdout is not None
        until(lambda: asking.stdout.read(4), "the reply started streaming", asking)

        hearth_cli(isolated_home, "runs").assert_ok()  # opens the folder while it streams
        (exchange,) = stored(isolated_home, Interaction)
        assert exchange.status == "pending"  # a live process's work is left alone
    finally:
        kill(asking)

    assert stored(isolated_home, Interaction)[0].status == "pending"  # nobody looked yet
    hearth_cli(isolated_home, "runs").assert_ok()
    (exchange,) = stored(isolated_home, Interaction)
    assert exchange.status == "interrupted"
    assert exchange.user_message == "Tell me a long story."  # what was saved is kept
    assert "interrupted" in exchange.error
    assert claim_files(isolated_home) == []


def test_a_killed_dream_is_interrupted_and_a_running_one_is_left_alone(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        add_event(hearth.storage, "observation", "Took up pottery.", {"source": "tool"})
    ollama.script(FakeReply(text="{}", delay=120))  # the processor's model never answers
    dreaming = start_hearth(isolated_home, ollama_env(ollama), "dream")
    try:
        until(lambda: ollama.chat_requests(), "the dream asked the model", dreaming)

        listed = hearth_cli(isolated_home, "runs", "--json")
        listed.assert_ok()
        statuses = {run["kind"]: run["status"] for run in json.loads(listed.out)}
        assert statuses == {"dream": "running", "processor": "running"}
    finally:
        kill(dreaming)

    listed = hearth_cli(isolated_home, "runs", "--json")
    listed.assert_ok()
    runs = {run["kind"]: run for run in json.loads(listed.out)}
    assert {kind: run["status"] for kind, run in runs.items()} == {
        "dream": "interrupted", "processor": "interrupted"}
    assert "backup" in runs["dream"]["stages"]  # the stages it finished are kept
    assert all(run.finished_at is not None for run in stored(isolated_home, Run))
    assert claim_files(isolated_home) == []


def test_events_a_killed_dream_was_consolidating_are_taken_up_by_the_next_run(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    """Their claim dies with the process: the next dream consolidates them at once, and
    meanwhile `hearth events` shows them pending, not held by another process (their
    30-minute lease is only the backstop for a holder whose liveness cannot be seen)."""
    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        event_id = add_event(hearth.storage, "observation", "Took up pottery.",
                             {"source": "tool"})
    ollama.script(FakeReply(text="{}", delay=120))  # the processor's model never answers
    dreaming = start_hearth(isolated_home, ollama_env(ollama), "dream")
    try:
        until(lambda: ollama.chat_requests(), "the dream asked the model", dreaming)
        (held,) = stored(isolated_home, ContextEvent)
        assert held.claimed_until is not None  # the batch is leased to the dream
        listed = hearth_cli(isolated_home, "events", "--json")
        listed.assert_ok()
        assert [event["state"] for event in json.loads(listed.out)] == ["elsewhere"]
    finally:
        kill(dreaming)

    listed = hearth_cli(isolated_home, "events", "--json")
    listed.assert_ok()
    assert [(event["id"], event["state"]) for event in json.loads(listed.out)] == [
        (event_id, "pending")]
    ollama.script(json.dumps({"updated_scaffold": {"Hobbies": "pottery"},
                              "updated_working_memory": "The user took up pottery.",
                              "facts_to_embed": []}))
    dreamt = hearth_cli(isolated_home, "dream", "--stage", "process", "--json",
                        env=ollama_env(ollama))
    dreamt.assert_ok()
    counts = json.loads(dreamt.out)["stages"]["process"]["counts"]
    assert (counts["events_seen"], counts["processed"]) == (1, 1), dreamt.out
    (event,) = stored(isolated_home, ContextEvent)
    assert event.processed
    assert claim_files(isolated_home) == []
