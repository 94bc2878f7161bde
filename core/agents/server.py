"""``hearth mcp``: the agent tools (``core.agents.tools``) served over MCP with the official
``mcp`` SDK.

Each connection's agent is named by ``--agent NAME`` when the user put one in the client's
configuration, else by the client's own ``clientInfo.name`` from ``initialize``; a client
that gives neither is refused in a sentence saying how to name it. Over HTTP, a request
carrying an agent's named token is that agent, whatever the client says
(``core.agents.tokens``). Tools are plain
functions the SDK runs in a worker thread, so recall and embedding never block the
protocol. A refusal (no grant, bad input) reaches the agent as a tool error carrying
Hearth's one-sentence message and hint; an unexpected failure is logged to the data
folder's log file and reaches the agent only as "failed".

Only the protocol is written to stdout: the SDK's stdio transport points the process's
file descriptor 1 at stderr while it serves, so a stray print or a library's warning
cannot corrupt the stream, and Hearth's own log goes to ``<home>/logs/hearth.log``.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import Field

from core.agents import limits
from core.agents.http import AGENT_KEY
from core.agents.registry import normalise_name
from core.agents.services import AgentServices
from core.agents.stdio import answered_lines
from core.agents.tokens import AgentTokens
from core.agents.tools import AgentTools, Result
from core.errors import HearthError
from core.version import app_version

INSTRUCTIONS = (
    "Hearth is the user's private, local memory. Search it before asking the user something "
    "they may have told Hearth already; a result gives the part of a text that matched, "
    "and read_memory the whole text. What you write is held for the user's review unless "
    "they trust you; changing a fact the user set, and forgetting, always need their "
    "confirmation in Hearth.")
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def _limited(description: str, limit: int) -> str:
    """An argument's description with its limit (``core.agents.limits``), so an agent
    knows it before it sends too much."""
    return f"{description} (at most {limit:,} characters)"


class AgentServer:
    """The MCP server of one ``hearth mcp`` process over an open folder's agent services."""

    def __init__(self, services: AgentServices, agent: str | None = None) -> None:
        self._services = services
        self._agent = agent
        self._tools: dict[str, AgentTools] = {}
        self._lock = threading.Lock()
        self._tokens = AgentTokens(services.storage)
        self.mcp: MCPServer[Any] = MCPServer(
            name="hearth", title="Hearth memory", version=app_version(),
            instructions=INSTRUCTIONS, log_level="WARNING")
        self._register()

    def run_stdio(self) -> None:
        """Serve the client on stdin/stdout, answering its malformed lines too
        (``core.agents.stdio``)."""
        with answered_lines():
            self.mcp.run("stdio")

    def http_app(self) -> Any:
        """The SDK's streamable-HTTP app (at ``/mcp``), for ``core.agents.http``."""
        from core.agents.http import LOOPBACK, PATH

        return self.mcp.streamable_http_app(streamable_http_path=PATH, host=LOOPBACK)

    def _agent_name(self, ctx: Context[Any, Any]) -> str:
        """Who calls: over HTTP with an agent's named token, that agent; else ``--agent``,
        else the client's own name, which over HTTP may not be one that has its own token
        (holding the folder's token does not make a program that agent)."""
        scope: Mapping[str, Any] | None = getattr(ctx.request_context.request, "scope", None)
        if scope is not None and scope.get(AGENT_KEY):
            return str(scope[AGENT_KEY])
        name = self._agent
        if not name:
            params = ctx.session.client_params
            name = params.client_info.name if params is not None else ""
        if not name or not name.strip():
            raise ToolError("Hearth cannot tell which program this is: the client sent no "
                            "name. Add \"--agent\", \"NAME\" to Hearth's args in the client's "
                            "configuration.")
        if scope is not None and self._tokens.has_tokens(name):
            raise ToolError(f"{normalise_name(name)} has its own token: connect with it (the "
                            "folder's token cannot act as an agent that has one).")
        return name

    def _call(self, ctx: Context[Any, Any], tool: str, arguments: Mapping[str, Any]) -> Result:
        try:
            name = self._agent_name(ctx)
            with self._lock:
                tools = self._tools.get(name)
                if tools is None:
                    tools = self._tools[name] = AgentTools(self._services, name)
            return tools.call(tool, arguments)
        except HearthError as refused:
            raise ToolError(str(refused)) from refused

    def _register(self) -> None:
        mcp = self.mcp

        @mcp.tool(annotations=READ)
        def search_memory(
                query: Annotated[str, Field(
                    description=_limited("what to look for, in words", limits.QUERY))],
                ctx: Context[Any, Any],
                limit: Annotated[int, Field(ge=1, le=20, description="results wanted")] = 5,
                as_of: Annotated[str | None, Field(description=_limited(
                    "ask as of this moment: YYYY-MM-DD (the end of that day in the user's "
                    "time zone) or YYYY-MM-DDTHH:MM with an optional offset; nothing newer "
                    "is found and recency counts from it; empty for now",
                    limits.MOMENT))] = None,
        ) -> Result:
            """Search the user's memories and notes by meaning and keywords (Hearth's hybrid
            recall). Each result has the part of its text that matched (cut when long: `cut`
            says so, `read_more` gives read_memory's arguments for the whole text), its
            score, date and provenance. With `as_of`, the search sees only what existed
            at that moment."""
            asked: dict[str, Any] = {"query": query, "limit": limit}
            if as_of is not None:
                asked["as_of"] = as_of
            return self._call(ctx, "search_memory", asked)

        @mcp.tool(annotations=READ)
        def read_memory(
                kind: Annotated[Literal["memory", "note"], Field(
                    description="the kind a search_memory result gives")],
                item_id: Annotated[int, Field(
                    ge=1, description="the id a search_memory result gives")],
                ctx: Context[Any, Any],
                offset: Annotated[int, Field(
                    ge=0, description="the character to start from (next_offset of the part "
                                      "before)")] = 0,
        ) -> Result:
            """Read one memory or note that search_memory found, whole: a long text comes in
            parts, each giving the next_offset to read on from."""
            return self._call(ctx, "read_memory",
                              {"kind": kind, "item_id": item_id, "offset": offset})

        @mcp.tool(annotations=READ)
        def list_facts(ctx: Context[Any, Any], category: Annotated[str, Field(
                description="location, personal, preference, work, health or general; "
                            "empty for all")] = "") -> Result:
            """List the user's permanent facts (key, value, category)."""
            return self._call(ctx, "list_facts", {"category": category})

        @mcp.tool(annotations=READ)
        def recall_facts(
                query: Annotated[str, Field(
                    description=_limited("words in a fact's key or value", limits.QUERY))],
                ctx: Context[Any, Any]) -> Result:
            """Find the user's permanent facts whose key or value contains these words."""
            return self._call(ctx, "recall_facts", {"query": query})

        @mcp.tool(annotations=READ)
        def read_profile(ctx: Context[Any, Any]) -> Result:
            """Read About you, the narrative Hearth keeps about the user."""
            return self._call(ctx, "read_profile", {})

        @mcp.tool(annotations=WRITE)
        def remember_fact(
                key: Annotated[str, Field(
                    description=_limited("snake_case name, e.g. home_city", limits.KEY))],
                value: Annotated[str, Field(
                    description=_limited("the fact, in a few words", limits.TEXT))],
                ctx: Context[Any, Any],
                category: Annotated[str, Field(description="location, personal, preference, "
                                                           "work, health or general")] = "general",
        ) -> Result:
            """Save a permanent fact about the user. Held for the user's review unless they
            trust this agent; changing a value the user set always waits for their review."""
            return self._call(ctx, "remember_fact",
                              {"key": key, "value": value, "category": category})

        @mcp.tool(annotations=WRITE)
        def record_observation(
                content: Annotated[str, Field(
                    description=_limited("what you noticed about the user", limits.TEXT))],
                ctx: Context[Any, Any],
                category: Annotated[str, Field(description="a word for its topic")] = "general",
        ) -> Result:
            """Note something worth remembering about the user that is not a simple fact; Hearth
            consolidates it into memory. Held for review unless the user trusts this agent."""
            return self._call(ctx, "record_observation",
                              {"content": content, "category": category})

        @mcp.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                              open_world_hint=False))
        def forget_fact(key: Annotated[str, Field(description="the fact's key")],
                        ctx: Context[Any, Any]) -> Result:
            """Ask Hearth to forget a fact everywhere. Never done at once: the user must
            confirm it in Hearth."""
            return self._call(ctx, "forget_fact", {"key": key})
