"""A scripted in-process LLM for pipeline tests: plays back answers, records requests.

Only pipeline logic is tested with it; the providers themselves are tested against a real
HTTP server (Ollama-compatible) and the real embedded model.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from core.llm import (
    CancelToken,
    ChatChunk,
    LLMError,
    Message,
    ProviderStatus,
    ToolCall,
    ToolSpec,
)


@dataclass(frozen=True)
class Reply:
    """One scripted answer: text, and/or tool calls for the model to "make"."""

    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()


Script = str | Reply | Exception
Responder = Callable[[str, Sequence[Message], dict[str, Any]], Script]
"""``(kind, messages, extra) -> answer`` where kind is "chat" or "structured"."""


@dataclass
class Request:
    kind: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    schema: dict[str, Any] | None = None
    max_tokens: int | None = None
    temperature: float | None = None


class ScriptedLLM:
    """Answers from a list (in order) or a responder function; raises scripted errors."""

    def __init__(self, script: Sequence[Script] | Responder = (), *, name: str = "scripted",
                 model: str = "scripted-1", supports_tools: bool = True,
                 context_window: int = 8192, parameter_count: int | None = None) -> None:
        self._script = script if callable(script) else list(script)
        self._parameter_count = parameter_count
        self._name, self._model = name, model
        self._supports_tools, self._context_window = supports_tools, context_window
        self.requests: list[Request] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def model(self) -> str:
        return self._model

    @property
    def identity(self) -> str:
        return f"{self._name} · {self._model}"

    @property
    def supports_tools(self) -> bool:
        return self._supports_tools

    @property
    def context_window(self) -> int:
        return self._context_window

    @property
    def parameter_count(self) -> int | None:
        """None by default: a model of unknown size runs every job."""
        return self._parameter_count

    def status(self) -> ProviderStatus:
        return ProviderStatus(True, f"{self._name} ({self._model})")

    def _next(self, kind: str, messages: Sequence[Message], extra: dict[str, Any]) -> Script:
        if callable(self._script):
            return self._script(kind, messages, extra)
        if not self._script:
            raise AssertionError(f"ScriptedLLM ran out of answers for a {kind} request")
        return self._script.pop(0)

    def chat_stream(self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (),
                    cancel: CancelToken | None = None,
                    max_tokens: int | None = None,
                    temperature: float | None = None) -> Iterator[ChatChunk]:
        self.requests.append(Request("chat", list(messages), list(tools), None, max_tokens,
                                     temperature))
        answer = self._next("chat", messages, {"tools": list(tools)})
        if isinstance(answer, Exception):
            raise answer
        reply = answer if isinstance(answer, Reply) else Reply(text=answer)
        words = reply.text.split(" ")
        for index, word in enumerate(words):
            if cancel is not None and cancel.cancelled:
                return
            yield ChatChunk(text=word if index == 0 else " " + word)
        yield ChatChunk(tool_calls=reply.tool_calls, done=True, prompt_tokens=None,
                        completion_tokens=len(words))

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        self.requests.append(Request("structured", list(messages), [], schema, max_tokens))
        answer = self._next("structured", messages, {"schema": schema})
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, Reply):
            return answer.text
        return answer

    def close(self) -> None:
        """Nothing to release."""


def failing(message: str = "scripted failure") -> LLMError:
    """An error to put in a script where the model should fail."""
    return LLMError(message, "This failure was scripted by the test.")
