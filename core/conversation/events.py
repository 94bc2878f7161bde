"""What a turn reports to its front end, and what the service reports to the learner.

``ConversationService.send`` yields these in order: ``FromMemory`` (when what Hearth
knows answers the question), ``Compacted`` (rarely, before the reply), ``TextDelta``
pieces and ``ToolActivity`` as they happen, and exactly one ``TurnFinished`` or
``TurnFailed`` last. Front ends (the CLI, later the window) only
render them; they never need to know how the turn was assembled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from core.conversation.memory_answer import KnownAnswer


@dataclass(frozen=True)
class FromMemory:
    """What Hearth knows that answers the user's question about themselves, shown before
    (above) the model's phrasing of it (``core.conversation.memory_answer``)."""

    answers: tuple[KnownAnswer, ...]


@dataclass(frozen=True)
class TextDelta:
    """A piece of the reply, to append to what is shown."""

    text: str


@dataclass(frozen=True)
class ToolActivity:
    """The model used a tool: its name, its (redacted) arguments, a one-line outcome."""

    name: str
    arguments: dict[str, Any]
    result_summary: str
    ok: bool = True


@dataclass(frozen=True)
class Compacted:
    """Older exchanges were folded into the session's summary before this reply."""

    through_interaction_id: int
    folded_exchanges: int
    memory_candidates: int


@dataclass(frozen=True)
class TurnFinished:
    """The reply is complete (or was stopped by the user) and everything is saved.

    ``tokens`` are the estimated sizes of the prompt's sections (see docs/conversation.md).
    """

    interaction_id: int
    reply: str
    context_log_id: int | None
    tokens: dict[str, int] = field(default_factory=dict)
    stopped: bool = False


@dataclass(frozen=True)
class TurnFailed:
    """The model failed; the user's message (and any partial reply) is saved anyway."""

    message: str
    hint: str
    interaction_id: int


TurnEvent = FromMemory | TextDelta | ToolActivity | Compacted | TurnFinished | TurnFailed


class ExchangeListener(Protocol):
    """Told about every saved exchange (the learning pipeline plugs in here).

    Called on the thread running the turn, after the exchange is written and before the
    final event is yielded; it must return quickly (queue its work). An exception it
    raises is logged and does not affect the turn.
    """

    def exchange_completed(self, interaction_id: int, session_id: str) -> None: ...
