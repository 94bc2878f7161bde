"""Closing a session: 1-3 ``Summary: <topic>`` notes and memory candidates.

Sessions of fewer than two exchanges have nothing worth summarising. The conversation is
capped (50 turns × 300 characters per side) before it goes to the model; what comes back
is validated against a bounded schema, so a weak model yields fewer results, never garbage.

The summaries are conversation history and may say what the assistant did ("Hearth
suggested a three-day plan"). Memory candidates are about the user and must come from the
user's own lines: a candidate that rests on words only the assistant used is dropped
(``users_own_candidates``, with ``core.learning.grounding``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.learning.grounding import Said
from core.learning.schemas import SESSION_DIGEST_MAX_TOKENS, MemoryCandidate, SessionDigest
from core.llm import CancelToken, LLMCancelled, LLMProvider, Message
from core.llm.structured import CANCELLED, ask_structured
from core.llm.prompts import load_prompt
from core.storage.orm import Interaction

log = logging.getLogger(__name__)

MIN_EXCHANGES = 2
MAX_TURNS = 50
MAX_TURN_CHARS = 300


def transcript_for_digest(interactions: Sequence[Interaction]) -> str:
    lines = []
    for item in list(interactions)[-MAX_TURNS:]:
        lines.append(f"[{item.created_at:%Y-%m-%d %H:%M}] "
                     f"User: {item.user_message[:MAX_TURN_CHARS]}")
        if item.agent_response:
            lines.append(f"Assistant: {item.agent_response[:MAX_TURN_CHARS]}")
    return "\n".join(lines)


def said_in(interactions: Sequence[Interaction]) -> Said:
    """What each side wrote in the part of the session the model was shown."""
    shown = list(interactions)[-MAX_TURNS:]
    return Said.of([item.user_message[:MAX_TURN_CHARS] for item in shown],
                   [(item.agent_response or "")[:MAX_TURN_CHARS] for item in shown])


def users_own_candidates(candidates: Sequence[MemoryCandidate],
                         interactions: Sequence[Interaction]) -> list[MemoryCandidate]:
    """The candidates that do not rest on the assistant's words (the others are logged)."""
    said = said_in(interactions)
    kept = []
    for candidate in candidates:
        taken = said.assistant_only(candidate.content)
        if taken:
            log.info("dropped a memory candidate resting on %d of the assistant's words",
                     len(taken))
            continue
        kept.append(candidate)
    return kept


def digest_session(provider: LLMProvider, interactions: Sequence[Interaction], *,
                   cancel: CancelToken | None = None) -> SessionDigest | None:
    """The digest of a finished session, ``None`` if there is nothing to summarise or the
    model failed (logged); never raises for bad model output. Raises ``LLMCancelled``
    when ``cancel`` stopped the request."""
    if len(interactions) < MIN_EXCHANGES:
        return None
    outcome = ask_structured(
        provider,
        [Message("system", load_prompt("session_digest")),
         Message("user", "<conversation>\n" + transcript_for_digest(interactions)
                 + "\n</conversation>")],
        SessionDigest, max_tokens=SESSION_DIGEST_MAX_TOKENS, cancel=cancel)
    if outcome.error == CANCELLED:
        raise LLMCancelled("Summarising the chat was cancelled.",
                           "It is summarised at the next start.")
    if outcome.value is None:
        log.warning("session digest failed: %s", outcome.problem)
        return None
    assert isinstance(outcome.value, SessionDigest)
    return outcome.value
