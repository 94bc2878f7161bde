"""Compaction: fold the oldest part of a long conversation into a running summary.

When the conversation as it would be sent (system prompt, summary, every exchange not yet
compacted, the new user turn) passes ``settings.compaction_threshold`` (80%) of the model's
context window, the exchanges older than the ``KEEP_RECENT`` most recent are summarised by
the model in one structured call that also proposes memory candidates:

* the summary is **progressive**: the model gets the previous summary with the next chunk
  and returns one merged summary, stored on the session (``compaction_summary``) with the
  id of the last exchange folded in (``compacted_through``); later turns replay it behind
  a ``[Context compacted]`` marker instead of those exchanges;
* a chunk is only as large as fits in the model's window next to the prompt and the
  previous summary (each message cut to ``TURN_CHARS``); what does not fit is folded by
  the next compaction;
* candidates (typed semantic / episodic / procedural, prioritised, namespaced:
  ``core.learning.schemas.MemoryCandidate``) become ``memory_candidate`` context events,
  after the exclusion gate, in the same transaction as the summary, so a retried
  compaction cannot queue them twice;
* a candidate is about the user, so it must come from the user's lines: one that rests on
  words only the assistant used in the folded chunk is dropped (``core.learning.grounding``).
  The summary itself is conversation history and may say what the assistant said.

If the model fails or returns something that does not validate (after one retry), nothing
is compacted: the turn goes on with the oldest exchanges dropped by the history budget,
and the next turn tries again.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field
from sqlalchemy import select

from core.conversation.history import HistoryTurn
from core.llm.token_estimates import clip, estimate_tokens
from core.learning.exclusions import ExclusionGate
from core.learning.grounding import Said
from core.learning.schemas import MemoryCandidate, plain_text
from core.llm import CancelToken, LLMProvider, Message
from core.llm.structured import ask_structured
from core.llm.prompts import load_prompt
from core.storage.orm import ChatSession, ContextEvent, Interaction
from core.storage.port import StoragePort

log = logging.getLogger(__name__)

KEEP_RECENT = 3
"""The most recent exchanges are never compacted: the dialogue needs them verbatim."""
SUMMARY_CHARS = 2400
MAX_CANDIDATES = 8
TURN_CHARS = 1500
COMPACTION_MAX_TOKENS = 1400
"""Room for the answer: a full summary (~600 tokens), 8 candidates (~75 each), JSON."""
ENVELOPE_TOKENS = 64
"""The tags and message overheads around the transcript in the request."""


class CompactionResult(BaseModel):
    """What the compaction call must return (bounded, for small models)."""

    summary: str = Field(min_length=1, max_length=SUMMARY_CHARS, pattern=plain_text(SUMMARY_CHARS))
    candidates: list[MemoryCandidate] = Field(default_factory=list, max_length=MAX_CANDIDATES)


@dataclass(frozen=True)
class Compaction:
    """A compaction that happened: how far it reached and what it queued."""

    through_id: int
    folded: int
    summary: str
    events: int
    dropped: int


def needs_compaction(prompt_tokens: int, context_window: int, threshold: float) -> bool:
    return prompt_tokens > threshold * context_window


def transcript(turns: Sequence[HistoryTurn]) -> str:
    lines = []
    for turn in turns:
        lines.append(f"User: {clip(turn.user, TURN_CHARS)}")
        if turn.assistant:
            lines.append(f"Assistant: {clip(turn.assistant, TURN_CHARS)}")
    return "\n".join(lines)


def _request(previous: str | None, turns: Sequence[HistoryTurn]) -> list[Message]:
    parts = []
    if previous:
        parts.append(f"<previous_summary>\n{html.escape(previous, quote=False)}\n"
                     "</previous_summary>")
    parts.append(f"<conversation>\n{html.escape(transcript(turns), quote=False)}\n"
                 "</conversation>")
    return [Message("system", load_prompt("compaction")), Message("user", "\n\n".join(parts))]


def _users_own(said: Said, candidate: MemoryCandidate) -> bool:
    taken = said.assistant_only(candidate.content)
    if taken:
        log.info("compaction dropped a memory candidate resting on %d of the assistant's "
                 "words", len(taken))
    return not taken


def _chunk(turns: Sequence[HistoryTurn], room_tokens: int) -> list[HistoryTurn]:
    """The oldest turns whose transcript fits ``room_tokens`` (always at least one)."""
    chosen: list[HistoryTurn] = []
    for turn in turns:
        if chosen and estimate_tokens(transcript([*chosen, turn])) > room_tokens:
            break
        chosen.append(turn)
    return chosen


class Compactor:
    """Compacts one session at a time with the conversation's provider."""

    def __init__(self, storage: StoragePort, provider: LLMProvider) -> None:
        self._storage = storage
        self._provider = provider

    def compact(self, session_id: str, *, gate: ExclusionGate, exclude_id: int | None,
                cancel: CancelToken | None = None, learn: bool = True) -> Compaction | None:
        """Fold the oldest uncompacted exchanges; None if there was nothing to fold or the
        model failed (logged). Never raises for what the model returns. Without ``learn``
        (learning paused, or off for this chat) the summary is kept, as part of the chat,
        but no memory candidate is."""
        with self._storage.read() as session:
            chat = session.get(ChatSession, session_id)
            if chat is None:
                return None
            previous, after = chat.compaction_summary, chat.compacted_through or 0
            query = select(Interaction.id, Interaction.user_message, Interaction.agent_response,
                           Interaction.created_at).where(
                Interaction.session_id == session_id, Interaction.id > after)
            if exclude_id is not None:
                query = query.where(Interaction.id != exclude_id)
            rows = session.execute(query.order_by(Interaction.id)).all()
        foldable = [HistoryTurn(r.id, r.user_message or "", r.agent_response or "",
                                r.created_at) for r in rows[:-KEEP_RECENT]]
        if not foldable:
            return None
        room = (self._provider.context_window - COMPACTION_MAX_TOKENS
                - estimate_tokens(load_prompt("compaction"))
                - estimate_tokens(previous or "") - ENVELOPE_TOKENS)
        chunk = _chunk(foldable, room)
        outcome = ask_structured(self._provider, _request(previous, chunk), CompactionResult,
                                 max_tokens=COMPACTION_MAX_TOKENS, retries=1, cancel=cancel)
        if outcome.value is None:
            log.warning("compaction of session %s failed after %d attempt(s): %s",
                        session_id, outcome.attempts, outcome.problem)
            return None
        assert isinstance(outcome.value, CompactionResult)
        said = Said.of([clip(turn.user, TURN_CHARS) for turn in chunk],
                       [clip(turn.assistant, TURN_CHARS) for turn in chunk])
        kept = [c for c in outcome.value.candidates
                if learn and not gate.drop(c.content) and _users_own(said, c)]
        return self._store(session_id, after, chunk[-1].interaction_id, len(chunk),
                           outcome.value, kept)

    def _store(self, session_id: str, after: int, through: int, folded: int,
               result: CompactionResult, kept: list[MemoryCandidate]) -> Compaction | None:
        with self._storage.write() as session:
            chat = session.get(ChatSession, session_id)
            if chat is None or (chat.compacted_through or 0) != after:
                log.warning("session %s changed during compaction; result discarded",
                            session_id)
                return None
            chat.compaction_summary = result.summary.strip()
            chat.compacted_through = through
            session.add_all(ContextEvent(
                event_type="memory_candidate", content=candidate.model_dump_json(),
                source_metadata={"source": "compaction", "session_id": session_id,
                                 "through_interaction_id": through,
                                 "priority": candidate.priority})
                for candidate in kept)
        return Compaction(through_id=through, folded=folded, summary=result.summary.strip(),
                          events=len(kept), dropped=len(result.candidates) - len(kept))
