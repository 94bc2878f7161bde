"""Closing a session: 1-3 ``Summary: <topic>`` notes and memory candidates (000, 001).

Sessions of fewer than two exchanges have nothing worth summarising. The conversation is
capped (50 turns × 300 characters per side) before it goes to the model; what comes back
is validated against a bounded schema, so a weak model yields fewer results, never garbage.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from core.learning.schemas import SESSION_DIGEST_MAX_TOKENS, SessionDigest
from core.llm import LLMProvider, Message
from core.llm.structured import ask_structured
from core.prompts import load_prompt
from core.storage.orm import Interaction

log = logging.getLogger(__name__)

MIN_EXCHANGES = 2
MAX_TURNS = 50
MAX_TURN_CHARS = 300


def transcript_for_digest(interactions: Sequence[Interaction]) -> str:
    lines = []
    for item in list(interactions)[-MAX_TURNS:]:
        lines.append(f"[{item.created_at:%Y-%m-%d %H:%M}] User: {item.user_message[:MAX_TURN_CHARS]}")
        if item.agent_response:
            lines.append(f"Assistant: {item.agent_response[:MAX_TURN_CHARS]}")
    return "\n".join(lines)


def digest_session(provider: LLMProvider,
                   interactions: Sequence[Interaction]) -> SessionDigest | None:
    """The digest of a finished session, ``None`` if there is nothing to summarise or the
    model failed (logged); never raises for bad model output."""
    if len(interactions) < MIN_EXCHANGES:
        return None
    outcome = ask_structured(
        provider,
        [Message("system", load_prompt("session_digest")),
         Message("user", "<conversation>\n" + transcript_for_digest(interactions)
                 + "\n</conversation>")],
        SessionDigest, max_tokens=SESSION_DIGEST_MAX_TOKENS)
    if outcome.value is None:
        log.warning("session digest failed: %s", outcome.error)
        return None
    assert isinstance(outcome.value, SessionDigest)
    return outcome.value
