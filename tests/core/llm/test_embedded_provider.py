"""The embedded provider against the real SmolLM2 GGUF and the real llama.cpp (xllamacpp).

The model loads once for the module; replies are kept short. Assertions are about shape
(chunks, counts, schema validity), never about what the tiny model says. The listener
checks read /proc, so they run on Linux only.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import core.llm.embedded as embedded_module
from core.config import DEFAULT_EMBEDDED_LLM, Settings
from core.llm import CancelToken, ChatChunk, LLMError, LLMUnavailableError, Message, ToolSpec
from core.llm.embedded import MISSING_MODEL_HINT, EmbeddedProvider

ROOT = Path(__file__).resolve().parents[3]
LINUX_PROC = Path("/proc/net/tcp").exists()
HELLO = [Message("user", "Say hello to me in one short sentence.")]
LONG_STORY = [Message("user", "Write a very long story about a dragon.")]

CATEGORIES = ["identity", "preference", "health", "location", "other"]
KEY_PATTERN = r"^[a-z_]{1,20}$"
VALUE_PATTERN = r'^[^"\\\x00-\x1f]{1,30}$'
"""Bounded by patterns, not maxLength alone: with maxLength, SmolLM2 sometimes writes every
character as a \\uXXXX escape (about 4 tokens each) and runs out of tokens (cut off in 4
of 60 runs at 160 tokens, 1 of 60 at 320). A class without quote, backslash and control
characters rules escapes out: 0 of 80 runs cut off at 320 tokens."""
FACTS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"facts": {
        "type": "array", "maxItems": 3,
        "items": {
            "type": "object",
            "properties": {"key": {"type": "string", "pattern": KEY_PATTERN},
                           "value": {"type": "string", "pattern": VALUE_PATTERN},
                           "category": {"enum": CATEGORIES}},
            "required": ["key", "value", "category"],
            "additionalProperties": False,
        },
    }},
    "required": ["facts"],
    "additionalProperties": False,
}


@pytest.fixture(scope="module")
def provider() -> Iterator[EmbeddedProvider]:
    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=2048, threads=2)
    yield model
    model.close()


# --- helpers ----------------------------------------------------------------------------------

def own_tcp_listeners() -> list[str]:
    """``ip:port`` (hex, as /proc writes them) of TCP sockets this process listens on."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue  # the fd closed while we looked
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # 0A = LISTEN
                listening.append(fields[1])
    return listening


class UnixHTTPConnection(http.client.HTTPConnection):
    def __init__(self, path: str) -> None:
        super().__init__("localhost")
        self._path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # "@name" is llama.cpp's spelling of an abstract socket, "\0name" the kernel's
        self.sock.connect("\0" + self._path[1:] if self._path.startswith("@") else self._path)


def unix_listeners() -> set[str]:
    """Names of the listening Unix sockets on this machine (abstract ones start with @)."""
    names = set()
    for line in Path("/proc/net/unix").read_text().splitlines()[1:]:
        fields = line.split()
        if len(fields) == 8 and fields[3] == "00010000":  # __SO_ACCEPTCON: listening
            names.add(fields[7])
    return names


def http_status(address: str, path: str, key: str | None = None) -> int:
    """GET ``path`` from llama.cpp's listener (``unix://...`` or ``http://...``)."""
    if address.startswith("unix://"):
        connection: http.client.HTTPConnection = UnixHTTPConnection(address[len("unix://"):])
    else:
        host, port = address[len("http://"):].rsplit(":", 1)
        connection = http.client.HTTPConnection(host, int(port), timeout=5)
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        connection.request("GET", path, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def llm_workers_alive() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "hearth-embedded-llm")


def check_facts(document: Any) -> None:
    """Hand-written validation of FACTS_SCHEMA (jsonschema is not a dependency)."""
    assert isinstance(document, dict) and set(document) == {"facts"}
    assert isinstance(document["facts"], list) and len(document["facts"]) <= 3
    for fact in document["facts"]:
        assert isinstance(fact, dict) and set(fact) == {"key", "value", "category"}
        assert isinstance(fact["key"], str) and re.fullmatch(KEY_PATTERN, fact["key"])
        assert isinstance(fact["value"], str) and re.fullmatch(VALUE_PATTERN, fact["value"])
        assert fact["category"] in CATEGORIES


# --- the model --------------------------------------------------------------------------------

def test_constructing_and_status_do_not_load_the_model() -> None:
    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=3000)
    status = model.status()
    assert status.available and "loads on first use" in status.detail
    assert not model.loaded
    assert (model.name, model.model) == ("embedded", "SmolLM2-135M-Instruct.Q4_1")
    assert model.context_window == 3000
    assert model.supports_tools is False


def test_from_settings_uses_the_embedded_settings(tmp_path: Path) -> None:
    gguf = tmp_path / "Other-Model.Q8_0.gguf"
    model = EmbeddedProvider.from_settings(
        Settings(embedded_model_path=gguf, embedded_context_tokens=1024, embedded_threads=1))
    assert (model.model, model.context_window) == ("Other-Model.Q8_0", 1024)


def test_streams_a_reply_in_several_chunks(provider: EmbeddedProvider) -> None:
    chunks = list(provider.chat_stream(HELLO, max_tokens=32))
    *pieces, last = chunks
    assert all(isinstance(c, ChatChunk) and not c.done and c.text for c in pieces)
    assert len(pieces) >= 2
    assert "".join(c.text for c in pieces).strip()
    assert last.done and last.text == "" and last.tool_calls == ()
    assert last.prompt_tokens is not None and last.prompt_tokens > 0
    assert last.completion_tokens is not None and 0 < last.completion_tokens <= 32
    assert provider.loaded and "loaded" in provider.status().detail


def test_offered_tools_are_ignored_and_the_reply_still_streams(
        provider: EmbeddedProvider) -> None:
    tool = ToolSpec("recall_facts", "Look up facts.", {"type": "object", "properties": {}})
    chunks = list(provider.chat_stream(HELLO, tools=[tool], max_tokens=8))
    assert chunks[-1].done and chunks[-1].tool_calls == ()
    assert all(c.tool_calls == () for c in chunks)


def test_cancel_stops_the_stream_and_the_generation(provider: EmbeddedProvider) -> None:
    """Without the cancel this prompt runs to max_tokens (about 20 s on two cores)."""
    cancel = CancelToken()
    received = []
    for chunk in provider.chat_stream(LONG_STORY, cancel=cancel, max_tokens=1500):
        received.append(chunk)
        if len(received) == 3:
            cancel.cancel()
    assert len(received) == 3 and not any(c.done for c in received)
    deadline = time.monotonic() + 5
    while llm_workers_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert llm_workers_alive() == 0, "llama.cpp kept generating after the cancel"
    follow_up = list(provider.chat_stream(HELLO, max_tokens=4))
    assert follow_up[-1].done


def test_abandoning_the_iterator_stops_the_generation(provider: EmbeddedProvider) -> None:
    stream = provider.chat_stream(LONG_STORY, max_tokens=1500)
    assert next(stream).text
    stream.close()
    deadline = time.monotonic() + 5
    while llm_workers_alive() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert llm_workers_alive() == 0


def test_structured_output_is_valid_for_a_bounded_schema(provider: EmbeddedProvider) -> None:
    messages = [Message("system", "Extract facts about the user as JSON."),
                Message("user", "I live in Lisbon and I'm allergic to peanuts. "
                                "My dog is called Rex.")]
    for _ in range(2):  # sampling varies from run to run
        raw = provider.structured(messages, FACTS_SCHEMA, max_tokens=512)
        check_facts(json.loads(raw))


def test_a_cancelled_structured_request_raises_cancelled(provider: EmbeddedProvider) -> None:
    from core.llm import LLMCancelled

    cancel = CancelToken()
    cancel.cancel()
    with pytest.raises(LLMCancelled):
        provider.structured(HELLO, FACTS_SCHEMA, max_tokens=160, cancel=cancel)


def test_an_invalid_schema_is_a_plain_error(provider: EmbeddedProvider) -> None:
    with pytest.raises(LLMError, match="rejected the request"):
        provider.structured(HELLO, {"type": "no-such-type"}, max_tokens=8)


def test_a_prompt_longer_than_the_context_says_so(provider: EmbeddedProvider) -> None:
    with pytest.raises(LLMError) as caught:
        list(provider.chat_stream([Message("user", "word " * 3000)], max_tokens=4))
    assert "too long" in caught.value.message and "2048" in caught.value.message
    assert "embedded_context_tokens" in caught.value.hint
    assert list(provider.chat_stream(HELLO, max_tokens=4))[-1].done  # still usable


# --- missing and damaged files ----------------------------------------------------------------

def test_a_missing_file_is_unavailable_with_the_hint(tmp_path: Path) -> None:
    model = EmbeddedProvider(tmp_path / "absent.gguf")
    status = model.status()
    assert not status.available and "does not exist" in status.detail
    assert MISSING_MODEL_HINT in status.detail
    with pytest.raises(LLMUnavailableError) as caught:
        list(model.chat_stream(HELLO))
    assert caught.value.hint == MISSING_MODEL_HINT
    with pytest.raises(LLMUnavailableError):
        model.structured(HELLO, FACTS_SCHEMA)
    assert not model.loaded


def test_a_file_that_is_not_gguf_is_unavailable(tmp_path: Path) -> None:
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    assert "not a GGUF" in EmbeddedProvider(text).status().detail
    assert "not a file" in EmbeddedProvider(tmp_path).status().detail
    with pytest.raises(LLMUnavailableError, match="not a GGUF"):
        list(EmbeddedProvider(text).chat_stream(HELLO))


def test_a_truncated_gguf_fails_to_load_with_the_hint(tmp_path: Path) -> None:
    damaged = tmp_path / "damaged.gguf"
    with DEFAULT_EMBEDDED_LLM.open("rb") as source:
        damaged.write_bytes(source.read(1_000_000))
    model = EmbeddedProvider(damaged)
    assert model.status().available  # the header looks right; loading finds the damage
    with pytest.raises(LLMUnavailableError) as caught:
        list(model.chat_stream(HELLO))
    assert "could not be loaded" in caught.value.message
    assert caught.value.hint == MISSING_MODEL_HINT
    assert not model.loaded


# --- the HTTP listener xllamacpp insists on ---------------------------------------------------

@pytest.mark.skipif(not LINUX_PROC, reason="reads /proc")
def test_no_tcp_port_no_file_and_the_unix_socket_needs_the_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=512)
    before = set(own_tcp_listeners())
    model.load()
    try:
        assert set(own_tcp_listeners()) == before
        address = model.http_address
        assert address is not None
        assert re.fullmatch(rf"unix://@hearth-llm-{os.getpid()}-[0-9a-f]{{16}}\.sock", address)
        assert address[len("unix://"):] in unix_listeners()
        assert list(tmp_path.iterdir()) == []  # abstract: nothing on disk to leave behind
        assert http_status(address, "/health") == 200  # it is llama.cpp's server ...
        assert http_status(address, "/v1/models") == 401  # ... and it wants the key
        assert http_status(address, "/v1/models", key="guessed") == 401
    finally:
        model.close()
    assert address[len("unix://"):] not in unix_listeners()


@pytest.mark.skipif(not LINUX_PROC, reason="reads /proc")
def test_without_abstract_sockets_a_private_folder_is_used_and_cleaned_up(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Other POSIX systems: a 0700 folder named after the process, removed on close, and
    by the next load when its process was killed."""
    tmp_path = tmp_path_factory.mktemp("llm")  # short: a socket path has at most 100 bytes
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    monkeypatch.setattr(embedded_module, "abstract_unix_sockets", lambda: False)
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    stale = tmp_path / f"hearth-llm-{gone.stdout.strip()}-x1y2z3ab"
    (stale / "llm.sock").parent.mkdir()
    (stale / "llm.sock").touch()
    alive = tmp_path / "hearth-llm-1-a1b2c3de"  # pid 1 always runs
    alive.mkdir()

    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=512)
    model.load()
    try:
        address = model.http_address
        assert address is not None and address.startswith("unix://")
        folder = Path(address[len("unix://"):]).parent
        assert folder.parent == tmp_path and folder.name.startswith(f"hearth-llm-{os.getpid()}-")
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert http_status(address, "/v1/models") == 401
        assert not stale.exists() and alive.exists()
    finally:
        model.close()
    assert sorted(tmp_path.iterdir()) == [alive]


@pytest.mark.skipif(not LINUX_PROC, reason="reads /proc")
def test_the_loopback_fallback_needs_the_key_and_closes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Where Unix sockets are unavailable the listener is 127.0.0.1 with the key."""
    monkeypatch.setattr(embedded_module, "http_listener", lambda: ("127.0.0.1", None))
    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=512)
    before = set(own_tcp_listeners())
    model.load()
    address = model.http_address
    assert address is not None and address.startswith("http://127.0.0.1:")
    port = int(address.rsplit(":", 1)[1])
    assert set(own_tcp_listeners()) - before == {f"0100007F:{port:04X}"}  # loopback only
    assert http_status(address, "/v1/models") == 401
    model.close()
    assert set(own_tcp_listeners()) == before
    assert not model.loaded


def test_close_frees_the_model_and_a_later_use_loads_it_again() -> None:
    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=512)
    list(model.chat_stream(HELLO, max_tokens=2))
    address = model.http_address
    assert address is not None
    model.close()
    assert not model.loaded and model.http_address is None
    if LINUX_PROC:
        assert address[len("unix://"):] not in unix_listeners()
    assert list(model.chat_stream(HELLO, max_tokens=2))[-1].done
    model.close()


def test_closing_right_after_loading_does_not_hang() -> None:
    """Releasing a llama.cpp server whose loop has not started yet deadlocks while holding
    the GIL, so this runs in a child process that only a timeout can stop."""
    script = (
        "from core.config import DEFAULT_EMBEDDED_LLM\n"
        "from core.llm.embedded import EmbeddedProvider\n"
        "for _ in range(4):\n"
        "    model = EmbeddedProvider(DEFAULT_EMBEDDED_LLM, context_tokens=512)\n"
        "    model.load()\n"
        "    model.close()\n"
        "print('closed')\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                            text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "closed"
