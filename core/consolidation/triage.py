"""Triage (dream stage 0.5): new drafts are promoted, forgotten or flagged for review.

Drafts are recall-tier memories the machine wrote (``DRAFT_SOURCES``) that carry no
``triaged`` tag yet. The tag is the stage's bookkeeping: it lives in the memory's own
``tags`` list, so no migration is needed, and a rerun skips every draft already judged.

Heuristics decide what is certain without an LLM call:

* a greeting, a thank-you or a text of fewer than ``triage_min_words`` words (a setting)
  is forgotten: ``is_valid = False`` with the reason ``triage: forgotten`` (never deleted,
  restorable);
* a user-stated memory (priority ``highest``) is promoted: importance raised to at least
  ``triage_promoted_importance`` (a setting).

The rest go to the LLM in batches of ``BATCH``; it answers ``promote``, ``forget`` or
``review`` per numbered draft, and ``review`` adds the tag ``review`` for the user to look
at. A batch is written in one transaction; a failed or garbled answer leaves the whole
batch untriaged for the next run, and a draft the answer does not mention stays untriaged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Literal, TypeVar

from pydantic import BaseModel, Field
from sqlalchemy import select

from core.llm.capability import Job, profile_of
from core.llm.protocol import CancelToken, LLMCancelled, LLMProvider, Message
from core.llm.structured import CANCELLED, ask_structured
from core.llm.prompts import load_prompt
from core.storage.orm import Memory, MemoryTier, Priority, utcnow

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

DRAFT_SOURCES = ("conversation", "processor", "consolidation", "compaction", "session_close")
TRIAGED = "triaged"
REVIEW = "review"
FORGOTTEN_REASON = "triage: forgotten"
BATCH = 8
DRAFT_CHARS = 300
"""Characters of each draft shown to the model: enough to judge, bounded for small models."""
TRIAGE_MAX_TOKENS = 40 + 30 * BATCH

_SMALL_TALK = re.compile(
    r"^\W*(hi|hello|hey|thanks|thank you|thx|ok|okay|bye|goodbye|good (morning|night|evening)"
    r"|cheers|yes|no|sure|cool|great|lol)\W*$", re.IGNORECASE)

Progress = Callable[[int, int], None]
Model = TypeVar("Model", bound=BaseModel)


class Verdict(BaseModel):
    number: int = Field(ge=1, le=BATCH)
    verdict: Literal["promote", "forget", "review"]


class TriageAnswer(BaseModel):
    verdicts: list[Verdict] = Field(default_factory=list, max_length=BATCH)


def run(services: ConsolidationServices, provider: LLMProvider, *, progress: Progress | None = None,
        cancel: CancelToken | None = None) -> dict[str, int]:
    """Triage every untriaged draft; counts ``drafts``, ``promoted``, ``forgotten``,
    ``review`` and ``undecided`` (left for the next run). A model that may not tidy
    memories (``core.llm.capability``) is not asked: the rules judge what is certain and
    the rest is counted ``waiting``."""
    counts = {"drafts": 0, "promoted": 0, "forgotten": 0, "review": 0, "undecided": 0}
    with services.storage.read() as session:
        drafts = [(row.id, row.content, row.priority) for row in session.execute(
            select(Memory.id, Memory.content, Memory.priority, Memory.tags).where(
                Memory.tier == MemoryTier.RECALL.value, Memory.source.in_(DRAFT_SOURCES),
                Memory.is_valid.is_(True), Memory.superseded_by.is_(None))
            .order_by(Memory.id)) if TRIAGED not in (row.tags or [])]
    counts["drafts"] = len(drafts)
    min_words = services.settings.triage_min_words
    certain = {memory_id: _heuristic(content, priority, min_words)
               for memory_id, content, priority in drafts}
    settled = {memory_id: verdict for memory_id, verdict in certain.items() if verdict}
    if settled:
        _apply(services, settled, counts)
    uncertain = [(memory_id, content) for memory_id, content, _ in drafts
                 if memory_id not in settled]
    done = len(settled)
    report_progress(progress, done, len(drafts))
    if not profile_of(provider, services.settings.model_jobs).may(Job.CONSOLIDATION):
        counts["waiting"] = len(uncertain)  # judged by a capable model, later
        return counts
    for start in range(0, len(uncertain), BATCH):
        check_cancel(cancel, "Triage")
        batch = uncertain[start:start + BATCH]
        verdicts = _ask(provider, batch, cancel)
        if verdicts:
            _apply(services, verdicts, counts)
        counts["undecided"] += len(batch) - len(verdicts)
        done += len(batch)
        report_progress(progress, done, len(drafts))
    return counts


def _heuristic(content: str, priority: str, min_words: int) -> str | None:
    text = content.strip()
    if _SMALL_TALK.match(text) or len(text.split()) < min_words:
        return "forget"
    if priority == Priority.HIGHEST.value:
        return "promote"
    return None


def _ask(provider: LLMProvider, batch: Sequence[tuple[int, str]],
         cancel: CancelToken | None) -> dict[int, str]:
    """Verdicts by memory id for the drafts the model judged (none when it failed)."""
    shown = "\n".join(f"{number}. {' '.join(content.split())[:DRAFT_CHARS]}"
                      for number, (_, content) in enumerate(batch, start=1))
    messages = [Message("system", load_prompt("triage")),
                Message("user", f"<drafts>\n{shown}\n</drafts>")]
    answer = ask_or_none(provider, messages, TriageAnswer, TRIAGE_MAX_TOKENS, cancel, "Triage")
    if answer is None:
        return {}
    return {batch[item.number - 1][0]: item.verdict for item in answer.verdicts
            if item.number <= len(batch)}


def _apply(services: ConsolidationServices, verdicts: dict[int, str],
           counts: dict[str, int]) -> None:
    """Write the verdicts in one transaction; a draft changed meanwhile is left alone."""
    with services.storage.write() as session:
        for memory_id, verdict in verdicts.items():
            memory = session.get(Memory, memory_id)
            if memory is None or TRIAGED in (memory.tags or []) or not memory.is_valid:
                continue
            tags = [*memory.tags, TRIAGED]
            if verdict == "forget":
                memory.is_valid = False
                memory.invalid_reason = FORGOTTEN_REASON
                counts["forgotten"] += 1
            elif verdict == "promote":
                memory.importance = max(memory.importance,
                                        services.settings.triage_promoted_importance)
                counts["promoted"] += 1
            else:
                tags.append(REVIEW)
                counts["review"] += 1
            memory.tags = tags  # a new list: JSON columns do not track in-place changes
            memory.updated_at = utcnow()


# --- shared by the LLM stages ------------------------------------------------------------


def check_cancel(cancel: CancelToken | None, stage: str) -> None:
    """Raise ``LLMCancelled`` between units of work when the caller asked to stop."""
    if cancel is not None and cancel.cancelled:
        raise LLMCancelled(f"{stage} was cancelled.",
                           "What was finished is kept; the next run does the rest.")


def ask_or_none(provider: LLMProvider, messages: Sequence[Message], output: type[Model],
                max_tokens: int, cancel: CancelToken | None, stage: str) -> Model | None:
    """A validated answer, or ``None`` when the model failed or answered garbage (already
    logged by ``ask_structured``; the unit stays for the next run). Cancelling raises."""
    outcome = ask_structured(provider, messages, output, max_tokens=max_tokens, cancel=cancel)
    if outcome.error == CANCELLED:
        check_cancel(cancel, stage)
        raise LLMCancelled(f"{stage} was cancelled.", "The next run does the rest.")
    return outcome.value


def report_progress(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)
