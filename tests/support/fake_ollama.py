"""An Ollama-compatible HTTP server for tests: scripted answers, a record of every request.

The real ``ollama`` client (and so the real ``OllamaProvider``) talks to it over HTTP on
127.0.0.1, so tests exercise the wire format, streaming, timeouts and dropped connections
instead of a mock of the client. It speaks the endpoints the client uses: ``GET
/api/version``, ``GET /api/tags``, ``POST /api/show``, ``POST /api/chat`` (NDJSON stream
or one JSON answer; ``format`` and ``tools`` are recorded and answered with whatever is
scripted) and ``POST /api/pull`` (streamed progress). Standard library only.

    with FakeOllama(models=["llama3.2:3b"]) as server:
        server.script("Hello there", FakeReply(tool_calls=[{"name": "recall_facts",
                                                            "arguments": {}}]))
        provider = OllamaProvider(server.url, "llama3.2:3b")
        ...
        assert "<context" in server.chat_requests()[0]["messages"][-1]["content"]

Every response says ``Connection: close`` and ``stop()`` wakes and joins every handler
thread, so nothing is left running after a test. ``start()`` after ``stop()`` listens on the
same port again, so a test can take Ollama away and bring it back at the same address.
"""

from __future__ import annotations

import hashlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class FakeReply:
    """One scripted answer to ``/api/chat``.

    ``chunks`` overrides how ``text`` is split into streamed parts (default: word by word,
    spaces kept). ``delay`` is waited before each streamed part (before the whole answer
    when not streamed); a sequence gives one wait per part, in order (missing ones: 0).
    ``drop_after=N`` sends N parts and then closes the connection without ending the body
    (``0``: before any response at all). ``status`` other than 200 answers with
    ``{"error": error}`` instead, like Ollama does. Tool calls are ``{"name", "arguments"}``
    mappings, streamed in a part of their own after the text."""

    text: str = ""
    tool_calls: Sequence[Mapping[str, Any]] = ()
    chunks: Sequence[str] | None = None
    delay: float | Sequence[float] = 0.0
    drop_after: int | None = None
    status: int = 200
    error: str = ""
    prompt_eval_count: int = 42

    @classmethod
    def failure(cls, status: int, error: str, *, delay: float = 0.0) -> FakeReply:
        return cls(status=status, error=error, delay=delay)

    def delay_before(self, index: int) -> float:
        if isinstance(self.delay, (int, float)):
            return float(self.delay)
        return float(self.delay[index]) if index < len(self.delay) else 0.0

    def parts(self) -> list[str]:
        if self.chunks is not None:
            return list(self.chunks)
        words = self.text.split(" ")
        return [w if i == 0 else " " + w for i, w in enumerate(words)] if self.text else []


@dataclass(frozen=True)
class FakeModel:
    """An installed model as ``/api/tags`` and ``/api/show`` describe it. ``capabilities``
    None imitates servers older than 0.6, which only had the template to go by."""

    name: str
    size: int = 2_019_393_189
    context_length: int = 131_072
    capabilities: tuple[str, ...] | None = ("completion", "tools")
    num_ctx: int | None = None
    template: str = "{{ .Prompt }}"
    family: str = "llama"
    parameter_size: str = "3.2B"
    parameter_count: int | None = None
    """``general.parameter_count`` in ``/api/show``'s model info (newer servers)."""


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


Responder = Callable[[dict[str, Any]], FakeReply]
"""Answers a chat request body when the scripted queue is empty."""


def _full_name(name: str) -> str:
    return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"


def _digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


def _now() -> str:
    return datetime.now(timezone.utc).isoformat().replace("+00:00", "Z")


class FakeOllama:
    """The server. Start it with ``with FakeOllama() as server`` (or ``start()``/``stop()``);
    ``url`` is its address."""

    def __init__(self, models: Iterable[str | FakeModel] = ("llama3.2:3b",), *,
                 version: str = "0.6.8", responder: Responder | None = None,
                 pull_steps: int = 4, pull_total: int = 4_000_000,
                 pull_delay: float = 0.0) -> None:
        self._lock = threading.Lock()
        self.version = version
        self.responder = responder
        self.pull_steps, self.pull_total, self.pull_delay = pull_steps, pull_total, pull_delay
        self.unpullable: set[str] = set()
        self.models: dict[str, FakeModel] = {}
        for model in models:
            self.add_model(model)
        self.disconnects = 0
        """How many times a client went away while an answer was being sent."""
        self._replies: deque[FakeReply] = deque()
        self._requests: list[RecordedRequest] = []
        self._stopping = threading.Event()
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None
        self._port = 0  # any free port at first, then the same one on every restart

    # --- lifecycle ---------------------------------------------------------------------------

    def start(self) -> FakeOllama:
        self._stopping.clear()
        self._httpd = _Server(("127.0.0.1", self._port), _Handler, self)
        self._port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever,
                                        kwargs={"poll_interval": 0.05},
                                        name="fake-ollama", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake every handler (delays and open sockets) and join them."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.close_open_connections()
        self._httpd.server_close()  # joins the handler threads (block_on_close)
        assert self._thread is not None
        self._thread.join()
        self._httpd, self._thread = None, None

    def __enter__(self) -> FakeOllama:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the fake Ollama server is not running")
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def configure(self, monkeypatch: Any, model: str) -> None:
        """Point Hearth's settings (its ``HEARTH_*`` environment, so child processes too) at
        this server and ``model``, for the rest of the test."""
        monkeypatch.setenv("HEARTH_LLM_PROVIDER", "ollama")
        monkeypatch.setenv("HEARTH_OLLAMA_HOST", self.url)
        monkeypatch.setenv("HEARTH_OLLAMA_MODEL", model)

    # --- scripting ---------------------------------------------------------------------------

    def script(self, *replies: str | FakeReply) -> None:
        """Queue answers for the next ``/api/chat`` requests, in order."""
        with self._lock:
            self._replies.extend(FakeReply(text=r) if isinstance(r, str) else r
                                 for r in replies)

    def add_model(self, model: str | FakeModel) -> None:
        spec = FakeModel(model) if isinstance(model, str) else model
        with self._lock:  # a pull adds models from a handler thread
            self.models[_full_name(spec.name)] = spec

    def installed(self, name: str) -> FakeModel | None:
        with self._lock:
            return self.models.get(_full_name(name))

    def installed_models(self) -> list[FakeModel]:
        with self._lock:
            return list(self.models.values())

    # --- what was asked ----------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def chat_requests(self) -> list[dict[str, Any]]:
        """The JSON bodies of every ``/api/chat`` request, oldest first."""
        return [r.body for r in self.requests_to("/api/chat")]

    def pending_replies(self) -> int:
        with self._lock:
            return len(self._replies)

    # --- used by the handler -----------------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_reply(self, body: dict[str, Any]) -> FakeReply | None:
        with self._lock:
            if self._replies:
                return self._replies.popleft()
        return self.responder(body) if self.responder is not None else None

    def _count_disconnect(self) -> None:
        with self._lock:
            self.disconnects += 1

    def _wait(self, seconds: float) -> bool:
        """Sleep, unless the server is stopping; True when the handler should go on."""
        return not self._stopping.wait(seconds) if seconds > 0 else not self._stopping.is_set()


class _Server(ThreadingHTTPServer):
    daemon_threads = False
    block_on_close = True

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler],
                 fake: FakeOllama) -> None:
        self.fake = fake
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self._open_lock:
            self._open.discard(request)
        super().shutdown_request(request)

    def close_open_connections(self) -> None:
        """Wake handlers blocked reading from a client that never sends."""
        with self._open_lock:
            sockets = list(self._open)
        for sock in sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                continue  # already closed by its handler: nothing to wake


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (stdlib name)
        """Quiet: the request record is the log tests look at."""

    @property
    def fake(self) -> FakeOllama:
        return self.server.fake

    # --- dispatch ----------------------------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch(None)

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else {}
        except json.JSONDecodeError:
            body = raw.decode("utf-8", "replace")
        self._dispatch(body)

    def _dispatch(self, body: Any) -> None:
        self.fake._record(RecordedRequest(self.command, self.path, body, dict(self.headers)))
        routes: dict[tuple[str, str], Callable[[Any], None]] = {
            ("GET", "/api/version"): lambda _b: self._json(200, {"version": self.fake.version}),
            ("GET", "/api/tags"): self._tags,
            ("POST", "/api/show"): self._show,
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/pull"): self._pull,
        }
        route = routes.get((self.command, self.path))
        try:
            if route is None:
                self._send(404, b"404 page not found", "text/plain")
            else:
                route(body if isinstance(body, dict) else {})
        except (BrokenPipeError, ConnectionResetError):  # the client left (cancel, timeout)
            self.fake._count_disconnect()
            self.close_connection = True

    # --- endpoints ---------------------------------------------------------------------------

    def _tags(self, _body: dict[str, Any]) -> None:
        listed = [(_full_name(spec.name), spec) for spec in self.fake.installed_models()]
        self._json(200, {"models": [
            {"name": name, "model": name, "modified_at": "2025-05-01T10:00:00Z",
             "size": spec.size, "digest": _digest(name), "details": _details(spec)}
            for name, spec in listed]})

    def _show(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or body.get("name") or "")
        spec = self.fake.installed(name)
        if spec is None:
            self._json(404, {"error": f"model '{name}' not found"})
            return
        shown: dict[str, Any] = {
            "modelfile": f"FROM {name}", "template": spec.template,
            "parameters": "stop \"<|eot_id|>\"" + (f"\nnum_ctx {spec.num_ctx}"
                                                   if spec.num_ctx else ""),
            "details": _details(spec), "modified_at": "2025-05-01T10:00:00Z",
            "model_info": {"general.architecture": spec.family,
                           f"{spec.family}.context_length": spec.context_length},
        }
        if spec.parameter_count is not None:
            shown["model_info"]["general.parameter_count"] = spec.parameter_count
        if spec.capabilities is not None:
            shown["capabilities"] = list(spec.capabilities)
        self._json(200, shown)

    def _chat(self, body: dict[str, Any]) -> None:
        model = str(body.get("model", ""))
        if self.fake.installed(model) is None:
            self._json(404, {"error": f'model "{model}" not found, try pulling it first'})
            return
        reply = self.fake._next_reply(body)
        if reply is None:
            self._json(500, {"error": "fake ollama: no scripted reply left"})
            return
        streamed = bool(body.get("stream", True))
        if streamed and reply.status == 200:
            self._stream(_chat_parts(model, reply), reply.delay_before, reply.drop_after)
            return
        if not self._wait_or_close(reply.delay_before(0)):
            return
        if reply.status != 200:
            self._json(reply.status, {"error": reply.error})
            return
        if reply.drop_after is not None:
            self.close_connection = True  # no answer at all: the client sees a hang-up
            return
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.tool_calls:
            message["tool_calls"] = _wire_calls(reply.tool_calls)
        self._json(200, {"model": model, "created_at": _now(), "message": message,
                         **_done_fields(reply, len(reply.parts()))})

    def _pull(self, body: dict[str, Any]) -> None:
        name = str(body.get("model") or body.get("name") or "")
        fake = self.fake
        lines: list[dict[str, Any]] = [{"status": "pulling manifest"}]
        if name in fake.unpullable:
            lines.append({"error": "pull model manifest: file does not exist"})
        else:
            digest = _digest(name)
            total = fake.pull_total
            lines += [{"status": f"pulling {digest[:12]}", "digest": f"sha256:{digest}",
                       "total": total,
                       "completed": total * step // fake.pull_steps}
                      for step in range(1, fake.pull_steps + 1)]
            lines += [{"status": "verifying sha256 digest"}, {"status": "writing manifest"},
                      {"status": "success"}]
        succeeds = "error" not in lines[-1]
        if not body.get("stream", True):
            if succeeds:
                fake.add_model(name)
            self._json(200, lines[-1])
        else:
            self._stream(lines, lambda _index: fake.pull_delay, None,
                         before_last=(lambda: fake.add_model(name)) if succeeds else None)

    # --- writing -----------------------------------------------------------------------------

    def _wait_or_close(self, seconds: float) -> bool:
        """Wait before answering; False (and the connection marked for closing) when the
        server is stopping meanwhile."""
        if self.fake._wait(seconds):
            return True
        self.close_connection = True
        return False

    def _json(self, status: int, payload: Any) -> None:
        self._send(status, json.dumps(payload).encode(), "application/json; charset=utf-8")

    def _send(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, lines: Sequence[dict[str, Any]], delay: Callable[[int], float],
                drop_after: int | None, before_last: Callable[[], None] | None = None) -> bool:
        """NDJSON over chunked encoding, like Ollama. True when every line was sent.
        ``before_last`` runs just before the final line goes out: what that line announces
        (a pulled model) must be true by the time a client can read it."""
        if drop_after == 0:
            self.close_connection = True
            return False
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        for index, line in enumerate(lines):
            if drop_after is not None and index >= drop_after:
                self.close_connection = True  # no terminating chunk: a cut-off body
                return False
            if not self._wait_or_close(delay(index)):
                return False
            if before_last is not None and index == len(lines) - 1:
                before_last()
            data = json.dumps(line).encode() + b"\n"
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")
        return True


def _details(spec: FakeModel) -> dict[str, Any]:
    return {"format": "gguf", "family": spec.family, "families": [spec.family],
            "parameter_size": spec.parameter_size, "quantization_level": "Q4_K_M"}


def _wire_calls(calls: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [{"id": f"call_{i}", "function": {"index": i, "name": c["name"],
                                              "arguments": dict(c.get("arguments", {}))}}
            for i, c in enumerate(calls)]


def _done_fields(reply: FakeReply, parts: int) -> dict[str, Any]:
    return {"done": True, "done_reason": "stop", "total_duration": 1_000_000,
            "prompt_eval_count": reply.prompt_eval_count, "eval_count": max(parts, 1)}


def _chat_parts(model: str, reply: FakeReply) -> list[dict[str, Any]]:
    def part(message: dict[str, Any]) -> dict[str, Any]:
        return {"model": model, "created_at": _now(),
                "message": {"role": "assistant", **message}, "done": False}

    pieces = reply.parts()
    lines = [part({"content": piece}) for piece in pieces]
    if reply.tool_calls:
        lines.append(part({"content": "", "tool_calls": _wire_calls(reply.tool_calls)}))
    lines.append({**part({"content": ""}), **_done_fields(reply, len(pieces))})
    return lines
