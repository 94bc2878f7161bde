"""Assembling one request: system prompt, compaction summary, history, user turn.

Budgets, in the order they are settled (all estimated with ``core.llm.token_estimates``):

1. a **reply reserve** is kept free: ``min(1024, window / 4)`` tokens;
2. the **system prompt** (at most half the window; see ``system_prompt``);
3. **retrieved context**: ``settings.context_token_budget`` (1,000), shared by the blocks;
4. the **user's message**, cut (head and tail, with a notice) to what is left, but never
   below ``MIN_MESSAGE_TOKENS``;
5. **history** gets the rest, at most ``settings.history_token_budget`` (6,000).

Compaction is decided between the draft (1-4) and the history (5): see
``ConversationService``. Retrieval problems (an embedder or search failure) never stop a
turn: the model then answers without retrieved context, and the log says so.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from core.config import Settings
from core.conversation.context_blocks import (
    ITEM_TYPE,
    ContextSelection,
    retrieve,
    select_context,
)
from core.conversation.history import (
    HistorySelection,
    select_history,
    summary_message,
    uncompacted_tokens,
)
from core.conversation.system_prompt import SystemPrompt, build_system_prompt, read_snapshot
from core.llm.token_estimates import MESSAGE_OVERHEAD_TOKENS, estimate_tokens, message_tokens
from core.conversation.user_turn import UserTurn, build_user_turn, format_timestamp
from core.llm import LLMProvider, Message
from core.recall import RecallService
from core.storage.orm import ChatSession
from core.storage.port import StoragePort

log = logging.getLogger(__name__)

MAX_REPLY_RESERVE = 1024
MIN_MESSAGE_TOKENS = 256


def reply_reserve(window: int) -> int:
    return min(MAX_REPLY_RESERVE, window // 4)


@dataclass(frozen=True)
class Draft:
    """Everything but the history: what compaction measures against the window."""

    system: SystemPrompt
    context: ContextSelection
    user_turn: UserTurn
    retrieval_error: str | None

    def fixed_tokens(self) -> int:
        return (self.system.tokens + estimate_tokens(self.user_turn.content)
                + 2 * MESSAGE_OVERHEAD_TOKENS)


@dataclass(frozen=True)
class Prompt:
    """The messages to send and the record of what went into them."""

    messages: tuple[Message, ...]
    system_sha256: str
    items: tuple[dict[str, Any], ...]
    tokens: dict[str, int]
    memory_ids: tuple[int, ...]


LEAVABLE = frozenset({"fact", "memory", "note", "summary"})
"""The kinds of context item a prompt can be drafted without (``LeftOut``)."""


@dataclass(frozen=True)
class LeftOut:
    """One context item to draft a prompt without ("answer again without this"): its
    context-log type (one of ``LEAVABLE``) and id."""

    kind: str
    id: int


def draft(storage: StoragePort, recall: RecallService, settings: Settings,
          provider: LLMProvider, text: str, now: datetime, *,
          left_out: LeftOut | None = None) -> Draft:
    """System prompt, retrieved context and user turn for ``text`` (without ``left_out``)."""
    window = provider.context_window
    with storage.read() as session:
        snapshot = read_snapshot(session)
    if left_out is not None and left_out.kind == "fact":
        snapshot = replace(snapshot, facts=tuple(
            f for f in snapshot.facts if f.id != left_out.id))
    system = build_system_prompt(snapshot, supports_tools=provider.supports_tools,
                                 about_you_char_cap=settings.about_you_char_cap,
                                 max_tokens=window // 2, persona=settings.persona)
    retrieval_error = None
    try:
        found = [item for item in retrieve(recall, text)
                 if left_out is None
                 or (ITEM_TYPE[item.block], item.id) != (left_out.kind, left_out.id)]
        context = select_context(found, settings.context_token_budget)
    except Exception as exc:  # retrieval is a help, never a reason to fail the reply
        log.warning("retrieval for the user turn failed; answering without it: %s", exc,
                    exc_info=True)
        retrieval_error = f"{type(exc).__name__}: {exc}"
        context = ContextSelection("", (), 0)
    room = (window - reply_reserve(window) - system.tokens - context.tokens
            - estimate_tokens(format_timestamp(now)) - 3 * MESSAGE_OVERHEAD_TOKENS)
    user_turn = build_user_turn(text, context.text, now, max(MIN_MESSAGE_TOKENS, room))
    return Draft(system, context, user_turn, retrieval_error)


def conversation_tokens(storage: StoragePort, session_id: str, exclude_id: int,
                        prepared: Draft) -> int:
    """The whole conversation as it would be sent without a history budget."""
    with storage.read() as session:
        chat = session.get(ChatSession, session_id)
        summary = chat.compaction_summary if chat else None
        after = (chat.compacted_through or 0) if chat else 0
        history = uncompacted_tokens(session, session_id, after, exclude_id)
    summary_tokens = message_tokens(summary_message(summary)) if summary else 0
    return prepared.fixed_tokens() + summary_tokens + history


def complete(storage: StoragePort, recall: RecallService, settings: Settings,
             provider: LLMProvider, prepared: Draft, *, session_id: str, text: str,
             exclude_id: int) -> Prompt:
    """Add the compaction summary and the history that fit, and describe the result."""
    window = provider.context_window
    with storage.read() as session:
        chat = session.get(ChatSession, session_id)
        summary = chat.compaction_summary if chat else None
        after = (chat.compacted_through or 0) if chat else 0
    marker = [summary_message(summary)] if summary else []
    summary_tokens = sum(message_tokens(m) for m in marker)
    room = window - reply_reserve(window) - prepared.fixed_tokens() - summary_tokens
    history = select_history(storage, recall, session_id=session_id, query=text,
                             semantic=settings.semantic_history, compacted_through=after,
                             exclude_id=exclude_id,
                             budget_tokens=max(0, min(settings.history_token_budget, room)))
    messages = (Message("system", prepared.system.text), *marker,
                *(m for turn in history.turns for m in turn.messages()),
                Message("user", prepared.user_turn.content))
    return Prompt(messages=messages, system_sha256=prepared.system.sha256,
                  items=_items(prepared, history, summary_tokens, after),
                  tokens=_tokens(prepared, history, summary_tokens, messages),
                  memory_ids=tuple(prepared.context.memory_ids))


def _items(prepared: Draft, history: HistorySelection, summary_tokens: int,
           compacted_through: int) -> tuple[dict[str, Any], ...]:
    items: list[dict[str, Any]] = list(prepared.system.items)
    if summary_tokens:
        items.append({"type": "compaction_summary", "id": None, "score": None,
                      "tokens": summary_tokens, "through_interaction_id": compacted_through})
    items.extend({"type": "history", "id": turn.interaction_id, "score": turn.score,
                  "tokens": turn.tokens, "source": turn.source} for turn in history.turns)
    items.extend(prepared.context.items)
    items.append({"type": "user_message", "id": None, "score": None,
                  "tokens": prepared.user_turn.message_tokens,
                  "truncated": prepared.user_turn.truncated})
    meta = {"history_mode": history.mode, "history_fallback": history.fallback_reason,
            "retrieval_error": prepared.retrieval_error}
    items.append({"type": "meta", **{k: v for k, v in meta.items() if v is not None}})
    return tuple(items)


def _tokens(prepared: Draft, history: HistorySelection, summary_tokens: int,
            messages: tuple[Message, ...]) -> dict[str, int]:
    return {
        "system": prepared.system.tokens,
        "summary": summary_tokens,
        "history": history.tokens,
        "context": prepared.context.tokens,
        "user_message": prepared.user_turn.message_tokens,
        "user_turn": estimate_tokens(prepared.user_turn.content),
        "total": sum(message_tokens(m) for m in messages),
    }
