"""The embedded language model: a GGUF file run inside Hearth's own process by llama.cpp.

A fresh machine with no Ollama still has a working assistant, offline: ``xllamacpp`` runs
llama.cpp in-process (the bundled model is SmolLM2-135M-Instruct, Q4_1; any GGUF chat model
can be set with ``embedded_model_path``). The model loads on first use or ``load()``, never
in ``status()``; each request streams through a worker thread as a plain iterator and can
be cancelled; one request runs at a time; ``supports_tools`` is False. Structured output
is constrained by llama.cpp's grammar, so schemas must be bounded in tokens, not only in
characters. The HTTP server xllamacpp always starts is never used: it listens where nothing
can reach it without the in-memory API key and where nothing is left on disk
(``http_listener``).

See docs/llm.md, "Embedded" (how xllamacpp is used, what it cannot do, the listener).
"""

from __future__ import annotations

import os
import queue
import secrets
import shutil
import sys
import tempfile
import threading
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import xllamacpp

from core.config import Settings
from core.llm import gguf
from core.llm.protocol import (
    CancelToken,
    ChatChunk,
    LLMCancelled,
    LLMError,
    LLMUnavailableError,
    Message,
    ProviderStatus,
    ToolSpec,
)

GGUF_MAGIC = b"GGUF"
MISSING_MODEL_HINT = ("Run `make models` to fetch the bundled model, or point the settings "
                      "at another GGUF file.")
CHAT_REPEAT_PENALTY = 1.15
DEFAULT_MAX_TOKENS = 1024
"""Used when the caller sets no limit: a tiny model can repeat itself until the context is
full (tens of seconds); 1,024 tokens is far more than any reply it writes well."""
CANCEL_POLL_SECONDS = 0.05
PROMPT_CACHE_MIB = 512
"""llama.cpp keeps the states of recent prompts in RAM and restores one when a prompt with
the same beginning returns. That is what keeps a turn fast after background extraction
used the single slot: the chat's long, stable system prompt is restored instead of being
read again (measured: 2,200 prompt tokens, first token after 9.2 s cold, 0.13 s restored).
llama.cpp's default allows 8 GiB; SmolLM2 needs about 50 MB per 2,000-token prompt."""
UNIX_SOCKET_PATH_LIMIT = 100
"""AF_UNIX paths are limited to 104 (macOS) or 108 (Linux) bytes; longer ones cannot bind."""
LISTENER_PREFIX = "hearth-llm-"
"""Names of the abstract sockets and private folders: ``hearth-llm-<pid>-<random>``."""
LOG_ERRORS_ONLY = 1
"""llama.cpp's log threshold: errors reach stderr (they explain a damaged model file),
the per-request information lines do not."""

_END = object()


def gguf_problem(path: Path) -> str | None:
    """Why ``path`` cannot be a GGUF model, or None when it looks like one. Never raises.

    Only the four-byte magic is checked: it catches a wrong or missing file instantly,
    while a damaged one that starts right is caught when llama.cpp loads it."""
    try:
        if not path.is_file():
            if path.exists():
                return f"The embedded model path {path} is not a file."
            return f"The embedded model file {path} does not exist."
        with path.open("rb") as handle:
            magic = handle.read(len(GGUF_MAGIC))
    except OSError as exc:
        return f"The embedded model file {path} cannot be read ({exc.strerror or exc})."
    if magic != GGUF_MAGIC:
        return f"{path} is not a GGUF model file."
    return None


def abstract_unix_sockets() -> bool:
    """Whether the platform has Unix sockets without a file (Linux's abstract namespace)."""
    return sys.platform.startswith("linux")


def http_listener() -> tuple[str, Path | None]:
    """Where llama.cpp's unused HTTP server listens, and the private folder made for it
    (None when there is none to remove); see docs/llm.md, "Embedded". llama.cpp takes a name
    ending in ``.sock`` as a Unix socket, and one starting with ``@`` as abstract."""
    owned = f"{LISTENER_PREFIX}{os.getpid()}-"
    if abstract_unix_sockets():
        return f"@{owned}{secrets.token_hex(8)}.sock", None
    if os.name == "posix":
        parent = Path(tempfile.gettempdir())
        remove_stale_folders(parent)
        folder = Path(tempfile.mkdtemp(prefix=owned, dir=parent))
        socket_path = folder / "llm.sock"
        if len(str(socket_path)) < UNIX_SOCKET_PATH_LIMIT:
            return str(socket_path), folder
        folder.rmdir()
    return "127.0.0.1", None


def remove_stale_folders(parent: Path) -> list[Path]:
    """Remove the private listener folders in ``parent`` whose process is gone (killed
    before it could remove its own); returns them. Folders of live processes, of other
    users and without a process id in their name are left alone."""
    removed = []
    for folder in parent.glob(f"{LISTENER_PREFIX}*-*"):
        owner = folder.name.removeprefix(LISTENER_PREFIX).split("-", 1)[0]
        try:
            mine = folder.is_dir() and folder.stat().st_uid == os.getuid()
        except FileNotFoundError:
            continue  # removed meanwhile by its owner
        if mine and owner.isdigit() and not _process_exists(int(owner)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process
    return True


class EmbeddedProvider:
    """A GGUF chat model run in-process by llama.cpp (docs/llm.md, "Embedded")."""

    def __init__(self, model_path: Path, *, context_tokens: int = 4096,
                 threads: int = 2) -> None:
        self._path = Path(model_path).expanduser()
        self._context_tokens = context_tokens
        self._threads = threads
        self._lock = threading.Lock()
        self._server: Any | None = None
        self._cleanup: weakref.finalize[..., Any] | None = None
        self._running: dict[threading.Event, threading.Thread] = {}
        self._parameters: int | None = None

    @classmethod
    def from_settings(cls, settings: Settings) -> EmbeddedProvider:
        """The provider the user configured (model file, context size, threads)."""
        return cls(settings.embedded_model_path, context_tokens=settings.embedded_context_tokens,
                   threads=settings.embedded_threads)

    # --- identity ------------------------------------------------------------------------

    @property
    def name(self) -> str:
        return "embedded"

    @property
    def model(self) -> str:
        return self._path.name.removesuffix(".gguf")

    @property
    def identity(self) -> str:
        return f"embedded · {self.model} · {self._path}"

    @property
    def supports_tools(self) -> bool:
        return False

    @property
    def context_window(self) -> int:
        return self._context_tokens

    @property
    def parameter_count(self) -> int | None:
        """Counted from the file's tensors once (``core.llm.gguf``); None when the file
        cannot be read (``status`` says why)."""
        if self._parameters is None:
            try:
                self._parameters = gguf.parameter_count(self._path)
            except (OSError, gguf.GgufUnreadable):
                return None
        return self._parameters

    @property
    def loaded(self) -> bool:
        """True once the model is in memory (status lines show it)."""
        return self._server is not None

    @property
    def http_address(self) -> str | None:
        """Where llama.cpp's (unused, key-protected) HTTP server listens while loaded;
        exposed so the security of that listener can be checked."""
        server = self._server
        return server.listening_address if server is not None else None

    def status(self) -> ProviderStatus:
        problem = gguf_problem(self._path)
        if problem is not None:
            return ProviderStatus(False, f"{problem} {MISSING_MODEL_HINT}")
        state = "loaded" if self.loaded else "loads on first use"
        return ProviderStatus(
            True, f"{self.model}, in-process ({state}, {self._context_tokens} tokens of context)")

    # --- generation ----------------------------------------------------------------------

    def chat_stream(self, messages: Sequence[Message], *,
                    tools: Sequence[ToolSpec] = (), cancel: CancelToken | None = None,
                    max_tokens: int | None = None,
                    temperature: float | None = None) -> Iterator[ChatChunk]:
        """Stream a reply. ``tools`` are ignored: this model cannot use them."""
        # a 135M model loops on its own phrases ("I'm happy to help." × 40) without this;
        # chat only: a penalty on repeated tokens would fight JSON's braces and quotes
        chosen = {} if temperature is None else {"temperature": temperature}
        request = self._request(messages, max_tokens, repeat_penalty=CHAT_REPEAT_PENALTY,
                                **chosen)
        prompt_tokens = completion_tokens = None
        for chunk in self._generate(request, cancel):
            usage = chunk.get("usage")
            if usage:
                prompt_tokens = usage.get("prompt_tokens")
                completion_tokens = usage.get("completion_tokens")
            text = _delta_text(chunk)
            if text:
                yield ChatChunk(text=text)
        if cancel is not None and cancel.cancelled:
            return
        yield ChatChunk(done=True, prompt_tokens=prompt_tokens,
                        completion_tokens=completion_tokens)

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        """Generate text constrained by ``schema`` (llama.cpp grammar); the raw text."""
        request = self._request(messages, max_tokens, json_schema=schema)
        text = "".join(_delta_text(chunk) for chunk in self._generate(request, cancel))
        if cancel is not None and cancel.cancelled:
            raise LLMCancelled("The structured request was cancelled.",
                               "Nothing was kept from it; it can be asked again.")
        return text

    def _request(self, messages: Sequence[Message], max_tokens: int | None,
                 **extra: Any) -> dict[str, Any]:
        return {
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "max_tokens": max_tokens if max_tokens is not None else DEFAULT_MAX_TOKENS,
            "stream": True,
            "stream_options": {"include_usage": True},
            **extra,
        }

    def _generate(self, request: dict[str, Any],
                  cancel: CancelToken | None) -> Iterator[dict[str, Any]]:
        """Run one request in a worker thread and yield its stream chunks as they come.

        Stops (and tells llama.cpp to stop) when ``cancel`` is set or the caller stops
        iterating."""
        server = self._loaded()
        chunks: queue.Queue[Any] = queue.Queue()
        stop = threading.Event()

        def on_chunk(chunk: dict[str, Any]) -> bool:
            chunks.put(chunk)
            return stop.is_set() or (cancel is not None and cancel.cancelled)

        def run() -> None:
            try:
                server.handle_chat_completions(request, on_chunk)
            except Exception as exc:  # the binding raises ValueError for rejected requests
                chunks.put(exc)
            finally:
                chunks.put(_END)
                with self._lock:
                    self._running.pop(stop, None)

        worker = threading.Thread(target=run, name="hearth-embedded-llm", daemon=True)
        with self._lock:
            self._running[stop] = worker
        worker.start()
        try:
            while not (cancel is not None and cancel.cancelled):
                try:
                    item = chunks.get(timeout=CANCEL_POLL_SECONDS)
                except queue.Empty:
                    continue
                if item is _END:
                    return
                if isinstance(item, Exception):
                    raise LLMError(f"The embedded model rejected the request: {item}",
                                   "Check that the GGUF file is a chat model; if it is, "
                                   "this is a bug in Hearth.") from item
                if "error" in item:
                    raise _error_from_response(item["error"])
                yield item
        finally:
            stop.set()

    # --- lifecycle -----------------------------------------------------------------------

    def load(self) -> None:
        """Load the model now rather than on first use, e.g. in the background at start-up
        so that the first reply does not wait; nothing happens when it is loaded already.
        Raises ``LLMUnavailableError`` like the first request would."""
        self._loaded()

    def _loaded(self) -> Any:
        """The llama.cpp server, loading the model on first use (once, thread-safe)."""
        with self._lock:
            if self._server is None:
                self._server = self._load()
            return self._server

    def _load(self) -> Any:
        problem = gguf_problem(self._path)
        if problem is not None:
            raise LLMUnavailableError(problem, MISSING_MODEL_HINT)
        address, private_dir = http_listener()
        try:
            server = xllamacpp.Server(self._params(address))
        except RuntimeError as exc:
            _remove(private_dir)
            raise LLMUnavailableError(
                f"The embedded model {self._path} could not be loaded: the file is damaged, "
                "incomplete or not a model llama.cpp can run.", MISSING_MODEL_HINT) from exc
        server.handle_metrics()  # returns once the server loop runs: see _params
        self._cleanup = weakref.finalize(self, _remove, private_dir)
        return server

    def _params(self, address: str) -> Any:
        params = xllamacpp.CommonParams()
        params.model.path = str(self._path)
        params.n_ctx = self._context_tokens
        params.n_parallel = 1
        params.cache_ram_mib = PROMPT_CACHE_MIB
        params.cpuparams.n_threads = self._threads
        params.cpuparams_batch.n_threads = self._threads
        params.hostnames = [address]
        params.port = 0
        params.api_keys = [secrets.token_urlsafe(32)]
        params.n_threads_http = 1
        params.ui = False
        params.endpoint_slots = False
        # The metrics task is answered by llama.cpp's server loop, so asking for it right
        # after loading proves the loop runs. Releasing a server whose loop has not started
        # yet deadlocks (the loop misses the stop request and the destructor waits for it
        # forever, holding the GIL); measured here: 4 of 4 runs that closed right after
        # loading hung without this, none of 40 with it. /metrics itself needs the key.
        params.endpoint_metrics = True
        params.endpoint_props = False
        params.offline = True
        params.verbosity = LOG_ERRORS_ONLY
        return params

    def close(self, timeout: float = 5.0) -> None:
        """Stop running generations, free the model and remove the private folder (if any).

        Waits up to ``timeout`` seconds for running requests to stop (each stops at its
        next token); the model's memory is released when the last one has."""
        with self._lock:
            running = list(self._running.items())
            self._server = None
            cleanup, self._cleanup = self._cleanup, None
        for stop, _ in running:
            stop.set()
        for _, worker in running:
            worker.join(timeout)
        if cleanup is not None:
            cleanup()


def _remove(private_dir: Path | None) -> None:
    if private_dir is not None:
        shutil.rmtree(private_dir, ignore_errors=True)


def _delta_text(chunk: dict[str, Any]) -> str:
    choices = chunk.get("choices") or []
    if not choices:
        return ""
    return (choices[0].get("delta") or {}).get("content") or ""


def _error_from_response(error: dict[str, Any]) -> LLMError:
    """llama.cpp's error object, as something a person can act on."""
    if error.get("type") == "exceed_context_size_error":
        return LLMError(
            f"The conversation is too long for the embedded model ({error.get('n_prompt_tokens')}"
            f" tokens, its context holds {error.get('n_ctx')}).",
            "Start a new chat, or raise embedded_context_tokens in the settings.")
    return LLMError(f"The embedded model failed: {error.get('message', error)}",
                    "Try again; if it keeps failing, check the GGUF file or use Ollama.")
