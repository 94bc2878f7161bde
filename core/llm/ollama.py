"""The Ollama provider: a local (or user-configured) Ollama server through the official client.

What it promises beyond the ``LLMProvider`` protocol, and why:

* **Only the configured host.** The HTTP client ignores proxy environment variables and
  does not follow redirects, so a prompt can never be routed anywhere but ``host``; the
  package itself is imported with those variables hidden (``core.llm.ollama_library``),
  as its import builds a default client that would read them.
* **Plain errors.** Every failure of the client or of httpx becomes an ``LLMError``
  subclass with a sentence and a hint ("Ollama is not running at ...", "The model ... is
  not installed ..."); unexpected exceptions (bugs) are not disguised. Failures of the
  server rather than of the request (not running, model missing, 5xx, a timeout, a
  dropped connection, a reply that is not Ollama's) are ``LLMOutage`` subclasses, so
  queued work waits for Ollama instead of counting them against itself; a refusal of the
  request (4xx) is a plain ``LLMError``.
* **Retries only where they are safe.** Connection failures and 5xx answers are retried
  with backoff *before* the first streamed part arrives; after that a failure ends the
  reply ("cut off"), because repeating the request would duplicate what the user saw.
* **One context window for Hearth and Ollama.** Ollama does not run a model at its trained
  length (often 128k) but at ``num_ctx`` (a Modelfile parameter or the server's small
  default). Compaction must plan against the window really used, so ``context_window`` is
  the constructor value, else the model's ``num_ctx`` parameter, else 4,096, capped at
  the trained length, and it is sent as ``num_ctx`` with every request so both agree.
* **Structured output is streamed** (``format=<schema>``, collected here) so that a cancel
  stops the generation between parts and the timeout means "no progress for N seconds"
  rather than "the whole answer within N seconds".

Cancellation is checked between streamed parts: while Ollama is still loading a model and
has sent nothing, a cancel takes effect with the first part (or the timeout).
Tool schemas pass through the client's ``Tool`` model, which keeps ``type``, ``properties``
(type, items, description, enum), ``required`` and ``$defs`` and drops other keywords, the
same subset Ollama's server reads.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import Any, TypeVar

import httpx
from pydantic import ValidationError

from core.config import Settings
from core.llm.capability import parse_parameter_size
from core.log_privacy import described
from core.llm.ollama_library import ollama
from core.llm.host import normalise_ollama_host, resolve_ollama_host
from core.llm.protocol import (
    CancelToken,
    ChatChunk,
    LLMCancelled,
    LLMError,
    LLMModelMissingError,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
    Message,
    ModelInfo,
    ProviderStatus,
    PullProgress,
    ToolCall,
    ToolSpec,
)
from core.llm.retry import call_with_retries

log = logging.getLogger(__name__)

T = TypeVar("T")

DEFAULT_CONTEXT_WINDOW = 4096
CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection: a server that does not accept one by then is not there."""
PROBE_TIMEOUT = 2.0
"""Seconds ``status()`` waits for each of its two small requests."""
SHOW_TIMEOUT = 10.0
"""Seconds to wait for a model's details, so a hung server fails fast before a chat."""

_CLIENT_ERRORS: tuple[type[Exception], ...] = (
    ollama.ResponseError, ConnectionError, httpx.HTTPError, json.JSONDecodeError, ValidationError)
"""What the client and httpx raise for a failed exchange; anything else is a bug."""


@dataclass(frozen=True)
class _ModelFacts:
    """What ``/api/show`` says about the model, read once."""

    capabilities: tuple[str, ...] | None
    template: str
    trained_context: int | None
    num_ctx: int | None
    parameters: int | None


class OllamaProvider:
    """``LLMProvider`` for an Ollama server at ``host`` running ``model``."""

    def __init__(self, host: str, model: str, *, timeout: float = 120.0, retries: int = 2,
                 context_window: int | None = None, backoff: float = 0.5) -> None:
        if not model.strip():
            raise LLMModelMissingError("No Ollama model is set.",
                                       "Set `ollama_model` in the settings, e.g. llama3.2:3b.")
        self._host = normalise_ollama_host(host)
        self._model = model.strip()
        self._timeout = timeout
        self._retries = retries
        self._backoff = backoff
        self._wanted_context = context_window
        self._facts_cache: _ModelFacts | None = None
        self._tools_refused = False
        self._client = ollama.Client(
            host=self._host, timeout=httpx.Timeout(timeout, connect=min(timeout, CONNECT_TIMEOUT)),
            follow_redirects=False, trust_env=False)

    @classmethod
    def from_settings(cls, settings: Settings) -> OllamaProvider:
        """The provider the user configured (host resolution included)."""
        return cls(resolve_ollama_host(settings.ollama_host), settings.ollama_model,
                   timeout=settings.ollama_timeout_seconds, retries=settings.llm_retries)

    # --- identity and model facts ----------------------------------------------------------

    @property
    def name(self) -> str:
        return "ollama"

    @property
    def model(self) -> str:
        return self._model

    @property
    def host(self) -> str:
        return self._host

    @property
    def identity(self) -> str:
        return f"ollama · {self._model} · {self._host}"

    @property
    def supports_tools(self) -> bool:
        """From ``/api/show``: ``"tools"`` in its capabilities (Ollama ≥ 0.6), else whether
        the chat template mentions ``.Tools`` (how older servers decided). False when the
        server cannot be asked (not cached, asked again next time) or after the server
        refused tools for this model."""
        facts = self._facts()
        if facts is None or self._tools_refused:
            return False
        if facts.capabilities is not None:
            return "tools" in facts.capabilities
        return ".Tools" in facts.template

    @property
    def context_window(self) -> int:
        """The window Ollama is asked to use (see the module docstring)."""
        facts = self._facts()
        wanted = self._wanted_context
        if wanted is None:
            modelfile = facts.num_ctx if facts is not None else None
            wanted = modelfile or DEFAULT_CONTEXT_WINDOW
        if facts is not None and facts.trained_context:
            return min(wanted, facts.trained_context)
        return wanted

    @property
    def parameter_count(self) -> int | None:
        """From ``/api/show``: ``general.parameter_count`` in the model's info, else its
        ``details.parameter_size`` ("3.2B"); None when the server cannot be asked."""
        facts = self._facts()
        return facts.parameters if facts is not None else None

    def _facts(self) -> _ModelFacts | None:
        if self._facts_cache is None:
            try:
                shown = ollama.ShowResponse.model_validate(self._probe(
                    "/api/show", {"model": self._model}, timeout=SHOW_TIMEOUT))
            except (httpx.HTTPError, ValueError) as exc:  # ValidationError is a ValueError
                log.info("cannot read the details of %s from %s (%s)", self._model,
                         self._host, described(exc))
                return None
            self._facts_cache = _facts_from_show(shown)
        return self._facts_cache

    # --- status and models -----------------------------------------------------------------

    def status(self) -> ProviderStatus:
        """Is Ollama up, and is the model installed? Two small requests with a short
        timeout; a missing model counts as unavailable, since nothing could answer."""
        where = f"at {self._host}"
        try:
            version = self._probe("/api/version").get("version", "unknown")
        except httpx.TimeoutException:
            return ProviderStatus(False, f"Ollama did not answer {where} within "
                                         f"{PROBE_TIMEOUT:g} s.")
        except httpx.HTTPStatusError as exc:
            return ProviderStatus(False, f"The server {where} answered HTTP "
                                         f"{exc.response.status_code}; is it Ollama?")
        except (httpx.HTTPError, ValueError):
            return ProviderStatus(False, f"Ollama is not running {where}.")
        try:
            installed = [m.get("model") or m.get("name", "")
                         for m in self._probe("/api/tags").get("models", [])]
        except (httpx.HTTPError, ValueError, AttributeError) as exc:
            return ProviderStatus(False, f"Ollama {version} {where} could not list its "
                                         f"models ({type(exc).__name__}).")
        if not any(same_model(self._model, name) for name in installed):
            return ProviderStatus(
                False, f"Ollama {version} {where} is running, but the model {self._model} "
                       f"is not installed (pull it with `hearth models pull {self._model}`).")
        return ProviderStatus(True, f"Ollama {version} {where}, model {self._model}")

    def _probe(self, path: str, body: dict[str, Any] | None = None, *,
               timeout: float = PROBE_TIMEOUT) -> dict[str, Any]:
        """A small request with its own short timeout (the client's is for generation):
        GET, or POST when there is a body. Same rules as the client: no proxy, no
        redirects."""
        response = httpx.request("POST" if body is not None else "GET", f"{self._host}{path}",
                                 json=body, timeout=timeout, trust_env=False,
                                 follow_redirects=False)
        response.raise_for_status()
        body = response.json()
        if not isinstance(body, dict):
            raise ValueError(f"{path} did not return a JSON object")
        return body

    def list_models(self) -> list[ModelInfo]:
        """The models installed in this Ollama, as it lists them."""
        try:
            listed = self._with_retries(self._client.list, "listing models")
        except _CLIENT_ERRORS as exc:
            raise self._translate(exc, started=False) from exc
        return [_model_info(entry) for entry in listed.models]

    def pull(self, name: str, progress: PullProgress, cancel: CancelToken | None = None) -> None:
        """Download ``name`` into Ollama, reporting ``(status, completed, total)`` per step.
        A cancel stops the download (Ollama keeps the finished parts for next time)."""
        name = name.strip()
        if not name:
            raise LLMError("No model name was given to pull.",
                           "Give a name such as llama3.2:3b (see https://ollama.com/library).")
        try:
            first, parts = self._start(lambda: self._client.pull(name, stream=True),
                                       f"pulling {name}")
        except ollama.ResponseError as exc:
            raise _pull_refused(name, exc) from exc
        except _CLIENT_ERRORS as exc:
            raise self._translate(exc, started=False) from exc
        finished = False
        try:
            for part in chain([first], parts):
                if cancel is not None and cancel.cancelled:
                    raise LLMCancelled(f"Pulling {name} was cancelled.",
                                       f"Run `hearth models pull {name}` again to resume.")
                progress(part.status or "", part.completed, part.total)
                finished = part.status == "success"
        except ollama.ResponseError as exc:
            raise _pull_refused(name, exc) from exc
        except _CLIENT_ERRORS as exc:
            raise self._translate(exc, started=True) from exc
        finally:
            _close(parts)
        if not finished:
            raise LLMError(f"Ollama stopped pulling {name} before it finished.",
                           f"Run `hearth models pull {name}` again to resume.")
        if same_model(self._model, name):
            self._facts_cache = None

    # --- generation ------------------------------------------------------------------------

    def chat_stream(self, messages: Sequence[Message], *,
                    tools: Sequence[ToolSpec] = (), cancel: CancelToken | None = None,
                    max_tokens: int | None = None,
                    temperature: float | None = None) -> Iterator[ChatChunk]:
        """Stream the reply as text chunks; tool calls (native) come with the final chunk,
        which also carries the token counts. A cancel ends the stream quietly."""
        if cancel is not None and cancel.cancelled:
            return
        first, parts = self._open_chat(messages, tools, max_tokens, schema=None,
                                       temperature=temperature)
        calls: list[ToolCall] = []
        try:
            for part in chain([first], parts):
                if cancel is not None and cancel.cancelled:
                    return
                calls.extend(_tool_calls(part.message.tool_calls))
                text = part.message.content or ""
                if part.done:
                    yield ChatChunk(text=text, tool_calls=tuple(calls), done=True,
                                    prompt_tokens=part.prompt_eval_count,
                                    completion_tokens=part.eval_count)
                    return
                if text:
                    yield ChatChunk(text=text)
        except _CLIENT_ERRORS as exc:
            raise self._translate(exc, started=True) from exc
        finally:
            _close(parts)
        raise _cut_off()

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        """The raw text of a reply constrained by ``format=schema`` (repair and validation
        belong to ``core.llm.structured``). A cancel raises ``LLMCancelled``: a partial JSON
        answer is of no use to anyone."""
        if cancel is not None and cancel.cancelled:
            raise _structured_cancelled()
        first, parts = self._open_chat(messages, (), max_tokens, schema=schema)
        pieces: list[str] = []
        try:
            for part in chain([first], parts):
                if cancel is not None and cancel.cancelled:
                    raise _structured_cancelled()
                pieces.append(part.message.content or "")
                if part.done:
                    return "".join(pieces)
        except _CLIENT_ERRORS as exc:
            raise self._translate(exc, started=True) from exc
        finally:
            _close(parts)
        raise _cut_off()

    def close(self) -> None:
        """Close the connection pool (Ollama itself keeps running)."""
        self._client.close()

    # --- plumbing --------------------------------------------------------------------------

    def _open_chat(self, messages: Sequence[Message], tools: Sequence[ToolSpec],
                   max_tokens: int | None, *, schema: dict[str, Any] | None,
                   temperature: float | None = None,
                   ) -> tuple[ollama.ChatResponse, Iterator[ollama.ChatResponse]]:
        """Send the request and wait for the first part (with retries). A model that
        refuses tools is asked again without them, once, and remembered."""
        options: dict[str, Any] = {"num_ctx": self.context_window}
        if max_tokens is not None:
            options["num_predict"] = max_tokens
        if temperature is not None:
            options["temperature"] = temperature
        wire_messages = [_wire_message(m) for m in messages]
        # Validated here, outside the error mapping: a malformed ToolSpec is a bug in the
        # caller, not something Ollama said.
        wire_tools = [ollama.Tool.model_validate(_wire_tool(t)) for t in tools]

        def request(offered: list[ollama.Tool]) -> Callable[[], Iterator[ollama.ChatResponse]]:
            return lambda: self._client.chat(self._model, messages=wire_messages, tools=offered,
                                             format=schema, options=options, stream=True)

        try:
            try:
                return self._start(request(wire_tools), "chat")
            except ollama.ResponseError as exc:
                if not (tools and exc.status_code == 400 and "support tools" in str(exc.error)):
                    raise
                log.info("%s refused tools (%s); asking again without them", self._model,
                         exc.error)
                self._tools_refused = True
                return self._start(request([]), "chat")
        except _CLIENT_ERRORS as exc:
            raise self._translate(exc, started=False) from exc

    def _start(self, request: Callable[[], Iterator[T]], what: str) -> tuple[T, Iterator[T]]:
        """Open a stream and read its first part, retrying what a retry can cure. The
        client's stream is lazy: connecting and the HTTP status both surface here."""
        def attempt() -> tuple[T, Iterator[T]]:
            parts = request()
            try:
                first = next(parts, None)
            except BaseException:
                _close(parts)
                raise
            if first is None:
                raise LLMServerError("Ollama ended the reply before sending anything.",
                                     "Check Ollama's log, then try again.")
            return first, parts

        return self._with_retries(attempt, what)

    def _with_retries(self, call: Callable[[], T], what: str) -> T:
        return call_with_retries(call, retries=self._retries, retryable=_retryable,
                                 base_delay=self._backoff, what=f"Ollama {what}")

    def _translate(self, exc: Exception, *, started: bool) -> LLMError:
        """One plain sentence per kind of failure; ``started`` means part of a reply was
        already delivered, so the caller is keeping a cut-off answer."""
        host = self._host
        if isinstance(exc, ollama.ResponseError):
            detail = str(exc.error).strip().rstrip(".")
            if exc.status_code == 404 and "model" in detail.lower():
                return LLMModelMissingError(
                    f"The model {self._model} is not installed in Ollama.",
                    f"Pull it with `hearth models pull {self._model}` "
                    f"(or `ollama pull {self._model}`).")
            if exc.status_code >= 500:
                return LLMServerError(f"Ollama failed to answer ({detail}).",
                                      "The model may not fit in memory; see Ollama's log, "
                                      "then try again or choose a smaller model.")
            if exc.status_code == -1:
                return LLMServerError(f"Ollama stopped with an error: {detail}.",
                                      "See Ollama's log, then try again.")
            return LLMError(f"Ollama refused the request: {detail} (HTTP {exc.status_code}).",
                            "Check the model name and the settings, then try again.")
        if isinstance(exc, (ConnectionError, httpx.ConnectError)):
            return LLMUnavailableError(
                f"Ollama is not running at {host}.",
                "Start it with `ollama serve`, or choose the embedded model in the settings.")
        if isinstance(exc, httpx.ConnectTimeout):
            return LLMUnavailableError(
                f"Ollama did not accept a connection at {host} within {CONNECT_TIMEOUT:g} s.",
                "Check that the address is right and Ollama is running, or choose the "
                "embedded model in the settings.")
        if isinstance(exc, httpx.TimeoutException):
            waited = f"{self._timeout:g} seconds"
            if started:
                return LLMTimeoutError(f"Ollama stopped sending the reply for {waited}; "
                                       "it was cut off.",
                                       "What arrived so far is kept. Try again, or choose "
                                       "a smaller model.")
            return LLMTimeoutError(f"Ollama did not answer within {waited}.",
                                   "The model may still be loading or be too large for this "
                                   "computer: try again, choose a smaller model, or raise "
                                   "`ollama_timeout_seconds` in the settings.")
        if isinstance(exc, httpx.TransportError):
            if started:
                return _cut_off()
            return LLMServerError(f"Ollama at {host} closed the connection without answering.",
                                  "Check that Ollama is running and healthy (see its log), "
                                  "then try again.")
        if isinstance(exc, (json.JSONDecodeError, ValidationError)):
            return LLMServerError(f"The server at {host} sent a reply Hearth cannot read.",
                                  "Make sure the address points to an Ollama server and that "
                                  "Ollama is up to date.")
        return LLMError(f"Talking to Ollama at {host} failed ({type(exc).__name__}: {exc}).",
                        "Check that Ollama is running, then try again.")


# --- conversions ------------------------------------------------------------------------------


def _wire_message(message: Message) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.tool_calls:
        wire["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}}
                              for c in message.tool_calls]
    if message.tool_name:
        wire["tool_name"] = message.tool_name
    return wire


def _wire_tool(tool: ToolSpec) -> dict[str, Any]:
    return {"type": "function", "function": {
        "name": tool.name, "description": tool.description, "parameters": tool.parameters}}


def _tool_calls(calls: Sequence[Any] | None) -> list[ToolCall]:
    return [ToolCall(name=c.function.name, arguments=dict(c.function.arguments))
            for c in calls or ()]


def _model_info(entry: Any) -> ModelInfo:
    details = entry.details.model_dump(exclude_none=True) if entry.details else {}
    if entry.modified_at is not None:
        details["modified_at"] = entry.modified_at.isoformat()
    if entry.digest:
        details["digest"] = entry.digest
    size = int(entry.size) if entry.size is not None else None
    return ModelInfo(name=entry.model or "", size_bytes=size, details=details)


def _facts_from_show(shown: Any) -> _ModelFacts:
    info = dict(shown.modelinfo or {})
    architecture = info.get("general.architecture")
    trained = info.get(f"{architecture}.context_length") if architecture else None
    if trained is None:
        trained = next((v for k, v in info.items() if k.endswith(".context_length")), None)
    return _ModelFacts(
        capabilities=tuple(shown.capabilities) if shown.capabilities is not None else None,
        template=shown.template or "",
        trained_context=int(trained) if isinstance(trained, (int, float)) else None,
        num_ctx=_num_ctx(shown.parameters or ""),
        parameters=_parameters(info, shown.details))


def _parameters(info: dict[str, Any], details: Any) -> int | None:
    counted = info.get("general.parameter_count")
    if isinstance(counted, int) and counted > 0:
        return counted
    size = getattr(details, "parameter_size", None) if details is not None else None
    return parse_parameter_size(size) if isinstance(size, str) else None


def _num_ctx(parameters: str) -> int | None:
    """``num_ctx`` from ``/api/show``'s parameters text (one ``name value`` per line)."""
    for line in parameters.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "num_ctx" and fields[1].isdigit():
            return int(fields[1])
    return None


def same_model(wanted: str, installed: str) -> bool:
    """Ollama names without a tag mean ``:latest``."""
    def full(name: str) -> str:
        return name if ":" in name.rsplit("/", 1)[-1] else f"{name}:latest"
    return full(wanted) == full(installed)


def _close(parts: Iterator[Any]) -> None:
    """Close the client's stream generator, which closes the HTTP response with it."""
    close = getattr(parts, "close", None)
    if close is not None:
        close()


def _retryable(exc: Exception) -> bool:
    if isinstance(exc, ollama.ResponseError):
        return exc.status_code >= 500
    return isinstance(exc, (ConnectionError, httpx.ConnectError, httpx.ConnectTimeout,
                            httpx.RemoteProtocolError, httpx.ReadError))


def _cut_off() -> LLMServerError:
    return LLMServerError("The connection to Ollama dropped in the middle of the reply; it "
                          "was cut off.",
                          "What arrived so far is kept. Check that Ollama is still running, "
                          "then try again.")


def _structured_cancelled() -> LLMCancelled:
    return LLMCancelled("The request was cancelled.", "Nothing was changed.")


def _pull_refused(name: str, exc: ollama.ResponseError) -> LLMError:
    detail = str(exc.error).strip().rstrip(".")
    return LLMError(f"Ollama could not pull {name}: {detail}.",
                    "Check the name (see https://ollama.com/library) and that the computer "
                    "running Ollama is online.")
