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
from support.long_text import diary_with
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.types import Implementation
from sqlalchemy import select

from core.app import Hearth
from cli.main import run
from core.operations import agents
from core.storage.orm import AuditEntry, ContextEvent
from core.transfer.transcript import import_transcript

AGENT = "test-editor"
SECRET = "sk-" + "A1b2C3d4" * 4
NOTE = ("Allotment gate", "The padlock on the allotment gate opens with 4-1-7-7.")
PLANTED = "The spare key is taped under the blue flowerpot by the shed."
PASTED = {  # a conversation where the user pasted a diary: ~62,000 and ~16,000 characters
    "conversation_id": "diary-chat", "participants": ["user", "assistant"],
    "sessions": [{"session_id": "s1", "started_at": "2026-03-02T20:00:00+00:00", "turns": [
        {"turn_id": "t1", "speaker": "user", "text": diary_with(PLANTED, days=470)},
        {"turn_id": "t2", "speaker": "user", "text": diary_with("", days=120, seed=8)}]}]}


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
        hearth.about_you.save("Lives in Porto and cycles to work.", source="user")
        hearth.notes.save(*NOTE)
        import_transcript(PASTED, hearth.storage, hearth.memories)
    env = {"PATH": os.environ.get("PATH", ""), "HEARTH_HOME": str(home),
           "HOME": str(root / "user"), "XDG_CONFIG_HOME": str(root / "config"),
           "XDG_DATA_HOME": str(root / "data"), "XDG_CACHE_HOME": str(root / "cache"),
           "XDG_STATE_HOME": str(root / "state"), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "cli.main", "--home", str(home), "mcp"],
                                   env=env, cwd=str(Path(__file__).parents[3]))
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
        "search_memory", "read_memory", "list_facts", "recall_facts", "read_profile",
        "remember_fact", "record_observation", "forget_fact"}
    by_name = {tool.name: tool for tool in tools}
    assert by_name["search_memory"].annotations.read_only_hint is True
    assert by_name["read_memory"].annotations.read_only_hint is True
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
    (top,) = [result for result in found["results"] if "Brompton" in result["text"]]
    assert top["kind"] == "memory" and not top["cut"]
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
    question = "what opens the padlock of the allotment gate"

    _, found = client.call("search_memory", query=question, limit=3)
    capsys.readouterr()
    assert client.hearth("search", question, "--k", "3", "--json") == 0
    searched = json.loads(capsys.readouterr().out)

    assert (searched[0]["kind"], searched[0]["provenance"]["title"]) == ("note", NOTE[0])
    assert [(r["kind"], r["id"]) for r in searched] == [
        (r["kind"], r["id"]) for r in found["results"]]


def test_a_long_imported_turn_comes_back_as_the_part_that_matched(client: Client) -> None:
    """It came back whole: 62,000 characters for one result."""
    assert client.hearth("mcp", "grant", AGENT, "read") == 0

    failed, found = client.call("search_memory", query="where is the spare key hidden")
    assert not failed
    top = found["results"][0]
    assert PLANTED in top["text"] and len(top["text"]) <= 1_200
    with client.opened() as hearth:
        whole = hearth.memories.get(top["id"]).content
    assert top["kind"] == "memory" and top["length"] == len(whole) > 60_000
    assert top["cut"] and whole[top["at"][0]:top["at"][1]] == top["text"]
    assert top["provenance"]["turn_id"] == "t1" and top["created_at"].startswith("2026-03-02")
    assert top["read_more"] == {"kind": "memory", "item_id": top["id"], "offset": 0}
    assert found["cut"] and "read_memory" in found["note"]


def test_every_result_of_a_call_shares_one_bound(client: Client) -> None:
    """Every pasted diary matches: together they were ~78,000 characters in one answer."""
    assert client.hearth("mcp", "grant", AGENT, "read") == 0

    _, found = client.call("search_memory", query="practised the guitar riff", limit=5)
    texts = [result["text"] for result in found["results"]]
    assert len(texts) >= 2
    assert len(json.dumps(found)) < 6_000 + 600 * len(texts)  # with every provenance
    assert all(len(text) <= 1_200 for text in texts) and sum(map(len, texts)) <= 6_000
    assert all("guitar riff" in text for text in texts)
    assert sum(result["length"] for result in found["results"]) > 70_000


def test_an_agent_asks_as_of_a_moment_and_sees_only_what_was_said_before(
        client: Client) -> None:
    """The diary was imported as said on 2 March 2026: asked as of 1 March it is not there
    (nor the memory added today), asked as of 3 March it is."""
    assert client.hearth("mcp", "grant", AGENT, "read") == 0
    tools = {tool.name: tool for tool in client.portal.call(client.session.list_tools).tools}
    assert "as_of" in tools["search_memory"].input_schema["properties"]

    question = "where is the spare key hidden"
    _, before = client.call("search_memory", query=question, as_of="2026-03-01")
    assert before["results"] == []
    _, after = client.call("search_memory", query=question, as_of="2026-03-03T00:00Z")
    assert after["results"][0]["provenance"]["turn_id"] == "t1"
    failed, message = client.call("search_memory", query=question, as_of="next tuesday")
    assert failed and "YYYY-MM-DD" in message


def test_read_memory_reads_a_long_text_whole_in_parts(client: Client) -> None:
    assert client.hearth("mcp", "grant", AGENT, "read") == 0
    _, found = client.call("search_memory", query="where is the spare key hidden", limit=1)
    arguments = found["results"][0]["read_more"]

    parts = []
    while arguments is not None:
        failed, part = client.call("read_memory", **arguments)
        assert not failed and len(part["text"]) <= 20_000
        parts.append(part)
        arguments = part.get("read_more")
    with client.opened() as hearth:
        whole = hearth.memories.get(parts[0]["id"]).content
    assert "".join(part["text"] for part in parts) == whole
    assert [part["offset"] for part in parts] == list(range(0, len(whole), 20_000))
    assert parts[-1]["next_offset"] is None and parts[0]["next_offset"] == 20_000
    assert parts[0]["provenance"]["turn_id"] == "t1"

    failed, message = client.call("read_memory", kind="memory", item_id=parts[0]["id"],
                                  offset=len(whole) + 1)
    assert failed and f"has {len(whole):,} characters" in message
    failed, message = client.call("read_memory", kind="memory", item_id=99_999)
    assert failed and "There is no memory 99999" in message
    with client.opened() as hearth:
        (call, *_) = agents.calls_of(hearth, AGENT)
    assert (call.tool, call.kind) == ("read_memory", "read")

    _, found = client.call("search_memory", query="allotment gate padlock", limit=1)
    (note,) = found["results"]
    _, read = client.call("read_memory", kind="note", item_id=note["id"])
    assert (read["text"], read["provenance"]["title"], read["next_offset"]) == (
        NOTE[1], NOTE[0], None)
