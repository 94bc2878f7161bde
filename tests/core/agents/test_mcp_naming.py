"""How a connection is named, in process (the SDK's in-memory client on the server object,
no subprocess): by ``--agent`` when the user gave one, else by the client's own name; a
client that gives neither is refused with how to name it."""

from __future__ import annotations

from typing import Any

import anyio
from mcp.client.client import Client
from mcp.types import Implementation

from core.agents.server import AgentServer
from core.operations import agents


def call(server: AgentServer, client_name: str, tool: str, **arguments: Any) -> tuple[bool, str]:
    async def go() -> tuple[bool, str]:
        async with Client(server.mcp, client_info=Implementation(name=client_name,
                                                                 version="1")) as client:
            result = await client.call_tool(tool, arguments)
            return result.is_error, " ".join(getattr(c, "text", "") for c in result.content)

    return anyio.run(go)


def test_the_client_name_names_the_agent(hearth) -> None:
    failed, message = call(AgentServer(hearth.agent_services()), "Zed Editor", "list_facts")
    assert failed and "hearth mcp grant zed-editor read" in message
    assert [a.name for a in agents.list_agents(hearth)] == ["zed-editor"]


def test_the_name_the_user_gave_wins_over_the_clients(hearth) -> None:
    agents.grant(hearth, "my-notes", "read")
    failed, text = call(AgentServer(hearth.agent_services(), "my-notes"), "Zed Editor",
                        "list_facts")
    assert not failed and '"facts": []' in text
    assert [a.name for a in agents.list_agents(hearth)] == ["my-notes"]
    (entry,) = agents.calls_of(hearth, "my-notes")
    assert (entry.tool, entry.summary) == ("list_facts", "0 facts")


def test_a_client_without_a_name_is_told_how_to_name_it(hearth) -> None:
    failed, message = call(AgentServer(hearth.agent_services()), " ", "read_profile")
    assert failed and '"--agent", "NAME"' in message
    assert agents.list_agents(hearth) == ()
