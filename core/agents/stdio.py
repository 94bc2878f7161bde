"""Every line an MCP client writes to ``hearth mcp`` is answered, the malformed ones too.

The SDK's stdio transport (``mcp`` 2.x) drops a line it cannot read as one JSON-RPC
message, without a reply: garbage, a batch (a JSON array), a lone surrogate escape,
bytes that are not UTF-8, an object that is not a request. A client that sent it waits
for an answer that never comes. JSON-RPC 2.0 says what the answer is: -32700 (parse
error) for a line that is not JSON, -32600 (invalid request) for JSON that is not a
message, each with the request's id when it has a usable one and null otherwise. So this
module stands between the client and the SDK:

* ``malformed(line)`` is the error a line gets, or None for a message the SDK can take
  (a line must be UTF-8, as MCP says, rather than have its bad bytes replaced as the SDK
  would; a whitespace-only line is no message and is skipped, as before);
* ``answered_lines()`` points file descriptors 0 and 1 at two pipes before the SDK takes
  them. One thread reads the client's lines, passes each well-formed message on to the
  SDK unchanged and answers a malformed one itself; another copies the SDK's lines to
  the client. Both write whole lines under one lock, so an answer never lands inside a
  message. It uses no SDK internals: the SDK still diverts the descriptors while it
  serves (``docs/mcp.md``), only now they are the pipes.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from typing import Any

from mcp.types import INVALID_REQUEST, PARSE_ERROR, JSONRPCNotification, jsonrpc_message_adapter
from pydantic import ValidationError
from pydantic_core import from_json

END = b"\x00end of hearth mcp\n"
"""Written after the SDK's last line to stop the copying thread: no JSON text holds a NUL."""
STOP_WAIT = 10.0
"""Seconds to let the SDK's last lines reach the client when the server stops."""


def _error(request_id: str | int | None, code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": request_id,
                       "error": {"code": code, "message": message}}).encode() + b"\n"


def _usable_id(value: Any) -> str | int | None:
    """A JSON object's ``id`` when it could name a request (text or a whole number)."""
    request_id = value.get("id") if isinstance(value, dict) else None
    if isinstance(request_id, str) or (isinstance(request_id, int)
                                       and not isinstance(request_id, bool)):
        return request_id
    return None


def malformed(line: bytes) -> bytes | None:
    """The JSON-RPC error answering ``line`` (without its newline), or None when it is a
    message the SDK reads as the client meant it."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as bad:
        return _error(None, PARSE_ERROR, f"Parse error: byte {bad.start + 1} of the line is "
                                         "not UTF-8.")
    try:
        message = jsonrpc_message_adapter.validate_json(text, by_name=False)
    except ValidationError as invalid:
        unreadable = [error for error in invalid.errors() if error["type"] == "json_invalid"]
        if unreadable:  # jiter's words say where, never what: "... at line 1 column 7"
            return _error(None, PARSE_ERROR, f"Parse error: {unreadable[0]['msg']}.")
        value = from_json(text)  # the parser that just read it, so it reads it again
        if isinstance(value, list):
            return _error(None, INVALID_REQUEST, "Invalid Request: a batch (a JSON array) "
                                                 "is not accepted; send one message a line.")
        return _error(_usable_id(value), INVALID_REQUEST,
                      "Invalid Request: the line is JSON but not a JSON-RPC 2.0 request, "
                      "notification or response.")
    if isinstance(message, JSONRPCNotification) and "id" in from_json(text):
        # The SDK reads a request whose id is neither text nor a whole number (true, null,
        # 1.5) as a notification, which gets no answer; MCP ids are never null either.
        return _error(None, INVALID_REQUEST, "Invalid Request: an id must be a string or a "
                                             "whole number.")
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class _Wire:
    """The two threads between the client's descriptors and the SDK's pipes."""

    def __init__(self, client_in: int, client_out: int, to_sdk: int, from_sdk: int) -> None:
        self._client_out = client_out
        self._lock = threading.Lock()
        self.passing = threading.Thread(target=self._pass_on, args=(client_in, to_sdk),
                                        name="hearth-mcp-lines-in", daemon=True)
        self.copying = threading.Thread(target=self._copy_out, args=(from_sdk,),
                                        name="hearth-mcp-lines-out", daemon=True)

    def _to_client(self, line: bytes) -> None:
        with self._lock:
            _write_all(self._client_out, line)

    def _pass_on(self, client_in: int, to_sdk: int) -> None:
        """The client's lines to the SDK, answering the malformed ones; the SDK sees the end
        of its input when the client closes it (or can no longer be answered)."""
        with os.fdopen(client_in, "rb", closefd=False) as client, \
                os.fdopen(to_sdk, "wb") as sdk:
            for line in client:
                body = line.rstrip(b"\r\n")
                if not body.strip():
                    continue
                answer = malformed(body)
                if answer is not None:
                    try:
                        self._to_client(answer)
                    except BrokenPipeError:
                        return  # the client left: ending the SDK's input stops the server
                    continue
                # A CR in a valid message is whitespace between tokens (JSON text holds none
                # inside a string), but the SDK's text reader would end a line there.
                sdk.write(body.replace(b"\r", b" ") + b"\n")
                sdk.flush()

    def _copy_out(self, from_sdk: int) -> None:
        """The SDK's lines to the client, until ``END``. If the client no longer reads, the
        pipe is closed, so the SDK's next write fails as it would have on the client's."""
        with os.fdopen(from_sdk, "rb") as sdk:
            for line in sdk:
                if line == END:
                    return
                try:
                    self._to_client(line)
                except BrokenPipeError:
                    return


@contextmanager
def answered_lines() -> Iterator[None]:
    """While it lasts, the SDK's stdio transport reads and writes pipes through ``_Wire``
    instead of the process's stdin and stdout; afterwards descriptors 0 and 1 are the
    client's again."""
    client_in, client_out = os.dup(0), os.dup(1)
    sdk_in, to_sdk = os.pipe()
    from_sdk, sdk_out = os.pipe()
    os.dup2(sdk_in, 0)
    os.dup2(sdk_out, 1)
    os.close(sdk_in)
    wire = _Wire(client_in, client_out, to_sdk, from_sdk)
    wire.passing.start()
    wire.copying.start()
    try:
        yield
    finally:
        # After all the SDK wrote, which is in the pipe already. A broken pipe means the
        # copying thread stopped early because the client stopped reading: nothing to end.
        with suppress(BrokenPipeError):
            _write_all(sdk_out, END)
        wire.copying.join(STOP_WAIT)
        os.dup2(client_in, 0)
        os.dup2(client_out, 1)
        os.close(sdk_out)
        if not wire.copying.is_alive():
            os.close(client_out)
        if not wire.passing.is_alive():  # else it may still be reading it: leave it open
            os.close(client_in)
