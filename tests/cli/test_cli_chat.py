"""``hearth ask`` / ``hearth chat`` / ``hearth status`` against a scripted Ollama server.

The real CLI, the real ``ollama`` client over HTTP, the real database and embedder.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.app import Hearth
from core.operations import data
from cli.main import run
from support.fake_ollama import FakeModel, FakeOllama, FakeReply

MODEL = "llama3.2:3b"
NO_FACTS = json.dumps({"facts": []})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    with FakeOllama(models=[MODEL]) as fake:
        fake.configure(monkeypatch, MODEL)
        yield fake


def replies(*chat: str):
    """A responder for the fake server: structured requests (learning, which runs in the
    background and may interleave with the next turn) get "no facts"; chat turns get the
    given replies in order."""
    queue = list(chat)

    def respond(body: dict) -> FakeReply:
        if body.get("format") is not None:
            return FakeReply(text=NO_FACTS)
        return FakeReply(text=queue.pop(0) if queue else "…")

    return respond


def hearth(capsys, home: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out, captured.err


def test_ask_streams_the_reply_and_finishes_learning_before_it_exits(capsys, tmp_path, server):
    server.responder = replies("Lovely to meet you, Sam!")
    code, out, err = hearth(capsys, tmp_path / "h", "ask", "Please call me Sam, by the way.")
    assert code == 0
    assert "Lovely to meet you, Sam!" in out
    assert f"ollama · {MODEL}" in err
    with Hearth.open(tmp_path / "h") as opened:  # a new process would see the same
        assert opened.facts.get("preferred_name").value == "Sam"


def test_ask_json_reports_the_turn_and_what_was_learned(capsys, tmp_path, server):
    server.responder = replies("Noted: Lisbon.", "Of course, Lisbon.")
    code, out, _ = hearth(capsys, tmp_path / "h", "ask", "I live in Lisbon.", "--json")
    answer = json.loads(out)
    assert code == 0
    assert (answer["reply"], answer["provider"], answer["model"]) == (
        "Noted: Lisbon.", "ollama", MODEL)
    assert answer["learning"]["facts_created"] == 1 and answer["learning"]["finished"]

    code, out, _ = hearth(capsys, tmp_path / "h", "ask", "Where do I live?",
                          "--session", answer["session_id"], "--json")
    second = json.loads(out)
    assert second["session_id"] == answer["session_id"]
    turns = [body for body in server.chat_requests() if body.get("format") is None]
    system_prompt = turns[1]["messages"][0]["content"]
    assert "Lisbon" in system_prompt  # the fact is in the next prompt


def test_ask_with_ollama_down_says_so_and_keeps_the_message(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("HEARTH_LLM_PROVIDER", "ollama")
    monkeypatch.setenv("HEARTH_OLLAMA_HOST", "http://127.0.0.1:9")  # discard port: closed
    code, _, err = hearth(capsys, tmp_path / "h", "ask", "My partner's name is Ana.")
    assert code == 1
    assert "not running" in err
    with Hearth.open(tmp_path / "h") as opened:
        assert data.status(opened).counts["interactions"] == 1
        assert opened.facts.get("partner_name").value == "Ana"  # rules need no model


def test_a_held_request_names_the_command_that_confirms_it(capsys, tmp_path, monkeypatch):
    """In a terminal there is no card to press: the reply names ``hearth pending``."""
    with FakeOllama(models=[FakeModel(MODEL, capabilities=("completion",))]) as no_tools:
        no_tools.configure(monkeypatch, MODEL)
        no_tools.responder = replies()
        code, out, _ = hearth(capsys, tmp_path / "h", "ask",
                              "remind me tomorrow at 9 to call the dentist")
    assert code == 0
    assert "It is not done yet: confirm it with `hearth pending confirm 1`" in out
    assert "`hearth pending cancel 1`" in out and "card" not in out
    code, out, _ = hearth(capsys, tmp_path / "h", "pending", "confirm", "1")
    assert code == 0 and "call the dentist" in out


def test_status_names_the_model_that_would_answer(capsys, tmp_path, server):
    code, out, _ = hearth(capsys, tmp_path / "h", "status", "--json")
    assert code == 0
    assert json.loads(out)["llm"]["active"] == f"ollama · {MODEL}"


def test_chat_in_a_terminal_session(tmp_path, server):
    server.responder = replies("Hi! How can I help?", "Noted.")
    environment = {**os.environ, "HEARTH_HOME": str(tmp_path / "h")}
    result = subprocess.run(
        [str(Path(sys.executable).with_name("hearth")), "chat"],
        input="hello\nI'm allergic to shellfish.\n/quit\n", capture_output=True, text=True,
        env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Hi! How can I help?" in result.stdout and "Noted." in result.stdout
    assert f"ollama · {MODEL}" in result.stderr
    with Hearth.open(tmp_path / "h") as opened:
        assert "shellfish" in opened.facts.get("allergies").value
        assert data.status(opened).counts["interactions"] == 2
