"""``hearth mcp`` answers every line its client writes, the malformed ones included, as
JSON-RPC says (parse error -32700 or invalid request -32600, with the request's id when it
has a usable one), and goes on serving. Driven with raw bytes on a real process's stdin:
an SDK client would never send these lines."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPLY_WAIT = 60.0
"""Seconds to wait for a reply: the child loads the engine first, on a shared machine."""


class Wire:
    """A ``hearth mcp`` child and its raw stdin and stdout."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.replies: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.replies.put(line)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def reply(self) -> dict[str, Any]:
        try:
            line = self.replies.get(timeout=REPLY_WAIT)
        except queue.Empty:
            pytest.fail(f"no reply within {REPLY_WAIT} s")
        return json.loads(line)


@pytest.fixture(scope="module")
def wire(tmp_path_factory: pytest.TempPathFactory, sqlite_template) -> Iterator[Wire]:
    root = tmp_path_factory.mktemp("wire")
    home = sqlite_template.copy_home(root / "hearth")
    env = {"PATH": os.environ.get("PATH", ""), "HEARTH_HOME": str(home),
           "HOME": str(root / "user"), "XDG_CONFIG_HOME": str(root / "config"),
           "XDG_DATA_HOME": str(root / "data"), "XDG_CACHE_HOME": str(root / "cache"),
           "XDG_STATE_HOME": str(root / "state"), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
    with open(root / "server.stderr", "wb") as errlog:
        process = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "--home", str(home), "mcp", "--agent",
             "probe"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog, env=env,
            cwd=str(Path(__file__).parents[3]))
        connected = Wire(process)
        connected.send(json.dumps({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "probe", "version": "1"}}}).encode())
        assert connected.reply()["result"]["serverInfo"]["name"] == "hearth"
        connected.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        yield connected
        assert process.stdin is not None
        process.stdin.close()
        assert process.wait(timeout=REPLY_WAIT) == 0


PARSE_ERROR, INVALID_REQUEST = -32700, -32600


@pytest.mark.parametrize(("line", "code", "request_id"), [
    (b"garbage", PARSE_ERROR, None),
    (b'{"jsonrpc": "2.0", "id": 1, "method": "ping"', PARSE_ERROR, None),  # cut short
    (b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}]', INVALID_REQUEST, None),  # a batch
    (b'{"jsonrpc": "2.0", "id": 3, "method": "ping", "params": {"x": "\\ud800"}}',
     PARSE_ERROR, None),  # a lone surrogate escape
    (b"\xff\xfe", PARSE_ERROR, None),  # not UTF-8
    (b'{"jsonrpc": "2.0", "id": 4, "method": "ping", "params": {"x": "caf\xe9"}}',
     PARSE_ERROR, None),  # Latin-1 inside a message
    (b'"ping"', INVALID_REQUEST, None),
    (b'{"id": 5, "method": "ping"}', INVALID_REQUEST, 5),  # no "jsonrpc"
    (b'{"jsonrpc": "2.0", "id": "six", "method": 6}', INVALID_REQUEST, "six"),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', INVALID_REQUEST, None),
    (b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', INVALID_REQUEST, None),
    (b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', INVALID_REQUEST, None),
], ids=["garbage", "cut-short", "batch", "lone-surrogate", "not-utf8", "latin1-inside",
        "not-an-object", "no-jsonrpc", "method-not-text", "id-true", "id-null", "id-fraction"])
def test_a_malformed_line_is_answered_and_the_next_one_served(
        wire: Wire, line: bytes, code: int, request_id: Any) -> None:
    wire.send(line)
    answer = wire.reply()
    assert answer["jsonrpc"] == "2.0" and answer["id"] == request_id
    assert answer["error"]["code"] == code
    wire.send(b"")  # a blank line is no message: nothing to answer
    wire.send(b'{"jsonrpc": "2.0", "id": 100, "method": "ping"}')
    assert wire.reply() == {"jsonrpc": "2.0", "id": 100, "result": {}}
