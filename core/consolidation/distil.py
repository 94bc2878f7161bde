"""Distil (dream stage 0.55): each closed chat session becomes one durable memory.

A session qualifies when it is closed (``closed_at`` set), came from the chat window
(``source = 'chat'``), has at least ``MIN_EXCHANGES`` answered exchanges and has not been
distilled before. Its transcript goes to the LLM, which answers with one category-tagged
sentence of what was learned about the user, or nothing. The sentence passes through the
``Deduplicator`` (so a session that only restated known things adds nothing), and is
written with ``source = 'distil'``, the session's id and its category. The transcript shows
the assistant's replies (they say what the user answered), but a sentence that rests on
words only the assistant used (``core.learning.grounding``) is the assistant's line, not
something learned about the user: it is dropped and the session recorded as empty.

Done-marker. Whatever the outcome (a memory written, a duplicate skipped, nothing worth
keeping), the stage writes one audit entry ``dream.distil`` naming the session, in the same
transaction as the memory. The entry is what makes a rerun skip the session; a dedupe SKIP
would otherwise leave no trace and the session would be asked about every night. A failed
or garbled answer writes nothing, so the session is tried again next run.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from pydantic import BaseModel, Field
from sqlalchemy import func, select

from core.consolidation.dedupe import CandidateMemory, DedupeUndecided, Deduplicator
from core.consolidation.triage import ask_or_none, check_cancel, report_progress
from core.learning import quality_gate
from core.learning.grounding import Said
from core.learning.schemas import FactCategory, plain_text
from core.llm.protocol import CancelToken, LLMProvider, Message
from core.llm.prompts import load_prompt
from core.storage.orm import AuditEntry, ChatSession, Interaction, Memory

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

log = logging.getLogger(__name__)

SOURCE = "distil"
AUDIT_ACTION = "dream.distil"
RECHECK_ACTION = "dream.distil.recheck"
RECHECK_REASON = ("It rested on what the assistant said, not on what you said (checked "
                  "after an update). Restore it if it is right.")
MIN_EXCHANGES = 2
ANSWERED = ("completed", "stopped")
TRANSCRIPT_CHARS = 8_000
"""The newest part of a long session is shown; older parts were compacted into its
summary and reached the processor already."""
CONTENT_CHARS = 300
DISTIL_MAX_TOKENS = 160

Progress = Callable[[int, int], None]


class Distilled(BaseModel):
    """One sentence about the user, or empty when the session taught nothing lasting."""

    content: str = Field(default="", max_length=CONTENT_CHARS,
                         pattern=plain_text(CONTENT_CHARS, min_chars=0))
    category: FactCategory = "general"


def run(services: ConsolidationServices, provider: LLMProvider, *, progress: Progress | None = None,
        cancel: CancelToken | None = None) -> dict[str, int]:
    """Distil every eligible session; counts ``sessions``, ``distilled`` (memories written),
    ``duplicates``, ``empty`` (nothing to keep), ``too_short``, ``ungrounded`` (a sentence
    resting on the assistant's words, dropped: also recorded as nothing to keep),
    ``rejected`` (turned down by ``core.learning.quality_gate``: also nothing to keep) and
    ``failed``; ``rechecked``: earlier distilled memories invalidated by the one-time check
(``_recheck_earlier``)."""
    counts = {"sessions": 0, "distilled": 0, "duplicates": 0, "empty": 0, "too_short": 0,
              "ungrounded": 0, "rejected": 0, "failed": 0}
    counts["rechecked"] = _recheck_earlier(services)
    pending = _pending_sessions(services, counts)
    counts["sessions"] = len(pending)
    deduper = Deduplicator(services, provider)
    for done, session_id in enumerate(pending, start=1):
        check_cancel(cancel, "Distilling sessions")
        _distil_one(services, provider, deduper, session_id, counts, cancel)
        report_progress(progress, done, len(pending))
    return counts


def _pending_sessions(services: ConsolidationServices, counts: dict[str, int]) -> list[str]:
    with services.storage.read() as session:
        done = {str(entry.get("session_id")) for entry in session.scalars(
            select(AuditEntry.arguments).where(AuditEntry.action == AUDIT_ACTION))}
        exchanges = (select(Interaction.session_id, func.count().label("n"))
                     .where(Interaction.status.in_(ANSWERED))
                     .group_by(Interaction.session_id).subquery())
        rows = session.execute(
            select(ChatSession.id, func.coalesce(exchanges.c.n, 0))
            .outerjoin(exchanges, exchanges.c.session_id == ChatSession.id)
            .where(ChatSession.closed_at.is_not(None), ChatSession.source == "chat")
            .order_by(ChatSession.closed_at, ChatSession.id)).all()
    pending = [session_id for session_id, n in rows
               if session_id not in done and n >= MIN_EXCHANGES]
    counts["too_short"] = sum(1 for session_id, n in rows
                              if session_id not in done and n < MIN_EXCHANGES)
    return pending


def _distil_one(services: ConsolidationServices, provider: LLMProvider, deduper: Deduplicator,
                session_id: str, counts: dict[str, int], cancel: CancelToken | None) -> None:
    exchanges = _exchanges(services, session_id)
    messages = [Message("system", load_prompt("distil")),
                Message("user", f"<transcript>\n{_transcript(exchanges)}\n</transcript>")]
    answer = ask_or_none(provider, messages, Distilled, DISTIL_MAX_TOKENS, cancel,
                         "Distilling sessions")
    if answer is None:
        counts["failed"] += 1
        return
    content = " ".join(answer.content.split())
    taken = _rests_on_assistant(content, exchanges)
    if taken:  # the assistant's words, not the user's: nothing is learned about the user
        log.info("distil dropped a sentence resting on %d of the assistant's words",
                 len(taken))
        content = ""
        counts["ungrounded"] += 1
    if content:
        verdict = quality_gate.check(services.embedder, content,
                                     [user for user, _ in exchanges], share=0)
        if not verdict.passed:  # recorded as nothing to keep: a misbehaving model's line
            quality_gate.rejected("distilled sentence", [session_id], verdict)
            content = ""
            counts["rejected"] += 1
    decisions = []
    if content:
        candidate = CandidateMemory(content=content, source=SOURCE, session_id=session_id)
        try:
            decisions = deduper.decide([candidate], cancel=cancel)
        except DedupeUndecided:
            counts["failed"] += 1
            return
    with services.storage.write() as session:
        applied = deduper.apply(session, decisions)
        written = None
        if applied.written:
            written = session.scalars(select(Memory).where(
                Memory.source == SOURCE, Memory.session_id == session_id)
                .order_by(Memory.id.desc())).first()
            if written is not None:
                written.category = answer.category
        outcome = ("written" if applied.written else "duplicate" if decisions else "empty")
        session.add(AuditEntry(action=AUDIT_ACTION, actor="dream", arguments={
            "session_id": session_id, "memory_id": None if written is None else written.id,
            "outcome": outcome}, result_summary=content[:200]))
    counts[{"written": "distilled", "duplicate": "duplicates", "empty": "empty"}[outcome]] += 1


def _recheck_earlier(services: ConsolidationServices) -> int:
    """Once per data folder: the memories distil wrote before it checked its sentences
    (``RECHECK_ACTION`` marks it done) are checked now; one resting on the assistant's
    words is invalidated with a reason, never deleted, so the user can restore it from the
    Memories view. Returns how many were invalidated."""
    with services.storage.read() as session:
        if session.scalar(select(AuditEntry.id).where(AuditEntry.action == RECHECK_ACTION)):
            return 0
        written = session.execute(select(Memory.id, Memory.content, Memory.session_id).where(
            Memory.source == SOURCE, Memory.is_valid.is_(True),
            Memory.session_id.is_not(None))).all()
    if not written:  # nothing to check: the audit log records only a check that was made
        return 0
    wrong = [memory_id for memory_id, content, session_id in written
             if session_id is not None
             and _rests_on_assistant(content, _exchanges(services, session_id))]
    with services.storage.write() as session:
        for memory_id in wrong:
            memory = session.get(Memory, memory_id)
            if memory is not None:
                memory.is_valid = False
                memory.invalid_reason = RECHECK_REASON
        session.add(AuditEntry(action=RECHECK_ACTION, actor="dream",
                               arguments={"invalidated": wrong},
                               result_summary=f"invalidated {len(wrong)}"))
    return len(wrong)


def _rests_on_assistant(content: str, exchanges: list[tuple[str, str | None]]) -> list[str]:
    """The words of ``content`` that only the assistant used in these exchanges."""
    return Said.of([user for user, _ in exchanges],
                   [reply or "" for _, reply in exchanges]).assistant_only(content)


def _exchanges(services: ConsolidationServices, session_id: str) -> list[tuple[str, str | None]]:
    """The session's answered exchanges: (the user's message, the assistant's reply)."""
    with services.storage.read() as session:
        rows = session.execute(select(Interaction.user_message, Interaction.agent_response)
                               .where(Interaction.session_id == session_id,
                                      Interaction.status.in_(ANSWERED))
                               .order_by(Interaction.id)).all()
    return [(user, reply) for user, reply in rows]


def _transcript(exchanges: list[tuple[str, str | None]]) -> str:
    """The exchanges as text, newest kept when it is longer than the budget."""
    text = "\n".join(f"User: {user}\nAssistant: {reply}" for user, reply in exchanges)
    return text[-TRANSCRIPT_CHARS:]
