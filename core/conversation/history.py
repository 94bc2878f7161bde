"""Short-term history: the earlier exchanges of this conversation that the model sees.

**Whose history.** The exchanges of the current chat session only: a new chat starts
clean, and earlier chats reach the model through recall (summaries, memories) and the
search_history tool. Exchanges folded into the session's compaction summary are not
repeated: history starts after ``ChatSession.compacted_through``, and the summary comes
first, behind a ``[Context compacted]`` marker.

**Chronological mode** (default): the newest exchanges, oldest dropped first until they fit
the budget (``settings.history_token_budget``, 6,000 tokens, or less when the model's window
is smaller). A budget rather than a count keeps the prompt size predictable whether the
exchanges were one-liners or pages.

**Semantic mode** (``settings.semantic_history``): the 3 most recent exchanges verbatim (so
the dialogue stays coherent) plus the 3 older exchanges most similar to the new message,
found by vector recall over *all* past exchanges (earlier chats included: that is what
makes this mode worth its cost), with recall's recency boost, above a cosine similarity of
``SEMANTIC_THRESHOLD``; merged chronologically, then budgeted like the other mode. Any
failure in it (embedding, search, loading) falls back to chronological, logged: history is
never lost to a retrieval problem.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Select, func, select
from sqlalchemy.orm import Session

from core.llm.token_estimates import MESSAGE_OVERHEAD_TOKENS, estimate_tokens, tokens_for_chars
from core.llm import Message
from core.recall import RecallService
from core.recall.service import RecallQuery
from core.storage.orm import Interaction
from core.storage.port import IndexedKind, SearchFilters, StoragePort

log = logging.getLogger(__name__)

RECENT_COUNT = 3
RELEVANT_COUNT = 3
SEMANTIC_THRESHOLD = 0.6
"""Cosine similarity an older exchange needs to be brought back."""
MAX_LOADED_TURNS = 200
"""Newest exchanges read per turn; more never fit any budget Hearth uses."""
COMPACTION_MARKER = "[Context compacted] Summary of the earlier conversation:"

HistoryMode = Literal["chronological", "semantic"]


@dataclass(frozen=True)
class HistoryTurn:
    """One earlier exchange, as it will be replayed to the model."""

    interaction_id: int
    user: str
    assistant: str
    created_at: datetime
    source: Literal["recent", "relevant"] = "recent"
    score: float | None = None

    @property
    def tokens(self) -> int:
        return sum(estimate_tokens(m.content) + MESSAGE_OVERHEAD_TOKENS for m in self.messages())

    def messages(self) -> list[Message]:
        """The user message and, when there was one, the reply (a failed turn has none)."""
        replies = [Message("assistant", self.assistant)] if self.assistant else []
        return [Message("user", self.user), *replies]


@dataclass(frozen=True)
class HistorySelection:
    turns: tuple[HistoryTurn, ...]
    mode: HistoryMode
    fallback_reason: str | None = None

    @property
    def tokens(self) -> int:
        return sum(turn.tokens for turn in self.turns)


def summary_message(summary: str) -> Message:
    """The marker that tells the model older exchanges were replaced by a summary."""
    return Message("system", f"{COMPACTION_MARKER}\n{summary}")


def _turn(row: Any, source: Literal["recent", "relevant"] = "recent",
          score: float | None = None) -> HistoryTurn:
    """A history turn from a row of ``_session_rows`` (id, both messages, created_at)."""
    return HistoryTurn(row.id, row.user_message or "", row.agent_response or "",
                       row.created_at, source, score)


def _session_rows(session_id: str, after_id: int,
                  exclude_id: int | None) -> Select[int, str, str, datetime]:
    query = select(Interaction.id, Interaction.user_message, Interaction.agent_response,
                   Interaction.created_at).where(Interaction.session_id == session_id,
                                                 Interaction.id > after_id)
    return query if exclude_id is None else query.where(Interaction.id != exclude_id)


def recent_turns(session: Session, session_id: str, after_id: int,
                 exclude_id: int | None, limit: int = MAX_LOADED_TURNS) -> list[HistoryTurn]:
    """The newest ``limit`` exchanges of the session after ``after_id``, oldest first."""
    rows = session.execute(_session_rows(session_id, after_id, exclude_id)
                           .order_by(Interaction.id.desc()).limit(limit)).all()
    return [_turn(row) for row in reversed(rows)]


def uncompacted_tokens(session: Session, session_id: str, after_id: int,
                       exclude_id: int | None) -> int:
    """Estimated tokens of *all* the session's exchanges after ``after_id`` (one query,
    however long the session: this is what compaction measures)."""
    rows = _session_rows(session_id, after_id, exclude_id).subquery()
    chars, count = session.execute(select(
        func.coalesce(func.sum(func.length(rows.c.user_message)
                               + func.length(rows.c.agent_response)), 0),
        func.count())).one()
    return tokens_for_chars(int(chars)) + 2 * MESSAGE_OVERHEAD_TOKENS * int(count)


def within_budget(turns: Iterable[HistoryTurn], budget_tokens: int) -> list[HistoryTurn]:
    """The newest turns whose total fits ``budget_tokens``, oldest first."""
    kept: list[HistoryTurn] = []
    used = 0
    for turn in reversed(list(turns)):
        used += turn.tokens
        if used > budget_tokens:
            break
        kept.append(turn)
    return kept[::-1]


def relevant_older(storage: StoragePort, recall: RecallService, query: str,
                   exclude_ids: Iterable[int], session_id: str,
                   compacted_through: int) -> list[HistoryTurn]:
    """Up to ``RELEVANT_COUNT`` older exchanges similar to ``query`` (best first); raises on
    any failure, for the caller to fall back."""
    results = recall.recall(RecallQuery(
        text=query, k=RELEVANT_COUNT * 4, kinds=(IndexedKind.INTERACTION,),
        signals=frozenset({"vector"}),
        filters=SearchFilters(exclude_ids=frozenset(exclude_ids))))
    chosen = [r for r in results
              if r.signals.get("vector", {}).get("similarity", 0.0) >= SEMANTIC_THRESHOLD
              and not (r.provenance.get("session_id") == session_id
                       and r.id <= compacted_through)][:RELEVANT_COUNT]
    if not chosen:
        return []
    scores = {r.id: r.score for r in chosen}
    with storage.read() as session:
        rows = session.execute(select(Interaction.id, Interaction.user_message,
                                      Interaction.agent_response, Interaction.created_at)
                               .where(Interaction.id.in_(scores))).all()
    return [_turn(row, "relevant", round(scores[row.id], 4)) for row in rows]


def select_history(storage: StoragePort, recall: RecallService, *, session_id: str,
                   query: str, semantic: bool, compacted_through: int,
                   exclude_id: int | None, budget_tokens: int) -> HistorySelection:
    """The history for one turn, within ``budget_tokens`` (see the module docstring)."""
    with storage.read() as session:
        recent = recent_turns(session, session_id, compacted_through, exclude_id)
    if not semantic:
        return HistorySelection(tuple(within_budget(recent, budget_tokens)), "chronological")
    try:
        newest = recent[-RECENT_COUNT:]
        excluded = [turn.interaction_id for turn in newest]
        if exclude_id is not None:
            excluded.append(exclude_id)
        older = relevant_older(storage, recall, query, excluded, session_id, compacted_through)
    except Exception as exc:  # any retrieval failure: chronological history instead
        log.warning("semantic history failed, using chronological history: %s", exc,
                    exc_info=True)
        return HistorySelection(tuple(within_budget(recent, budget_tokens)), "chronological",
                                fallback_reason=f"{type(exc).__name__}: {exc}")
    merged = sorted([*older, *newest], key=lambda t: (t.created_at, t.interaction_id))
    return HistorySelection(tuple(within_budget(merged, budget_tokens)), "semantic")
