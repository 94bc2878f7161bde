"""``hearth mcp --http``: the same tools over streamable HTTP, on 127.0.0.1 only, behind a
random bearer token kept 0600 in the data folder. One server process for the module; the
SDK's own ``streamable_http_client`` with the token, plain requests without it."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import httpx2
import pytest
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.types import Implementation

from core.app import Hearth
from core.home.paths import HearthPaths
from core.operations import agents


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, sqlite_template) -> Iterator[
        tuple[str, Path]]:
    root = tmp_path_factory.mktemp("mcp-http")
    home = sqlite_template.copy_home(root / "hearth")
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("HEARTH_")},
           "HOME": str(root / "user"), "XDG_CONFIG_HOME": str(root / "config"),
           "XDG_DATA_HOME": str(root / "data"), "XDG_CACHE_HOME": str(root / "cache"),
           "XDG_STATE_HOME": str(root / "state")}
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", "--home", str(home), "mcp", "--http",
         "--port", "0"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True, env=env)
    try:
        said = []
        for line in process.stderr:  # the address is said once the socket listens
            said.append(line)
            if found := re.search(r"http://127\.0\.0\.1:\d+/mcp", line):
                break
        assert found, "".join(said)  # the process ended without serving
        yield found.group(), home
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stderr.close()


def token(home: Path) -> str:
    return (home / "mcp-token").read_text(encoding="utf-8").strip()


def test_the_token_is_private_and_required(served) -> None:
    url, home = served
    assert stat.S_IMODE((home / "mcp-token").stat().st_mode) == 0o600
    assert len(token(home)) >= 40
    assert HearthPaths(home).is_own_file(home / "mcp-token")  # no export overwrites it

    async def ask(headers: dict[str, str]) -> httpx2.Response:
        async with httpx2.AsyncClient(headers=headers) as client:
            return await client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})

    for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": token(home)}):
        refused = anyio.run(ask, headers)
        assert refused.status_code == 401 and "mcp-token" in refused.json()["error"]


def test_the_sdk_client_with_the_token_uses_the_tools(served) -> None:
    url, home = served
    with Hearth.open(home) as hearth:
        agents.grant(hearth, "http-tester", "read")

    async def go() -> tuple[bool, object]:
        headers = {"Authorization": f"Bearer {token(home)}"}
        async with httpx2.AsyncClient(headers=headers) as http, \
                streamable_http_client(url, http_client=http) as (read, write), \
                ClientSession(read, write, client_info=Implementation(
                    name="HTTP Tester", version="1")) as session:
            await session.initialize()
            result = await session.call_tool("list_facts", {})
            return result.is_error, result.structured_content

    failed, content = anyio.run(go)
    assert not failed and content == {"facts": []}
    with Hearth.open(home) as hearth:
        (call,) = agents.calls_of(hearth, "http-tester")
    assert call.tool == "list_facts"


async def session_calls(url: str, token_text: str, client_name: str,
                        calls: list[tuple[str, dict[str, object]]]) -> list[tuple[bool, str]]:
    """Each call's (is_error, text) in one SDK session with ``token_text`` as bearer."""
    answers = []
    headers = {"Authorization": f"Bearer {token_text}"}
    async with httpx2.AsyncClient(headers=headers) as http, \
            streamable_http_client(url, http_client=http) as (read, write), \
            ClientSession(read, write, client_info=Implementation(
                name=client_name, version="1")) as session:
        await session.initialize()
        for tool, arguments in calls:
            result = await session.call_tool(tool, arguments)
            answers.append((result.is_error, " ".join(
                getattr(c, "text", "") for c in result.content)))
    return answers


def test_a_named_token_is_its_agent_whatever_the_client_says(served) -> None:
    """A client holding pinned-bot's token that calls itself the trusted agent gets
    pinned-bot's rights; the folder's token cannot act as pinned-bot either; revoking the
    token makes the running server refuse it on the next request."""
    url, home = served
    with Hearth.open(home) as hearth:
        agents.grant(hearth, "trusted-bot", "write")
        agents.trust(hearth, "trusted-bot")
        agents.grant(hearth, "pinned-bot", "read")
        pinned = agents.add_token(hearth, "Pinned Bot").value.token

    (listed, wrote) = anyio.run(session_calls, url, pinned, "Trusted Bot", [
        ("list_facts", {}),
        ("remember_fact", {"key": "bike", "value": "a red one", "category": "general"})])
    assert not listed[0]
    assert wrote[0] and "pinned-bot" in wrote[1] and "write" in wrote[1]
    with Hearth.open(home) as hearth:
        assert [c.tool for c in agents.calls_of(hearth, "pinned-bot")] == [
            "remember_fact", "list_facts"]
        assert agents.calls_of(hearth, "trusted-bot") == ()
        assert agents.held_writes(hearth) == ()
        (used,) = agents.tokens(hearth, "pinned-bot")
        assert used.last_used_at is not None

    ((refused, why),) = anyio.run(session_calls, url, token(home), "Pinned Bot",
                                  [("list_facts", {})])
    assert refused and "pinned-bot has its own token" in why

    with Hearth.open(home) as hearth:
        agents.revoke_tokens(hearth, "pinned-bot")

    async def ping() -> httpx2.Response:
        async with httpx2.AsyncClient(headers={"Authorization": f"Bearer {pinned}"}) as client:
            return await client.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})

    assert anyio.run(ping).status_code == 401
