"""``hearth mcp`` driven by the MCP SDK's own client over stdio: one server process for
the module (spawned as a user's MCP client would), on a data folder copied from the
template with a memory, a fact and a profile in it. The consent model is exercised through
the CLI the user would run (``hearth mcp grant``/``trust``/``review``/``accept``) in this
process, against the running server."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation
from sqlalchemy import select

from core.app import Hearth
from core.cli.main import run
from core.operations import agents
from core.storage.orm import AuditEntry, ContextEvent

AGENT = "test-editor"
SECRET = "sk-" + "A1b2C3d4" * 4
NOTE = ("Allotment shed", "The padlock on the allotment shed opens with 4-1-7-7.")


class Client:
    """Calls tools of the served Hearth from synchronous tests (through a blocking portal)."""

    def __init__(self, portal: BlockingPortal, session: ClientSession, home: Path) -> None:
        self.portal, self.session, self.home = portal, session, home

    def call(self, tool: str, **arguments: Any) -> tuple[bool, Any]:
        """(is_error, structured result or the error's text)."""
        result = self.portal.call(self.session.call_tool, tool, arguments)
        if result.is_error:
            return True, " ".join(c.text for c in result.content if hasattr(c, "text"))
        return False, result.structured_content

    def hearth(self, *argv: str) -> int:
        return run(["--home", str(self.home), *argv])

    def opened(self) -> Hearth:
        return Hearth.open(self.home)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory, sqlite_template,
           embedder) -> Iterator[Client]:
    root = tmp_path_factory.mktemp("mcp")
    home = sqlite_template.copy_home(root / "hearth")
    with Hearth.open(home, embedder=embedder) as hearth:
        hearth.memories.add("The user rides a green Brompton bike to work every morning.")
        hearth.facts.remember("home_city", "Porto", category="location")
        hearth.profile.save("Lives in Porto and cycles to work.", source="user")
        hearth.notes.save(*NOTE)
    env = {"PATH": os.environ.get("PATH", ""), "HEARTH_HOME": str(home),
           "HOME": str(root / "user"), "XDG_CONFIG_HOME": str(root / "config"),
           "XDG_DATA_HOME": str(root / "data"), "XDG_CACHE_HOME": str(root / "cache"),
           "XDG_STATE_HOME": str(root / "state"), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "core.cli.main", "--home", str(home), "mcp"],
                                   env=env, cwd=str(Path(__file__).parents[1]))
    with open(root / "server.stderr", "w") as errlog, start_blocking_portal() as portal:
        streams = portal.wrap_async_context_manager(stdio_client(params, errlog=errlog))
        with streams as (read, write):
            session_cm = portal.wrap_async_context_manager(ClientSession(
                read, write, client_info=Implementation(name="Test Editor", version="1.0")))
            with session_cm as session:
                portal.call(session.initialize)
                yield Client(portal, session, home)


@pytest.fixture(autouse=True)
def no_access(client: Client) -> None:
    """Each test starts from the agent's default: no access, not trusted."""
    assert client.hearth("mcp", "grant", AGENT, "none") == 0


def test_the_server_offers_the_memory_tools(client: Client) -> None:
    tools = client.portal.call(client.session.list_tools).tools
    assert {tool.name for tool in tools} == {
        "search_memory", "list_facts", "recall_facts", "read_profile", "remember_fact",
        "record_observation", "forget_fact"}
    by_name = {tool.name: tool for tool in tools}
    assert by_name["search_memory"].annotations.read_only_hint is True
    assert by_name["forget_fact"].annotations.destructive_hint is True


def test_an_unknown_agent_is_named_by_its_client_and_told_how_to_be_granted(
        client: Client, capsys) -> None:
    failed, message = client.call("search_memory", query="bike")
    assert failed
    assert "“test-editor” has no access" in message
    assert f"hearth mcp grant {AGENT} read" in message
    with client.opened() as hearth:
        (info,) = [a for a in agents.list_agents(hearth) if a.name == AGENT]
        assert (info.access, info.trusted) == ("none", False)
        (call, *_) = agents.calls_of(hearth, AGENT)
    assert (call.tool, call.kind) == ("search_memory", "read")
    assert call.summary.startswith("error: The agent “test-editor” has no access")


def test_read_access_searches_with_provenance_and_reads_facts_and_profile(
        client: Client) -> None:
    assert client.hearth("mcp", "grant", AGENT, "read") == 0

    failed, found = client.call("search_memory", query="what bicycle does the user ride",
                                limit=3)
    assert not failed
    top = found["results"][0]
    assert "Brompton" in top["text"] and top["kind"] == "memory"
    assert top["provenance"]["tier"] and top["created_at"]
    _, facts = client.call("list_facts")
    assert [(f["key"], f["value"]) for f in facts["facts"]] == [("home_city", "Porto")]
    _, facts = client.call("recall_facts", query="city")
    assert [f["key"] for f in facts["facts"]] == ["home_city"]
    _, profile = client.call("read_profile")
    assert profile["profile"] == "Lives in Porto and cycles to work."

    failed, message = client.call("remember_fact", key="bike", value="Brompton")
    assert failed and f"hearth mcp grant {AGENT} write" in message
    failed, message = client.call("search_memory", query="  ")
    assert failed and "needs some text" in message


def test_writes_are_held_for_review_and_audited_without_their_values(
        client: Client, capsys) -> None:
    assert client.hearth("mcp", "grant", AGENT, "write") == 0

    failed, held = client.call("remember_fact", key="Bike Brand", value="Brompton",
                               category="preference")
    assert not failed and held["status"] == "held"
    _, observed = client.call("record_observation",
                              content=f"Keeps the API token {SECRET} in a notebook")
    with client.opened() as hearth:
        assert hearth.facts.get("bike_brand") is None  # nothing applied before the review
    capsys.readouterr()
    assert client.hearth("mcp", "review", "--json") == 0
    waiting = {item["id"]: item for item in json.loads(capsys.readouterr().out)}
    assert waiting[held["write_id"]]["preview"] == "Remember bike brand: Brompton (preference)"

    assert client.hearth("mcp", "accept", str(held["write_id"])) == 0
    assert client.hearth("mcp", "reject", str(observed["write_id"])) == 0
    assert client.hearth("mcp", "reject", str(observed["write_id"])) == 1  # answered once

    with client.opened() as hearth:
        fact = hearth.facts.get("bike_brand")
        assert (fact.value, fact.source) == ("Brompton", f"agent:{AGENT}")
        with hearth.storage.read() as session:
            events = list(session.scalars(select(ContextEvent)))
            audited = list(session.scalars(select(AuditEntry).where(
                AuditEntry.actor == f"agent:{AGENT}")))
        assert not any("notebook" in e.content for e in events)  # rejected: not queued
        writes = {w.id: w.status for w in agents.writes_of(hearth, AGENT)}
        assert writes[held["write_id"]] == "accepted"
        assert writes[observed["write_id"]] == "rejected"
    remembered = [a for a in audited if a.action == "mcp.remember_fact"][-1]
    assert remembered.arguments["value"] == "[8 characters]"
    noted = [a for a in audited if a.action == "mcp.record_observation"][-1]
    assert SECRET not in json.dumps(noted.arguments) and "***" in noted.arguments["content"]


def test_a_trusted_agent_writes_at_once_but_a_forget_waits_for_the_user(
        client: Client) -> None:
    assert client.hearth("mcp", "grant", AGENT, "write") == 0
    assert client.hearth("mcp", "trust", AGENT) == 0

    _, applied = client.call("remember_fact", key="locker", value="number 12")
    assert applied["status"] == "accepted"
    _, noted = client.call("record_observation", content="Prefers tea to coffee",
                           category="food")
    assert noted["status"] == "accepted"
    _, asked = client.call("forget_fact", key="locker")
    assert asked["status"] == "held" and "confirmation" in asked["message"]

    with client.opened() as hearth:
        assert hearth.facts.get("locker").value == "number 12"  # not forgotten by the agent
        with hearth.storage.read() as session:
            (event,) = session.scalars(select(ContextEvent).where(
                ContextEvent.content == "Prefers tea to coffee"))
        assert event.event_type == "observation" and event.processed_at is None
        assert event.source_metadata["agent"] == AGENT
        agents.accept(hearth, asked["write_id"])  # the user's confirmation in the app
        assert hearth.facts.get("locker") is None
        kinds = {(c.tool, c.kind) for c in agents.calls_of(hearth, AGENT)}
    assert {("remember_fact", "write"), ("forget_fact", "write")} <= kinds

    failed, message = client.call("forget_fact", key="locker")
    assert failed and "no fact named locker" in message


def test_a_trusted_agent_cannot_replace_a_fact_the_user_set_without_their_review(
        client: Client, capsys) -> None:
    assert client.hearth("mcp", "grant", AGENT, "write") == 0
    assert client.hearth("mcp", "trust", AGENT) == 0

    failed, asked = client.call("remember_fact", key="home_city", value="Lisbon",
                                category="location")
    assert not failed and asked["status"] == "held"
    assert "set" in asked["message"] and "review" in asked["message"]
    with client.opened() as hearth:
        fact = hearth.facts.get("home_city")
        assert (fact.value, fact.source) == ("Porto", "user")
        assert hearth.facts.history("home_city") == []
    capsys.readouterr()
    assert client.hearth("mcp", "review", "--json") == 0
    waiting = {item["id"]: item for item in json.loads(capsys.readouterr().out)}
    assert waiting[asked["write_id"]]["preview"] == (
        "Change home city from Porto to Lisbon (location)")
    assert client.hearth("mcp", "reject", str(asked["write_id"])) == 0
    with client.opened() as hearth:
        assert hearth.facts.get("home_city").value == "Porto"


def test_the_command_finds_a_note_as_an_agent_does_with_the_same_ranking(
        client: Client, capsys) -> None:
    assert client.hearth("mcp", "grant", AGENT, "read") == 0
    question = "what opens the padlock of the allotment shed"

    _, found = client.call("search_memory", query=question, limit=3)
    capsys.readouterr()
    assert client.hearth("search", question, "--k", "3", "--json") == 0
    searched = json.loads(capsys.readouterr().out)

    assert (searched[0]["kind"], searched[0]["provenance"]["title"]) == ("note", NOTE[0])
    assert [(r["kind"], r["id"]) for r in searched] == [
        (r["kind"], r["id"]) for r in found["results"]]
