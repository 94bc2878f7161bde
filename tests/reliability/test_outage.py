"""An Ollama outage does not poison the event queue: events wait for Ollama without counting
attempts and are consolidated when it is back; events poisoned by bad output get one more
try from another model; `hearth events --retry --all` gives every failed event a fresh start.

Ollama is ``FakeOllama`` on 127.0.0.1, taken away and brought back at the same address; the
processor runs through the real command (`hearth daemon --once event_processor`)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.fake_ollama import FakeOllama, FakeReply

from core.app import Hearth
from core.learning.events import add_event
from reliability.conftest import CliRunner

SMALL, LARGE = "small:1b", "large:8b"
PROCESSED = json.dumps({"updated_scaffold": {"Hobbies": "pottery"},
                        "updated_working_memory": "The user took up pottery.",
                        "facts_to_embed": []})


def answer(body: dict[str, Any]) -> FakeReply:
    """The small model babbles; the large one answers the processor's schema."""
    return FakeReply(text=PROCESSED if body["model"] == LARGE else "Sure! Pottery is fun.")


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    server = FakeOllama(models=[SMALL, LARGE], responder=answer).start()
    yield server
    server.stop()


def seed(home: Path, embedder: Any, count: int) -> list[int]:
    with Hearth.open(home, embedder=embedder) as hearth:
        return [add_event(hearth.storage, "observation", f"Took a pottery class, week {n}.",
                          {"source": "tool"}) for n in range(count)]


def env(server: FakeOllama, model: str) -> dict[str, str]:
    return {"HEARTH_LLM_PROVIDER": "ollama", "HEARTH_OLLAMA_HOST": server.url,
            "HEARTH_OLLAMA_MODEL": model, "HEARTH_LLM_RETRIES": "0"}


def ollama_url(server_env: dict[str, str]) -> str:
    return server_env["HEARTH_OLLAMA_HOST"]


def process(hearth_cli: CliRunner, home: Path, server_env: dict[str, str]) -> str:
    run = hearth_cli(home, "daemon", "--once", "event_processor", env=server_env)
    run.assert_ok()
    return " ".join(run.out.split())


def listed(hearth_cli: CliRunner, home: Path, *args: str) -> list[dict[str, Any]]:
    run = hearth_cli(home, "events", *args, "--json")
    run.assert_ok()
    return json.loads(run.out)


def test_an_ollama_outage_leaves_the_events_waiting_until_it_is_back(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    ids = seed(isolated_home, embedder, 3)
    large = env(ollama, LARGE)
    ollama.stop()  # Ollama is down

    for _ in range(4):  # more runs than event_max_attempts (3)
        said = process(hearth_cli, isolated_home, large)
        assert f"unavailable (Ollama is not running at {ollama_url(large)}." in said
        assert "0 of 3 events, 0 failed" in said

    waiting = listed(hearth_cli, isolated_home)
    assert [(e["id"], e["state"], e["attempts"]) for e in waiting] == [
        (event, "pending", 0) for event in ids]
    assert waiting[0]["last_error"].startswith("Waiting for the model")
    assert listed(hearth_cli, isolated_home, "--failed") == []  # nothing poisoned
    table = hearth_cli(isolated_home, "events", env={"COLUMNS": "400"})
    assert "Waiting for the model" in table.out  # the table says what they wait for

    ollama.start()  # back, at the same address
    said = process(hearth_cli, isolated_home, large)
    assert "done, 3 of 3 events, 0 failed" in said
    assert listed(hearth_cli, isolated_home) == []


def test_events_poisoned_by_bad_output_get_one_more_try_from_another_model(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    (event,) = seed(isolated_home, embedder, 1)
    for _ in range(3):  # the small model's babble fails the event three times: poisoned
        process(hearth_cli, isolated_home, env(ollama, SMALL))
    (poisoned,) = listed(hearth_cli, isolated_home, "--failed")
    assert (poisoned["id"], poisoned["state"]) == (event, "poisoned")
    asked = len(ollama.chat_requests())
    assert "skipped" in process(hearth_cli, isolated_home, env(ollama, SMALL))
    assert len(ollama.chat_requests()) == asked  # the same model is not asked again

    said = process(hearth_cli, isolated_home, env(ollama, LARGE))
    assert "done, 1 of 1 events, 0 failed" in said
    assert listed(hearth_cli, isolated_home, "--failed") == []


def test_retry_all_gives_every_failed_event_a_fresh_start(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    ids = seed(isolated_home, embedder, 2)
    for _ in range(3):
        process(hearth_cli, isolated_home, env(ollama, SMALL))
    assert [e["state"] for e in listed(hearth_cli, isolated_home, "--failed")] == [
        "poisoned", "poisoned"]

    retried = hearth_cli(isolated_home, "events", "--retry", "--all")
    retried.assert_ok()
    assert "2 failed events will be tried again" in retried.out
    assert [(e["id"], e["state"], e["attempts"]) for e in listed(hearth_cli, isolated_home)] \
        == [(event, "pending", 0) for event in ids]

    hearth_cli(isolated_home, "events", "--retry", "--all").assert_ok()  # nothing left: fine
    for wrong in (("--retry",), ("--retry", str(ids[0]), "--all"), (str(ids[0]),)):
        hearth_cli(isolated_home, "events", *wrong).assert_sentence()
    one = hearth_cli(isolated_home, "events", "--retry", str(ids[0]))
    one.assert_ok()
    assert f"Event {ids[0]} will be tried again" in one.out
