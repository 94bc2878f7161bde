"""Agents' named tokens in process (``core.agents.tokens``) on both backends, and the
``hearth mcp token`` commands: a token is shown once and stored only as its SHA-256, it
names its agent, revoking refuses it at once, and adding and revoking are audited."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from core import clock
from core.agents.tokens import AgentTokens
from cli.main import run
from core.errors import InvalidInputError, NotFoundError
from core.storage.orm import Agent, AgentToken, AuditEntry


def test_a_token_names_its_agent_and_only_its_hash_is_kept(storage) -> None:
    tokens = AgentTokens(storage)
    token, info = tokens.add("Notes Bot")
    assert info.agent == "notes-bot" and len(token) >= 40
    other, _ = tokens.add("notes-bot")  # a second client of the same agent
    assert other != token

    assert tokens.agent_of(token) == "notes-bot" == tokens.agent_of(other)
    assert tokens.agent_of(token + "x") is None and tokens.agent_of("") is None
    with storage.read() as session:
        stored = list(session.scalars(select(AgentToken.token_sha256)))
        agent = session.scalars(select(Agent)).one()
        audit = [(a.action, a.arguments) for a in session.scalars(select(AuditEntry))]
    assert hashlib.sha256(token.encode()).hexdigest() in stored
    assert token not in json.dumps([stored, audit])
    assert (agent.name, agent.access, agent.trusted) == ("notes-bot", "none", False)
    assert [action for action, _ in audit] == ["agent.token_add"] * 2


def test_use_is_noted_at_most_once_a_minute(storage, monkeypatch) -> None:
    tokens = AgentTokens(storage)
    token, _ = tokens.add("notes-bot")
    (listed,) = tokens.list()
    assert listed.last_used_at is None
    start = clock.now()
    monkeypatch.setattr(clock, "now", lambda: start)
    tokens.agent_of(token)
    monkeypatch.setattr(clock, "now", lambda: start + timedelta(seconds=30))
    tokens.agent_of(token)
    assert tokens.list()[0].last_used_at == start
    monkeypatch.setattr(clock, "now", lambda: start + timedelta(minutes=2))
    tokens.agent_of(token)
    assert tokens.list()[0].last_used_at == start + timedelta(minutes=2)


def test_revoking_refuses_the_token_and_keeps_its_row(storage) -> None:
    tokens = AgentTokens(storage)
    first, _ = tokens.add("notes-bot")
    second, info = tokens.add("notes-bot")
    kept, _ = tokens.add("editor")

    assert tokens.revoke("Notes Bot", info.id) == 1
    assert tokens.agent_of(second) is None and tokens.agent_of(first) == "notes-bot"
    assert tokens.revoke("notes-bot") == 1
    assert tokens.agent_of(first) is None and tokens.agent_of(kept) == "editor"
    assert [t.agent for t in tokens.list()] == ["editor"]
    assert not tokens.has_tokens("notes-bot") and tokens.has_tokens("editor")
    with pytest.raises(NotFoundError, match="notes-bot has no token to revoke"):
        tokens.revoke("notes-bot")
    with storage.read() as session:
        assert len(list(session.scalars(select(AgentToken)))) == 3
        revokes = [a.arguments for a in session.scalars(
            select(AuditEntry).where(AuditEntry.action == "agent.token_revoke"))]
    assert revokes == [{"agent": "notes-bot", "tokens": [info.id]},
                       {"agent": "notes-bot", "tokens": [info.id - 1]}]
    with pytest.raises(InvalidInputError, match="no letters or digits"):
        tokens.add("!!")


def cli(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_token_commands(capsys, tmp_path: Path) -> None:
    home = tmp_path / "h"
    code, out, _ = cli(capsys, home, "mcp", "token", "add", "Notes Bot")
    assert code == 0 and "A token for notes-bot, shown only now" in out
    token = out.splitlines()[1]
    configuration = json.loads(out[out.index("{"):])
    assert configuration["mcpServers"]["hearth"] == {
        "url": "http://127.0.0.1:8765/mcp", "headers": {"Authorization": f"Bearer {token}"}}

    code, out, _ = cli(capsys, home, "mcp", "token", "list", "--json")
    (listed,) = json.loads(out)
    assert code == 0 and listed["agent"] == "notes-bot" and listed["last_used_at"] is None
    assert token not in out

    code, _, err = cli(capsys, home, "mcp", "token", "revoke", "notes-bot")  # not a terminal
    assert code != 0 and "--yes" in err
    code, out, _ = cli(capsys, home, "mcp", "token", "revoke", "notes-bot", "--yes")
    assert code == 0 and "Revoked 1 token of notes-bot." in out
    code, out, _ = cli(capsys, home, "mcp", "token", "list", "--json")
    assert json.loads(out) == []
