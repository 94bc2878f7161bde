"""``hearth mcp --http``: the same MCP server over streamable HTTP, for clients that cannot
start a command. Off unless asked for.

It listens on 127.0.0.1 only and every request must carry ``Authorization: Bearer TOKEN``:
the token is random (32 bytes, URL-safe), made on first use and kept in
``<home>/mcp-token``, readable by the user alone (0600), so only programs running as this
user can read it; ``--new-token`` replaces it (clients holding the old one are refused).
An agent's own named token (``hearth mcp token add NAME``, ``core.agents.tokens``) is
accepted too, and names the agent. A request with neither gets 401 and one sentence,
before the SDK sees it. The SDK's own host and origin checks (DNS rebinding) stay on.
"""

from __future__ import annotations

import hmac
import json
import logging
import secrets
import socket
from pathlib import Path
from typing import IO, Any

import anyio
import anyio.to_thread

from core.agents.tokens import AgentTokens
from core.home.private_files import write_privately

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
TOKEN_FILE = "mcp-token"
PATH = "/mcp"
Scope = dict[str, Any]


def token_path(home: Path) -> Path:
    return home / TOKEN_FILE


def bearer_token(home: Path, *, renew: bool = False) -> str:
    """The token in the data folder, made (0600) if there is none or ``renew``."""
    path = token_path(home)
    if not renew and path.exists():
        token = path.read_text(encoding="utf-8").strip()
        if token:
            return token
    token = secrets.token_urlsafe(32)

    def write(handle: IO[str]) -> None:
        handle.write(token + "\n")

    write_privately(path, write)
    return token


AGENT_KEY = "hearth.agent"
"""The ASGI scope key where the gate leaves the agent a named token names (absent for the
folder's token); ``core.agents.server`` reads it from the request of each tool call."""


class BearerGate:
    """ASGI middleware: HTTP requests pass only with a token Hearth knows, compared in
    constant time. The folder's token lets the client name itself; an agent's named token
    (``core.agents.tokens``) names the agent, in the request's scope. Named tokens are read
    on every request, so a revoked one is refused at once. The lifespan passes through."""

    def __init__(self, app: Any, token: str, tokens: AgentTokens) -> None:
        self._app = app
        self._folder = f"Bearer {token}".encode()
        self._tokens = tokens

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if hmac.compare_digest(given, self._folder):
                scope.pop(AGENT_KEY, None)
            else:
                agent = await self._named(given)
                if agent is None:
                    await _refuse(send)
                    return
                scope[AGENT_KEY] = agent
        await self._app(scope, receive, send)

    async def _named(self, given: bytes) -> str | None:
        scheme, _, token = given.decode("latin-1").partition(" ")
        if scheme != "Bearer" or not token:
            return None
        return await anyio.to_thread.run_sync(self._tokens.agent_of, token)


async def _refuse(send: Any) -> None:
    body = json.dumps({"error": "Hearth needs a token: send the header 'Authorization: "
                                "Bearer TOKEN' with the token `hearth mcp token add NAME` "
                                "printed, or the contents of mcp-token in Hearth's data "
                                "folder."}).encode()
    await send({"type": "http.response.start", "status": 401,
                "headers": [(b"content-type", b"application/json"),
                            (b"www-authenticate", b"Bearer")]})
    await send({"type": "http.response.body", "body": body})


def listen(port: int) -> socket.socket:
    """A socket listening on loopback (``port`` 0: any free one), made before the server
    starts, so the address printed is already accepting connections."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((LOOPBACK, port))
    sock.listen(64)
    return sock


def serve(app: Any, token: str, tokens: AgentTokens, sock: socket.socket) -> None:
    """Serve ``app`` (the SDK's Starlette app) behind the token gate until interrupted."""
    import uvicorn

    config = uvicorn.Config(BearerGate(app, token, tokens), log_level="warning",
                            access_log=False, lifespan="on")
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]))
