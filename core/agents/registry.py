"""Who is asking: each agent by name, with the user's grant and trust.

An agent is named by what its MCP client calls itself at ``initialize``
(``clientInfo.name``), or by the name the user gave it in its configuration
(``hearth mcp --agent NAME``). The name is normalised (lower case, words joined by "-") so
"Claude Desktop" and "claude-desktop" are one agent. An agent Hearth has not seen before is
recorded with no access: it can connect, but every tool answers how the user grants it
access, and its first such call is noted as a request for access (``asked``; the window
asks the user about it once: ``asking``). Only the user changes a grant (``grant``,
``trust``), and each change is audited. A grant may be narrowed: ``scope`` "search" lets
the agent only search memories and notes, and ``hidden`` keeps the facts and memories of
some categories from it (``core.agents.tools`` enforces both).
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from datetime import timedelta
from typing import Literal, cast

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core import clock
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.facts import CATEGORIES
from core.storage.orm import AGENT_ACCESS, AGENT_SCOPES, Agent, AuditEntry
from core.storage.port import StoragePort
from core.user_input import readable_text

Access = Literal["none", "read", "write"]
Scope = Literal["all", "search"]
MAX_NAME = 24
"""So that ``agent:<name>`` fits the audit log's 32-character actor column."""
SEEN_EVERY = timedelta(minutes=1)
"""``last_seen_at`` is rewritten at most this often: reads should not each be a write."""


def normalise_name(name: str) -> str:
    """``"Claude Desktop"`` → ``"claude-desktop"``; a name with no letters or digits is
    refused in a sentence."""
    readable_text(name, "The agent's name")
    normalised = re.sub(r"[\W_]+", "-", name.strip().lower()).strip("-")[:MAX_NAME].strip("-")
    if not normalised:
        raise InvalidInputError(f"The agent name {name!r} has no letters or digits.",
                                "Name it in a word or two, such as “claude-desktop”.")
    return normalised


def actor(name: str) -> str:
    """The audit log's actor for an agent's calls: ``agent:<name>``."""
    return f"agent:{name}"


def check_access(access: str) -> Access:
    if access not in AGENT_ACCESS:
        raise InvalidInputError(f"{access!r} is not an access level.",
                                "Use none, read (search and read) or write (read and write).")
    return cast(Access, access)


def check_scope(scope: str) -> Scope:
    if scope not in AGENT_SCOPES:
        raise InvalidInputError(f"{scope!r} is not a scope.",
                                "Use all (everything its access allows) or search (only "
                                "searching memories and notes).")
    return cast(Scope, scope)


def check_hidden(categories: Iterable[str]) -> list[str]:
    """Fact categories to keep from an agent, each checked, in the usual order."""
    wanted = {category.strip().lower() for category in categories}
    unknown = sorted(wanted - set(CATEGORIES))
    if unknown:
        raise InvalidInputError(f"{', '.join(map(repr, unknown))} is not a fact category.",
                                f"Use one of: {', '.join(CATEGORIES)}.")
    return [category for category in CATEGORIES if category in wanted]


def recorded(session: Session, name: str) -> Agent:
    """The agent ``name`` (already normalised), added with no access if Hearth has no row
    for it yet: the user may grant it, or make it a token, before it first connects."""
    agent = session.scalars(select(Agent).where(Agent.name == name)).first()
    if agent is None:
        now = clock.now()
        agent = Agent(name=name, access="none", trusted=False, first_seen_at=now,
                      last_seen_at=now)
        session.add(agent)
        session.flush()
    return agent


class AgentRegistry:
    """Record the agents that connect; grant, trust and list them."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def seen(self, name: str) -> Agent:
        """The agent ``name`` (normalised), recorded with no access on its first call."""
        name = normalise_name(name)
        now = clock.now()
        known = self.get(name)
        if known is not None and now - known.last_seen_at < SEEN_EVERY:
            return known
        with self._storage.write() as session:
            agent = self._find(session, name)
            if agent is None:
                agent = Agent(name=name, access="none", trusted=False, first_seen_at=now,
                              last_seen_at=now)
                session.add(agent)
            else:
                agent.last_seen_at = now
            session.flush()
            return agent

    def get(self, name: str) -> Agent | None:
        with self._storage.read() as session:
            return self._find(session, normalise_name(name))

    def require(self, name: str) -> Agent:
        agent = self.get(name)
        if agent is None:
            raise NotFoundError(f"No agent named {normalise_name(name)!r} has connected yet.",
                                "See `hearth mcp agents` for the ones that have.")
        return agent

    def list(self) -> builtins.list[Agent]:
        """Every agent, most recently seen first."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(Agent).order_by(
                Agent.last_seen_at.desc(), Agent.id)))

    def grant(self, name: str, access: str, *, scope: str | None = None,
              hidden: Iterable[str] | None = None) -> Agent:
        """Set what ``name`` may do, and (when given) how far its reading goes and which
        categories are kept from it; unchanged otherwise. An agent not seen yet is
        recorded, so the user can grant access before its first connection. Any answer,
        "none" included, ends its request for access."""
        access = check_access(access)
        name = normalise_name(name)
        scope = None if scope is None else check_scope(scope)
        kept = None if hidden is None else check_hidden(hidden)
        with self._storage.write() as session:
            agent = recorded(session, name)
            before, agent.access = agent.access, access
            if access != "write":
                agent.trusted = False  # trust means nothing without write access
            if scope is not None:
                agent.scope = scope
            if kept is not None:
                agent.hidden_categories = kept
            agent.answered_at = clock.now()
            session.add(AuditEntry(action="agent.grant", actor="user",
                                   arguments={"agent": name, "access": access,
                                              "scope": agent.scope,
                                              "hidden": list(agent.hidden_categories)},
                                   result_summary=f"{before} -> {access}"))
            session.flush()
            return agent

    def asked(self, name: str) -> None:
        """Note that ``name`` called a tool it has no access for: it asks for access. Only
        the first call is noted (one write per agent, not one per refused call)."""
        with self._storage.write() as session:
            session.execute(update(Agent).where(Agent.name == normalise_name(name),
                                                Agent.asked_at.is_(None))
                            .values(asked_at=clock.now()))

    def asking(self) -> builtins.list[Agent]:
        """The agents that asked for access and have no answer from the user yet, oldest
        request first."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(
                select(Agent).where(Agent.asked_at.is_not(None), Agent.answered_at.is_(None),
                                    Agent.access == "none").order_by(Agent.asked_at)))

    def trust(self, name: str, trusted: bool = True) -> Agent:
        """Let the agent's facts and observations be applied without review (forgetting is
        still always held for the user). Trust needs write access."""
        name = normalise_name(name)
        with self._storage.write() as session:
            agent = self._find(session, name)
            if agent is None:
                raise NotFoundError(f"No agent named {name!r} has connected yet.",
                                    "See `hearth mcp agents` for the ones that have.")
            if trusted and agent.access != "write":
                raise InvalidInputError(
                    f"{name} has {agent.access} access; only an agent that may write can be "
                    "trusted with its writes.", f"First: `hearth mcp grant {name} write`.")
            agent.trusted = trusted
            session.add(AuditEntry(action="agent.trust", actor="user",
                                   arguments={"agent": name, "trusted": trusted},
                                   result_summary="trusted" if trusted else "not trusted"))
            session.flush()
            return agent

    @staticmethod
    def _find(session: Session, name: str) -> Agent | None:
        return session.scalars(select(Agent).where(Agent.name == name)).first()
