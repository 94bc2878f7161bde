"""A narrower grant, enforced by the tools (``core.agents.tools``), and an agent's request
for access (``core.agents.registry``): an agent limited to searching has only
``search_memory``; the categories kept from an agent are as if they did not exist for it;
an agent with no access that calls a tool asks for access once, and any answer ends it. The
plain sentence of what a grant covers (``core.agents.coverage``)."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import select

from core.agents.coverage import covers
from core.agents.tools import AccessDenied, AgentTools
from core.app import Hearth
from core.errors import InvalidInputError
from core.operations import agents
from core.storage.orm import Memory


@pytest.fixture
def known(hearth: Hearth) -> Hearth:
    hearth.facts.remember("home_city", "Porto", category="location")
    hearth.facts.remember("allergy", "penicillin", category="health")
    hearth.memories.add("The user's knee is better after physiotherapy.", category="health")
    hearth.memories.add("The user's knee of lamb recipe needs rosemary.", category="food")
    hearth.about_you.save("Lives in Porto; allergic to penicillin.", source="user")
    return hearth


def keys(result: dict) -> list[str]:
    return [fact["key"] for fact in result["facts"]]


def test_an_agent_with_no_access_asks_once_and_any_answer_ends_it(hearth: Hearth) -> None:
    tools = AgentTools(hearth.agent_services(), "Notes Bot")
    assert agents.asking(hearth) == ()  # connected, asked nothing yet
    for _ in range(2):
        with pytest.raises(AccessDenied):
            tools.call("list_facts", {})
    (asking,) = agents.asking(hearth)
    assert asking.name == "notes-bot" and asking.asking and asking.access == "none"
    agents.grant(hearth, "notes-bot", "none")  # Deny
    assert agents.asking(hearth) == ()
    with pytest.raises(AccessDenied):
        tools.call("list_facts", {})
    assert agents.asking(hearth) == ()  # denied is denied: it does not ask again
    agents.grant(hearth, "notes-bot", "read", scope="search", hidden=["health"])
    (info,) = agents.list_agents(hearth)
    assert (info.access, info.scope, info.hidden, info.asking) == (
        "read", "search", ("health",), False)


def test_search_only_leaves_the_agent_search_memory_alone(known: Hearth) -> None:
    agents.grant(known, "searcher", "read", scope="search")
    tools = AgentTools(known.agent_services(), "searcher")
    found = tools.call("search_memory", {"query": "knee", "limit": 5})["results"]
    assert any("physiotherapy" in r["text"] for r in found)
    for tool, arguments in (("list_facts", {}), ("recall_facts", {"query": "Porto"}),
                            ("read_profile", {})):
        with pytest.raises(AccessDenied, match="only search their memories"):
            tools.call(tool, arguments)


def test_a_category_kept_from_the_agent_is_as_if_it_did_not_exist(known: Hearth) -> None:
    agents.grant(known, "helper", "write", hidden=["health"])
    tools = AgentTools(known.agent_services(), "helper")
    assert keys(tools.call("list_facts", {})) == ["home_city"]
    assert keys(tools.call("recall_facts", {"query": "penicillin"})) == []
    with pytest.raises(AccessDenied, match="keeps health facts and memories"):
        tools.call("list_facts", {"category": "health"})
    found = tools.call("search_memory", {"query": "knee physiotherapy", "limit": 5})["results"]
    assert not any("physiotherapy" in r["text"] for r in found)
    found = tools.call("search_memory", {"query": "lamb rosemary", "limit": 5})["results"]
    assert [r["text"] for r in found] == ["The user's knee of lamb recipe needs rosemary."]
    with pytest.raises(AccessDenied, match="profile touches every part"):
        tools.call("read_profile", {})
    with pytest.raises(AccessDenied, match="keeps health facts"):
        tools.call("remember_fact", {"key": "blood_type", "value": "O+", "category": "health"})
    with pytest.raises(AccessDenied, match="keeps health facts"):
        tools.call("remember_fact", {"key": "allergy", "value": "none", "category": "general"})
    with pytest.raises(InvalidInputError, match="no fact named allergy"):
        tools.call("forget_fact", {"key": "allergy"})
    assert known.facts.get("allergy").value == "penicillin"
    agents.grant(known, "helper", "write", hidden=[])  # shared again
    assert keys(tools.call("list_facts", {})) == ["allergy", "home_city"]


def test_read_memory_reads_only_what_a_search_could_find_for_the_agent(
        known: Hearth) -> None:
    with known.storage.read() as session:
        ids = {memory.content: memory.id for memory in session.scalars(select(Memory))}
    knee = ids["The user's knee is better after physiotherapy."]
    lamb = ids["The user's knee of lamb recipe needs rosemary."]
    agents.grant(known, "searcher", "read", scope="search", hidden=["health"])
    tools = AgentTools(known.agent_services(), "searcher")

    read = tools.call("read_memory", {"kind": "memory", "item_id": lamb})  # search scope
    assert (read["text"], read["next_offset"]) == (
        "The user's knee of lamb recipe needs rosemary.", None)
    with pytest.raises(InvalidInputError, match=f"There is no memory {knee} to read"):
        tools.call("read_memory", {"kind": "memory", "item_id": knee})  # a kept category
    known.memories.invalidate(lamb, "wrong recipe")
    with pytest.raises(InvalidInputError, match=f"There is no memory {lamb} to read"):
        tools.call("read_memory", {"kind": "memory", "item_id": lamb})  # no longer in use
    with pytest.raises(InvalidInputError, match="'fact' is not a kind read_memory reads"):
        tools.call("read_memory", {"kind": "fact", "item_id": 1})
    agents.grant(known, "searcher", "none")
    with pytest.raises(AccessDenied, match="cannot use read_memory"):
        tools.call("read_memory", {"kind": "memory", "item_id": knee})


def test_an_unknown_category_or_scope_is_refused_in_a_sentence(hearth: Hearth) -> None:
    with pytest.raises(InvalidInputError, match="'secrets' is not a fact category"):
        agents.grant(hearth, "helper", "read", hidden=["secrets"])
    with pytest.raises(InvalidInputError, match="'nearly' is not a scope"):
        agents.grant(hearth, "helper", "read", scope="nearly")


def test_what_a_grant_covers_is_said_in_plain_words() -> None:
    assert "health-related ones too" in covers("read")
    assert "About you" in covers("read")
    assert covers("read", "search").startswith("It may only search your memories and notes;")
    kept = covers("read", hidden=["work", "health"])
    assert "except anything about your work and your health" in kept
    assert "cannot read About you" in kept and "health-related" not in kept
    assert "waits for your review" in covers("write")
    assert covers("none") == "It cannot read or change anything in your memory."


def test_the_cli_grants_a_narrower_scope_and_lists_it(hearth: Hearth, capsys) -> None:
    from cli.main import run

    with pytest.raises(AccessDenied):
        AgentTools(hearth.agent_services(), "stranger").call("read_profile", {})
    home = str(hearth.paths.home)
    assert run(["--home", home, "mcp", "grant", "notes-bot", "read", "--only-search",
                "--keep-private", "health"]) == 0
    said = capsys.readouterr().out
    assert "notes-bot now has read access. It may only search your memories and notes, " \
           "except anything about your health" in " ".join(said.split())
    assert run(["--home", home, "mcp", "agents", "--json"]) == 0
    listed = {agent["name"]: agent for agent in json.loads(capsys.readouterr().out)}
    assert (listed["notes-bot"]["scope"], listed["notes-bot"]["hidden"]) == (
        "search", ["health"])
    assert listed["stranger"]["asking"]  # waits for an answer
