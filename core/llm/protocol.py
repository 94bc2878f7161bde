"""The language-model port: what Hearth needs from any LLM, and nothing more.

Three abilities: streaming chat that can be cancelled, structured output against a JSON
schema, and tool calls. Two implementations exist (``core.llm.ollama`` for a local Ollama
server, ``core.llm.embedded`` for an in-process llama.cpp model); tests use a scripted
double. Callers never see a library exception: every failure is an ``LLMError`` subclass
with a sentence a person can act on. An ``LLMOutage`` (not running, model missing, server
error, timeout) says the provider could not answer at all, which queued work must not
count against itself; any other ``LLMError`` is a failure of this request.

Structured output is returned as *raw text*: models (small ones especially) produce
fences, chatter around the JSON, stringified values and wrong shapes, and the repair and
validation path (``core.llm.structured``) owns fixing that, in one place.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.errors import HearthError

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: a name, what it is for, and a JSON schema of its
    arguments (an ``object`` schema)."""

    name: str
    description: str
    parameters: dict[str, Any]


@dataclass(frozen=True)
class ToolCall:
    """The model asks for ``name`` to be run with ``arguments``."""

    name: str
    arguments: dict[str, Any]
    id: str = ""


@dataclass(frozen=True)
class Message:
    """One chat message. ``tool_calls`` on assistant messages; ``tool_name`` on results."""

    role: Role
    content: str
    tool_calls: tuple[ToolCall, ...] = ()
    tool_name: str | None = None


@dataclass(frozen=True)
class ChatChunk:
    """A piece of a streamed reply. The last chunk has ``done=True`` and the token counts
    when the provider reports them."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    done: bool = False
    prompt_tokens: int | None = None
    completion_tokens: int | None = None


@dataclass(frozen=True)
class ModelInfo:
    """A model a provider can run."""

    name: str
    size_bytes: int | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ProviderStatus:
    """Whether a provider can answer now, and a line for the status bar / `hearth status`."""

    available: bool
    detail: str


class CancelToken:
    """Set by whoever wants a generation (or a pull) to stop; polled by providers between
    chunks. Thread-safe."""

    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


PullProgress = Callable[[str, int | None, int | None], None]
"""``(status, completed_bytes, total_bytes)`` while a model is being pulled."""


class LLMProvider(Protocol):
    """A language model Hearth can talk to."""

    @property
    def name(self) -> str:
        """``"ollama"`` or ``"embedded"`` (shown to the user with the model)."""

    @property
    def model(self) -> str:
        """The model name this provider uses."""

    @property
    def identity(self) -> str:
        """Provider, model and where it runs (``ollama · llama3.2:3b · http://...``):
        precise enough to notice that the user chose another model or server."""

    @property
    def supports_tools(self) -> bool:
        """True when the model can be offered tools (native tool calling)."""

    @property
    def context_window(self) -> int:
        """The model's context size in tokens (used for compaction)."""

    @property
    def parameter_count(self) -> int | None:
        """How many parameters the model has, read from the model itself (the GGUF file,
        Ollama's model details); None when it cannot be read. It decides which jobs the
        model may run (``core.llm.capability``)."""

    def status(self) -> ProviderStatus:
        """Check, quickly, whether the provider answers; never raises."""

    def chat_stream(self, messages: Sequence[Message], *,
                    tools: Sequence[ToolSpec] = (), cancel: CancelToken | None = None,
                    max_tokens: int | None = None,
                    temperature: float | None = None) -> Iterator[ChatChunk]:
        """Stream a reply. Stops early (without error) when ``cancel`` is set.
        ``temperature`` None keeps the model's own default."""

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        """Ask for output constrained to ``schema``; returns the raw text."""

    def close(self) -> None:
        """Release the model (threads, memory, ports)."""


class LLMError(HearthError):
    """Any failure talking to a language model."""


class LLMOutage(LLMError):
    """The provider could not answer at all: nothing about the request was wrong.

    Work queued for the model (the event processor's observations) waits for it to come
    back instead of counting the failure against itself; only an answer that is unusable
    (``LLMError`` itself, or invalid output after repair) is the request's failure.
    """


class LLMUnavailableError(LLMOutage):
    """The provider cannot be reached (Ollama not running, embedded model missing)."""


class LLMModelMissingError(LLMOutage):
    """The configured model is not installed."""


class LLMTimeoutError(LLMOutage):
    """The model did not answer in time."""


class LLMServerError(LLMOutage):
    """The server failed while answering (HTTP 5xx, a model that is loading or crashed, a
    connection dropped mid-reply, a reply that is not Ollama's)."""


class LLMCancelled(LLMError):
    """A generation or pull was cancelled by the user."""
