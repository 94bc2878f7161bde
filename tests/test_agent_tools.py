"""The agent tools in process (``core.agents.tools``): the chat's gates apply to agents'
writes (learning paused, exclusions), refusals are audited too, and trust follows the
grant."""

from __future__ import annotations

from pathlib import Path

import pytest

from core.agents.registry import AgentRegistry
from core.agents.tools import AccessDenied, AgentTools
from core.app import Hearth
from core.config import Settings
from core.errors import InvalidInputError
from core.operations import agents


def opened(home: Path, embedder, **settings) -> Hearth:
    return Hearth.open(home, settings=Settings(**settings), embedder=embedder)


def test_nothing_is_written_while_learning_is_paused(migrated_home: Path, embedder) -> None:
    with opened(migrated_home, embedder, learning_paused=True) as hearth:
        agents.grant(hearth, "bot", "write")
        with pytest.raises(AccessDenied, match="paused learning"):
            AgentTools(hearth, "bot").call("record_observation", {"content": "Likes jazz"})
        assert agents.held_writes(hearth) == ()
        (call,) = agents.calls_of(hearth, "bot")
        assert call.summary == "error: The user has paused learning, so nothing new is stored."


def test_an_excluded_topic_is_not_stored_even_for_review(migrated_home: Path,
                                                         embedder) -> None:
    with opened(migrated_home, embedder, exclusions=["salary"]) as hearth:
        agents.grant(hearth, "bot", "write")
        tools = AgentTools(hearth, "bot")
        with pytest.raises(AccessDenied, match="never to be stored"):
            tools.call("remember_fact", {"key": "salary", "value": "plenty"})
        assert tools.call("remember_fact", {"key": "pet", "value": "a cat"})["status"] == "held"
        assert [w.preview for w in agents.held_writes(hearth)] == [
            "Remember pet = a cat (general)"]


def test_trust_needs_write_access_and_a_lower_grant_drops_it(hearth: Hearth) -> None:
    registry = AgentRegistry(hearth.storage)
    registry.grant("Claude Desktop", "read")
    with pytest.raises(InvalidInputError, match="grant claude-desktop write"):
        registry.trust("claude-desktop")
    registry.grant("claude-desktop", "write")
    assert registry.trust("claude-desktop").trusted
    assert registry.grant("claude-desktop", "read").trusted is False
    with pytest.raises(InvalidInputError, match="not an access level"):
        registry.grant("claude-desktop", "admin")


def test_accepting_an_observation_queues_it_with_the_answer_or_not_at_all(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    """The event and the answer are one transaction: a failure while answering (a crash,
    a full disk) leaves the write held and nothing queued, so the next accept queues it
    once."""
    from sqlalchemy import func, select

    from core.agents import writes
    from core.storage.orm import ContextEvent

    def queued() -> int:
        with hearth.storage.read() as session:
            return int(session.scalar(select(func.count()).select_from(ContextEvent)) or 0)

    agents.grant(hearth, "bot", "write")
    held = AgentTools(hearth, "bot").call("record_observation", {"content": "Likes jazz"})
    before = queued()

    def broken_audit(**_: object) -> None:
        raise OSError("disk full")

    with monkeypatch.context() as patched:
        patched.setattr(writes, "AuditEntry", broken_audit)
        with pytest.raises(OSError):
            agents.accept(hearth, held["write_id"])
    assert queued() == before
    assert [w.id for w in agents.held_writes(hearth)] == [held["write_id"]]
    agents.accept(hearth, held["write_id"])
    assert queued() == before + 1
    with pytest.raises(InvalidInputError, match="already accepted"):
        agents.accept(hearth, held["write_id"])
    assert queued() == before + 1
