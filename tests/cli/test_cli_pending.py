"""``hearth pending`` and the questions ``hearth chat`` asks about held requests, with the
real CLI, the real ``ollama`` client against the scripted server and the real database."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from support.fake_ollama import FakeOllama, FakeReply

from core import clock
from core.app import Hearth
from cli.main import run
from core.llm.ollama import OllamaProvider

MODEL = "llama3.2:3b"


def scripted(*chat: FakeReply):
    """Chat turns get ``chat`` in order; learning's structured requests find nothing."""
    queue = list(chat)

    def respond(body: dict) -> FakeReply:
        if body.get("format") is not None:
            fields = body["format"].get("properties", {}) if isinstance(
                body["format"], dict) else {}
            return FakeReply(text=json.dumps({name: [] for name in fields}))
        return queue.pop(0) if queue else FakeReply(text="…")

    return respond


def task_call(title: str) -> FakeReply:
    return FakeReply(text="One moment.", tool_calls=[
        {"name": "create_task", "arguments": {"title": title}}])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    with FakeOllama(models=[MODEL]) as fake:
        fake.configure(monkeypatch, MODEL)
        yield fake


def cli(capsys, home: Path, *args: str) -> tuple[int, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out + captured.err


def held(home: Path, server: FakeOllama, title: str) -> int:
    server.responder = scripted(task_call(title), FakeReply(text="Waiting for you."))
    with Hearth.open(home) as hearth:
        chat = hearth.conversation(OllamaProvider(server.url, MODEL, retries=0))
        session_id = chat.sessions.new_session()
        list(chat.send(session_id, f"add a task: {title}"))
        (row,) = hearth.pending.pending(session_id)
        return row.id


def test_pending_list_confirm_and_cancel(capsys, tmp_path, server) -> None:
    home = tmp_path / "h"
    first, second = held(home, server, "Renew passport"), held(home, server, "Buy milk")

    code, out = cli(capsys, home, "pending", "list", "--json")
    assert code == 0
    listed = json.loads(out)
    assert [item["id"] for item in listed] == [first, second]
    assert listed[0]["preview"] == "Add the task “Renew passport”."

    assert cli(capsys, home, "pending", "confirm", str(first))[0] == 0
    code, out = cli(capsys, home, "pending", "cancel", str(second))
    assert code == 0 and "Cancelled: Add the task “Buy milk”." in out
    code, out = cli(capsys, home, "pending", "confirm", str(second))
    assert code != 0 and "already cancelled" in out
    with Hearth.open(home) as hearth:
        assert [task.title for task in hearth.tasks.list()] == ["Renew passport"]


def test_an_expired_request_is_refused_from_the_cli(capsys, tmp_path, server) -> None:
    home = tmp_path / "h"
    action_id = held(home, server, "Renew passport")
    with clock.shifted(timedelta(minutes=31)):
        code, out = cli(capsys, home, "pending", "confirm", str(action_id))
    assert code != 0 and "expired unanswered" in out
    with Hearth.open(home) as hearth:
        assert hearth.tasks.list() == []


def test_chat_asks_about_each_request_and_edit_sends_it_again(tmp_path, server) -> None:
    server.responder = scripted(task_call("Renew passport"), FakeReply(text="Confirm below."),
                                task_call("Call mum"), FakeReply(text="Confirm below."),
                                task_call("Call mum and dad"), FakeReply(text="Again."))
    environment = {**os.environ, "HEARTH_HOME": str(tmp_path / "h")}
    result = subprocess.run(
        [str(Path(sys.executable).with_name("hearth")), "chat"],
        input="add a task: renew passport\ny\nadd a task: call mum\ne\n"
              "add a task: call mum and dad\ny\n/quit\n",
        capture_output=True, text=True, env=environment, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "Add the task “Renew passport”. Confirm? [y/n/e(dit)]" in result.stderr
    assert "cancelled; your message was: add a task: call mum" in result.stderr
    with Hearth.open(tmp_path / "h") as hearth:
        assert sorted(task.title for task in hearth.tasks.list()) == [
            "Call mum and dad", "Renew passport"]
        assert [row.status for row in hearth.pending.of_session(
            hearth.pending.get(1).session_id or "")] == ["confirmed", "cancelled", "confirmed"]
