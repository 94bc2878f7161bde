"""Agents over MCP for the window and the CLI: who connected, what each may do, what they
asked to write (held for review) and what they read and wrote (the audit log); and serving
the memory to them, over stdio or HTTP (``hearth mcp``).

Plain frozen data over ``core.agents``; accepting a write reports the domain it changed
(facts, or the memory an observation or a forget moves) as well as the agents' list."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from core.agents.coverage import covers
from core.agents.registry import AgentRegistry, normalise_name
from core.agents.tokens import AgentTokens, TokenInfo, client_configuration
from core.agents.tools import READ_TOOLS, history
from core.agents.writes import AgentWrites
from core.app import Hearth
from core.errors import InvalidInputError
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import Agent, AgentWrite

AGENTS = Changes.of(Domain.AGENTS)

__all__ = ["AgentCall", "AgentInfo", "AgentWriteItem", "Listening", "NewToken", "TokenInfo",
           "accept", "add_token", "asking", "calls_of", "covers", "grant", "held_writes",
           "list_agents", "normalise_name", "reject", "revoke_tokens", "serve_http",
           "serve_stdio", "tokens", "trust", "writes_of"]


@dataclass(frozen=True)
class AgentInfo:
    """One agent. ``access``: "none", "read" or "write" (read and write); ``scope``: "all"
    or "search" (only searching memories and notes); ``hidden``: the fact categories kept
    from it; ``asking``: it asked for access and the user has not answered yet."""

    name: str
    access: str
    trusted: bool
    first_seen_at: datetime
    last_seen_at: datetime
    held: int = 0
    """How many of its writes wait for the user's review."""
    scope: str = "all"
    hidden: tuple[str, ...] = ()
    asking: bool = False

    @property
    def covers(self) -> str:
        """What it may do, in plain words (``core.agents.coverage``)."""
        return covers(self.access, self.scope, self.hidden, self.trusted)


@dataclass(frozen=True)
class AgentWriteItem:
    """A write an agent asked for. ``status``: "held", "accepted" or "rejected"."""

    id: int
    agent: str
    action: str
    preview: str
    status: str
    created_at: datetime
    decided_at: datetime | None
    result: str | None


@dataclass(frozen=True)
class AgentCall:
    """One audited call of an agent: ``kind`` "read" or "write"; ``arguments`` redacted."""

    at: datetime
    tool: str
    kind: str
    arguments: dict[str, Any]
    summary: str


def _info(agent: Agent, held: int = 0) -> AgentInfo:
    asking = agent.asked_at is not None and agent.answered_at is None and agent.access == "none"
    return AgentInfo(agent.name, agent.access, agent.trusted, agent.first_seen_at,
                     agent.last_seen_at, held, agent.scope, tuple(agent.hidden_categories),
                     asking)


def _item(row: AgentWrite, name: str) -> AgentWriteItem:
    return AgentWriteItem(row.id, name, row.action, row.preview, row.status, row.created_at,
                          row.decided_at, row.result)


def list_agents(hearth: Hearth) -> tuple[AgentInfo, ...]:
    """Every agent that connected (or was granted access), most recently seen first, with
    how many of its writes wait for review."""
    held = Counter(name for _row, name in AgentWrites(hearth.agent_services()).held())
    return tuple(_info(agent, held[agent.name]) for agent in AgentRegistry(hearth.storage).list())


def grant(hearth: Hearth, name: str, access: str, *, scope: str | None = None,
          hidden: Iterable[str] | None = None) -> Done[AgentInfo]:
    """Set what an agent may do; ``scope`` and ``hidden`` (when given) narrow its reading.
    Any answer ends its request for access."""
    agent = AgentRegistry(hearth.storage).grant(name, access, scope=scope, hidden=hidden)
    return Done(_info(agent), AGENTS)


def asking(hearth: Hearth) -> tuple[AgentInfo, ...]:
    """The agents asking for access that the user has not answered, oldest first."""
    return tuple(_info(agent) for agent in AgentRegistry(hearth.storage).asking())


def trust(hearth: Hearth, name: str, trusted: bool = True) -> Done[AgentInfo]:
    return Done(_info(AgentRegistry(hearth.storage).trust(name, trusted)), AGENTS)


def held_writes(hearth: Hearth) -> tuple[AgentWriteItem, ...]:
    """The writes waiting for the user's answer, oldest first."""
    return tuple(_item(row, name) for row, name in AgentWrites(hearth.agent_services()).held())


def writes_of(hearth: Hearth, name: str) -> tuple[AgentWriteItem, ...]:
    """Everything one agent asked to write, answered or not, oldest first."""
    agent = AgentRegistry(hearth.storage).require(name)
    writes = AgentWrites(hearth.agent_services())
    return tuple(_item(row, n) for row, n in writes.of_agent(agent.name))


def calls_of(hearth: Hearth, name: str) -> tuple[AgentCall, ...]:
    """What one agent read and wrote, newest first (its audited calls)."""
    agent = AgentRegistry(hearth.storage).require(name)
    calls = []
    for entry in history(hearth.storage, agent.name):
        tool = entry.action.removeprefix("mcp.")
        calls.append(AgentCall(entry.timestamp, tool, "read" if tool in READ_TOOLS else "write",
                               dict(entry.arguments), entry.result_summary))
    return tuple(calls)


def accept(hearth: Hearth, write_id: int) -> Done[AgentWriteItem]:
    """Apply a held write (a forget included: accepting it is the user's confirmation)."""
    row = AgentWrites(hearth.agent_services()).accept(write_id)
    return Done(_item(row, _agent_name(hearth, row)), AGENTS | Changes.knowledge())


def reject(hearth: Hearth, write_id: int) -> Done[AgentWriteItem]:
    row = AgentWrites(hearth.agent_services()).reject(write_id)
    return Done(_item(row, _agent_name(hearth, row)), AGENTS)


def _agent_name(hearth: Hearth, row: AgentWrite) -> str:
    with hearth.storage.read() as session:
        agent = session.get(Agent, row.agent_id)
        return agent.name if agent is not None else "?"


@dataclass(frozen=True)
class NewToken:
    """A token just made: ``token`` is shown to the user this once and never stored."""

    token: str
    info: TokenInfo
    configuration: str
    """The client configuration that uses it (``hearth mcp --http`` on its default port)."""


def tokens(hearth: Hearth, name: str | None = None) -> tuple[TokenInfo, ...]:
    """The live named tokens (of one agent, or every agent's), oldest first."""
    return tuple(AgentTokens(hearth.storage).list(name))


def add_token(hearth: Hearth, name: str) -> Done[NewToken]:
    token, info = AgentTokens(hearth.storage).add(name)
    return Done(NewToken(token, info, client_configuration(token)), AGENTS)


def revoke_tokens(hearth: Hearth, name: str, token_id: int | None = None) -> Done[int]:
    """Revoke the agent's tokens (or one of them); how many were revoked."""
    return Done(AgentTokens(hearth.storage).revoke(name, token_id), AGENTS)


# --- serving -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Listening:
    """Where an HTTP server took its port: the address clients use, and the file that
    holds the bearer token they need."""

    url: str
    token_file: Path


def serve_stdio(hearth: Hearth, name: str | None) -> None:
    """Serve the memory over MCP on stdin/stdout until the client leaves; ``name`` (already
    ``normalise_name``d) names the connection, else the client's own name does."""
    from core.agents.server import AgentServer

    AgentServer(hearth.agent_services(), name).run_stdio()


def serve_http(hearth: Hearth, name: str | None, port: int, *, renew_token: bool = False,
               listening: Callable[[Listening], None] = lambda _where: None) -> None:
    """Serve the memory over streamable HTTP on 127.0.0.1:``port`` (0: any free one) behind
    the folder's bearer token (a new one with ``renew_token``) and the agents' named tokens,
    until interrupted; ``listening`` is told where once the port is taken. A port that
    cannot be used is a sentence naming ``hearth mcp``'s ``--port``: only the command line
    serves HTTP."""
    from core.agents import http as over_http
    from core.agents.server import AgentServer

    server = AgentServer(hearth.agent_services(), name)
    token = over_http.bearer_token(hearth.paths.home, renew=renew_token)
    try:
        sock = over_http.listen(port)
    except OSError as exc:
        raise InvalidInputError(f"Port {port} on 127.0.0.1 cannot be used ({exc.strerror}).",
                                "Choose another with --port, or --port 0 for any free one."
                                ) from exc
    host, bound = sock.getsockname()[:2]
    listening(Listening(f"http://{host}:{bound}{over_http.PATH}",
                        over_http.token_path(hearth.paths.home)))
    with sock:
        over_http.serve(server.http_app(), token, AgentTokens(hearth.storage), sock)
