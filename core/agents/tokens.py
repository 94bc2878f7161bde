"""Named tokens: a bearer token the user makes for one agent, so that over HTTP the agent is
whoever the token says, not whatever its client calls itself.

The folder's own token (``core.agents.http``) proves only that a program may connect; the
client then names itself, so a program holding it could claim a trusted agent's name. A
named token (``hearth mcp token add NAME``) binds the connection to NAME: consent, review
and audit use that name whatever ``clientInfo.name`` says.

A token is random (32 bytes, URL-safe) and shown once; only its SHA-256 is stored, so the
database (or an export of it) does not hold a usable token. Checking a presented token
hashes it and compares the hash with every live token's in constant time
(``hmac.compare_digest``, no early exit), reading the table on every request: a revoked
token is refused on its very next request, by a server that is already running. Adding
and revoking are audited (actor ``user``); the audit never holds the token.
"""

from __future__ import annotations

import builtins
import hashlib
import hmac
import json
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select

from core import clock
from core.agents.registry import SEEN_EVERY, normalise_name, recorded
from core.errors import NotFoundError
from core.storage.orm import Agent, AgentToken, AuditEntry
from core.storage.port import StoragePort


@dataclass(frozen=True)
class TokenInfo:
    """One live token, as the user sees it: never the token itself."""

    id: int
    agent: str
    created_at: datetime
    last_used_at: datetime | None


def client_configuration(token: str, port: int = 8765) -> str:
    """The ``mcpServers`` entry a client needs to use ``token`` (``hearth mcp --http`` on
    ``port``), as JSON to paste into its configuration."""
    return json.dumps({"mcpServers": {"hearth": {
        "url": f"http://127.0.0.1:{port}/mcp",
        "headers": {"Authorization": f"Bearer {token}"}}}}, indent=2)


def digest(token: str) -> str:
    """The stored form of a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode()).hexdigest()


class AgentTokens:
    """Make, list, check and revoke the agents' named tokens."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def add(self, name: str) -> tuple[str, TokenInfo]:
        """A new token for ``name`` (recorded with no access if Hearth has not seen it):
        the token, to show the user once, and its row."""
        name = normalise_name(name)
        token = secrets.token_urlsafe(32)
        with self._storage.write() as session:
            agent = recorded(session, name)
            row = AgentToken(agent_id=agent.id, token_sha256=digest(token),
                             created_at=clock.now())
            session.add(row)
            session.flush()
            session.add(AuditEntry(action="agent.token_add", actor="user",
                                   arguments={"agent": name, "token_id": row.id},
                                   result_summary=f"token {row.id} made"))
            return token, TokenInfo(row.id, name, row.created_at, None)

    def list(self, name: str | None = None) -> builtins.list[TokenInfo]:
        """The live tokens (of one agent, or of all), oldest first."""
        query = (select(AgentToken, Agent.name).join(Agent, Agent.id == AgentToken.agent_id)
                 .where(AgentToken.revoked_at.is_(None)).order_by(AgentToken.id))
        if name is not None:
            query = query.where(Agent.name == normalise_name(name))
        with self._storage.read() as session:
            return [TokenInfo(row.id, agent, row.created_at, row.last_used_at)
                    for row, agent in session.execute(query)]

    def has_tokens(self, name: str) -> bool:
        """Whether ``name`` has a live token: then only that token may act as it over HTTP."""
        return bool(self.list(name))

    def revoke(self, name: str, token_id: int | None = None) -> int:
        """Revoke the agent's live tokens (or only ``token_id`` of them); how many were.
        The rows stay, marked revoked, so the list of what existed is not rewritten."""
        name = normalise_name(name)
        now = clock.now()
        with self._storage.write() as session:
            query = (select(AgentToken).join(Agent, Agent.id == AgentToken.agent_id)
                     .where(Agent.name == name, AgentToken.revoked_at.is_(None)))
            if token_id is not None:
                query = query.where(AgentToken.id == token_id)
            rows = builtins.list(session.scalars(query))
            if not rows:
                raise NotFoundError(f"{name} has no token to revoke.",
                                    "See `hearth mcp token list` for the tokens there are.")
            for row in rows:
                row.revoked_at = now
            session.add(AuditEntry(action="agent.token_revoke", actor="user",
                                   arguments={"agent": name, "tokens": [r.id for r in rows]},
                                   result_summary=f"{len(rows)} token(s) revoked"))
            return len(rows)

    def agent_of(self, token: str) -> str | None:
        """The agent a presented token names, or None if it is no live token. Every live
        hash is compared, in constant time, whether or not one already matched."""
        presented = digest(token).encode()
        with self._storage.read() as session:
            live = session.execute(
                select(AgentToken.id, AgentToken.last_used_at, Agent.name)
                .join(Agent, Agent.id == AgentToken.agent_id)
                .where(AgentToken.revoked_at.is_(None))
                .add_columns(AgentToken.token_sha256)).all()
        found: tuple[int, datetime | None, str] | None = None
        for token_id, last_used, agent, stored in live:
            if hmac.compare_digest(presented, stored.encode()):
                found = (token_id, last_used, agent)
        if found is None:
            return None
        token_id, last_used, agent = found
        self._used(token_id, last_used)
        return agent

    def _used(self, token_id: int, last_used: datetime | None) -> None:
        """Note the token's use, at most once a minute: requests should not each be a write."""
        now = clock.now()
        if last_used is not None and now - last_used < SEEN_EVERY:
            return
        with self._storage.write() as session:
            row = session.get(AgentToken, token_id)
            if row is not None:
                row.last_used_at = now
