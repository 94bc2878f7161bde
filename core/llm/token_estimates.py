"""Token estimates: one rule, used by every budget in the conversation.

Hearth talks to several models with different tokenizers (Ollama's, llama.cpp's), and none
of them is available before a request is sent. Budgets only need to be predictable, not
exact, so the whole conversation layer estimates **~4 characters per token** (the rule of
thumb for English with BPE tokenizers). Every budget (history,
retrieved context, system prompt, compaction, user input) goes through ``estimate_tokens``
so that their sums are comparable. Languages with denser scripts use more tokens per
character; the compaction threshold (80% of the window) and the reply reserve absorb that.
"""

from __future__ import annotations

import math

from core.llm import Message

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4
"""Role markers and separators a chat template adds around each message."""


def estimate_tokens(text: str) -> int:
    """Estimated tokens in ``text``: ``ceil(len / 4)``; 0 for empty text."""
    return tokens_for_chars(len(text))


def tokens_for_chars(chars: int) -> int:
    """The same estimate from a character count (for sizes summed by the database)."""
    return math.ceil(chars / CHARS_PER_TOKEN)


def message_tokens(message: Message) -> int:
    """Estimated tokens of one chat message, including its template overhead."""
    return estimate_tokens(message.content) + MESSAGE_OVERHEAD_TOKENS


def chars_for(tokens: int) -> int:
    """How many characters fit in ``tokens`` by the same rule (never negative)."""
    return max(0, tokens) * CHARS_PER_TOKEN


def clip(text: str, max_chars: int, marker: str = "…") -> str:
    """``text`` cut to at most ``max_chars`` characters, ending with ``marker`` when cut."""
    if len(text) <= max_chars:
        return text
    return text[:max(0, max_chars - len(marker))].rstrip() + marker
