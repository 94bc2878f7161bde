"""The agent tools in process (``core.agents.tools``): the chat's gates apply to agents'
writes (learning paused, exclusions), refusals are audited too, and trust follows the
grant."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.long_text import diary_with

from core.agents.registry import AgentRegistry
from core.agents.tools import AccessDenied, AgentTools
from core.app import Hearth
from core.config import Settings
from core.errors import HearthError, InvalidInputError
from core.operations import agents


def opened(home: Path, embedder, **settings) -> Hearth:
    return Hearth.open(home, settings=Settings(**settings), embedder=embedder)


def test_nothing_is_written_while_learning_is_paused(migrated_home: Path, embedder) -> None:
    with opened(migrated_home, embedder, learning_paused=True) as hearth:
        agents.grant(hearth, "bot", "write")
        with pytest.raises(AccessDenied, match="paused learning"):
            AgentTools(hearth.agent_services(), "bot").call("record_observation",
                                                            {"content": "Likes jazz"})
        assert agents.held_writes(hearth) == ()
        (call,) = agents.calls_of(hearth, "bot")
        assert call.summary == "error: The user has paused learning, so nothing new is stored."


def test_an_excluded_topic_is_not_stored_even_for_review(migrated_home: Path,
                                                         embedder) -> None:
    with opened(migrated_home, embedder, exclusions=["salary"]) as hearth:
        agents.grant(hearth, "bot", "write")
        tools = AgentTools(hearth.agent_services(), "bot")
        with pytest.raises(AccessDenied, match="never to be stored"):
            tools.call("remember_fact", {"key": "salary", "value": "plenty"})
        assert tools.call("remember_fact", {"key": "pet", "value": "a cat"})["status"] == "held"
        assert [w.preview for w in agents.held_writes(hearth)] == [
            "Remember pet: a cat (general)"]


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
    held = AgentTools(hearth.agent_services(), "bot").call("record_observation",
                                                           {"content": "Likes jazz"})
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


def _audit_of(hearth: Hearth, name: str) -> list:
    from sqlalchemy import select

    from core.storage.orm import AuditEntry

    with hearth.storage.read() as session:
        return list(session.scalars(select(AuditEntry).where(
            AuditEntry.actor == f"agent:{name}").order_by(AuditEntry.id)))


@pytest.mark.parametrize(("tool", "argument", "limit"), [
    ("search_memory", "query", 4_000), ("recall_facts", "query", 4_000),
    ("list_facts", "category", 64), ("remember_fact", "key", 200),
    ("remember_fact", "value", 10_000), ("remember_fact", "category", 64),
    ("record_observation", "content", 10_000), ("record_observation", "category", 64),
    ("forget_fact", "key", 200), ("read_memory", "kind", 64), ("search_memory", "as_of", 40)])
def test_every_argument_is_bounded_in_a_sentence_naming_it_and_its_limit(
        hearth: Hearth, tool: str, argument: str, limit: int) -> None:
    """Checked before the grant, so even an agent with no access learns the limit, and an
    argument one character over it is refused while one at it is not refused for size."""
    tools = AgentTools(hearth.agent_services(), "bot")
    others = {"key": "pet", "value": "a cat", "content": "Likes jazz", "query": "jazz"}
    arguments = {name: value for name, value in others.items()
                 if name in {"remember_fact": {"key", "value"}, "forget_fact": {"key"},
                             "record_observation": {"content"}, "search_memory": {"query"},
                             "recall_facts": {"query"}}.get(tool, set())}
    arguments[argument] = "a" * (limit + 1)
    with pytest.raises(InvalidInputError) as refused:
        tools.call(tool, arguments)
    assert f"“{argument}”" in refused.value.message
    assert f"{limit:,}" in refused.value.message + refused.value.hint
    arguments[argument] = "a" * limit
    with pytest.raises(AccessDenied):  # within the limit: on to the grant, which it lacks
        tools.call(tool, arguments)


def test_a_refused_call_is_audited_by_size_and_hash_without_its_content(
        hearth: Hearth) -> None:
    tools = AgentTools(hearth.agent_services(), "bot")
    with pytest.raises(AccessDenied):
        tools.call("record_observation", {"content": "Walks the dog at six", "category": "pets"})
    with pytest.raises(InvalidInputError):
        tools.call("search_memory", {"query": "dog " * 2_000})
    observed, searched = _audit_of(hearth, "bot")
    assert observed.action == "mcp.record_observation"
    assert set(observed.arguments) == {"bytes", "sha256"}
    assert observed.arguments["bytes"] == len(
        '{"category": "pets", "content": "Walks the dog at six"}')
    assert len(observed.arguments["sha256"]) == 64
    assert "dog" not in str(observed.arguments) and "dog" not in str(searched.arguments)
    assert searched.arguments["bytes"] > 8_000
    assert observed.result_summary.startswith("error: The agent “bot” has no access")


def test_a_flood_of_big_refused_calls_leaves_the_database_bounded(hearth: Hearth) -> None:
    """The probe's attack: an agent with no grant sends megabyte observations as fast as it
    can. Past the first refusals of the minute, one entry counts the rest."""
    from datetime import timedelta

    from core import clock
    from core.agents.refusals import LISTED_PER_WINDOW

    tools = AgentTools(hearth.agent_services(), "bot")
    big = "x" * 1_000_000
    before = hearth.storage.size_bytes()
    for _ in range(60):
        with pytest.raises(HearthError):
            tools.call("record_observation", {"content": big})
    rows = _audit_of(hearth, "bot")
    assert hearth.storage.size_bytes() - before < 1_000_000
    assert len(rows) == LISTED_PER_WINDOW + 1
    counted = rows[-1]
    assert counted.arguments["refused"] == 60 - LISTED_PER_WINDOW
    assert counted.arguments["bytes"] == (60 - LISTED_PER_WINDOW) * len(
        json.dumps({"content": big}))
    assert counted.result_summary.startswith(f"error: {60 - LISTED_PER_WINDOW} more refused")
    with clock.shifted(timedelta(minutes=2)), pytest.raises(AccessDenied):
        tools.call("read_profile", {})  # a new minute: listed one by one again
    assert len(_audit_of(hearth, "bot")) == LISTED_PER_WINDOW + 2


def test_a_trusted_agent_changes_facts_except_those_the_user_set_which_wait_for_review(
        hearth: Hearth) -> None:
    hearth.facts.remember("home_city", "Porto", category="location", source="user")
    hearth.facts.remember("coffee", "flat white", category="preference", source="agent")
    agents.grant(hearth, "bot", "write")
    agents.trust(hearth, "bot")
    tools = AgentTools(hearth.agent_services(), "bot")

    def remember(key: str, value: str) -> dict:
        return tools.call("remember_fact", {"key": key, "value": value})

    assert remember("pet", "a cat")["status"] == "accepted"  # a new fact
    assert remember("pet", "two cats")["status"] == "accepted"  # its own
    assert remember("coffee", "espresso")["status"] == "accepted"  # Hearth's learning's
    assert remember("home_city", "Porto")["status"] == "accepted"  # the same value: no change
    held = remember("home_city", "Lisbon")
    assert held["status"] == "held" and "the user set" in held["message"].lower()
    assert (hearth.facts.get("pet").value, hearth.facts.get("coffee").value) == (
        "two cats", "espresso")
    assert hearth.facts.get("home_city").value == "Porto"

    agents.accept(hearth, held["write_id"])  # the user's review
    fact = hearth.facts.get("home_city")
    assert (fact.value, fact.source) == ("Lisbon", "agent:bot")
    assert [h.value for h in hearth.facts.history("home_city")] == ["Porto"]


def test_a_value_the_user_sets_while_an_agent_writes_is_not_replaced(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check is made again where the fact is written: an agent that looked before the
    user's value arrived still cannot replace it."""
    from core.knowledge.facts import FactService

    agents.grant(hearth, "bot", "write")
    agents.trust(hearth, "bot")
    tools = AgentTools(hearth.agent_services(), "bot")
    hearth.facts.remember("home_city", "Porto", category="location", source="user")
    monkeypatch.setattr(FactService, "get", lambda self, key: None)  # the earlier look
    assert tools.call("remember_fact", {"key": "home_city", "value": "Lisbon"})[
        "status"] == "held"
    monkeypatch.undo()
    assert hearth.facts.get("home_city").value == "Porto"


def test_what_an_agent_reads_is_bounded_by_the_settings(migrated_home: Path,
                                                        embedder) -> None:
    planted = "The spare key is taped under the blue flowerpot by the shed."
    with opened(migrated_home, embedder, mcp_result_chars=300, mcp_search_chars=500,
                mcp_read_chars=1_000) as hearth:
        diary = hearth.memories.add(diary_with(planted, days=30))
        hearth.memories.add("The spare key used to hang on a hook by the door.")
        hearth.memories.add(diary_with("I lost the spare key of the bike lock.", days=12))
        for other in ("Likes jazz on Sunday mornings.", "The car is due for its service.",
                      "Ana's birthday is in June.", "Allergic to penicillin."):
            hearth.memories.add(other)  # so that "spare" and "key" are not in every memory
        agents.grant(hearth, "bot", "read")
        tools = AgentTools(hearth.agent_services(), "bot")

        found = tools.call("search_memory", {"query": "where is the spare key", "limit": 5})
        texts = [result["text"] for result in found["results"]]
        assert len(texts) == 3 and any(planted in text for text in texts)
        assert "The spare key used to hang on a hook by the door." in texts  # whole: short
        assert max(map(len, texts)) <= 300 and sum(map(len, texts)) <= 500
        assert "300 characters a result, 500 a call" in found["note"]

        read = tools.call("read_memory", {"kind": "memory", "item_id": diary.id})
        assert read["text"] == diary.content[:1_000] and read["next_offset"] == 1_000
        with pytest.raises(InvalidInputError, match="'offset' needs a whole number"):
            tools.call("read_memory", {"kind": "memory", "item_id": diary.id, "offset": -1})


def test_an_agent_searches_as_of_a_moment_given_as_iso_text(hearth: Hearth) -> None:
    """``as_of`` leaves out what was said after the moment; a moment that is not ISO text
    is refused in a sentence, an empty one means now."""
    from datetime import datetime, timezone

    hearth.memories.add("The spare key hangs on the hook by the door.",
                        created_at=datetime(2025, 1, 5, tzinfo=timezone.utc))
    hearth.memories.add("The spare key is now under the blue flowerpot.",
                        created_at=datetime(2025, 6, 5, tzinfo=timezone.utc))
    agents.grant(hearth, "bot", "read")
    tools = AgentTools(hearth.agent_services(), "bot")

    def texts(**arguments: object) -> list[str]:
        found = tools.call("search_memory", {"query": "where is the spare key", **arguments})
        return [result["text"] for result in found["results"]]

    assert len(texts()) == len(texts(as_of="")) == 2
    assert texts(as_of="2025-03-01") == ["The spare key hangs on the hook by the door."]
    assert len(texts(as_of="2025-06-05T12:00Z")) == 2
    for wrong in ("last spring", "2025-02-30", 20250301, ["2025-03-01"]):
        with pytest.raises(InvalidInputError) as refused:
            tools.call("search_memory", {"query": "spare key", "as_of": wrong})
        assert "YYYY-MM-DD" in refused.value.hint
