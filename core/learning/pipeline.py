"""Learning from the conversation, in the background, after each exchange and each chat.

The reply never waits for learning and learning can never break a reply: the conversation
hands each finished exchange to ``exchange_completed`` and returns; one worker thread does
the rest, in order, so learning writes are serialised. A failure in a job is logged and
counted (``LearningStats``), and the next job runs. Per exchange: embed it, the exclusion
gate, the explicit-fact rules (stored at once), the model's extraction, facts upserted and
recorded as context events. Per session (quiet timer, new chat, quit): summary notes and
memory candidates. Nothing about the user is learned from the assistant's words alone
(``core.learning.grounding``), and every model call gives way to the user's turn
(``core.llm.turns_first``).

Quitting does not wait (``stop``): an exchange stays ``learning_due`` until learned, and
``resume`` learns what is due at the next start. ``close_session`` is a plain function so
the scheduler can close a session without a pipeline.

See docs/learning.md ("Per exchange", "Per session", "Guarantees").
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from datetime import timedelta
from typing import Literal

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.forgetting.matching import PLACEHOLDER
from core.learning import quality_gate, waiting
from core.learning.consent import learns_from
from core.learning.events import add_event
from core.learning.exclusions import ExclusionGate
from core.learning.extraction import FactCandidate, extract_model_facts, merge, rule_facts
from core.learning.quiet_timers import MakeTimers, QuietTimerJobs, QuietTimers
from core.learning.services import LearningServices
from core.learning.session_digest import MIN_EXCHANGES, digest_session, users_own_candidates
from core.storage.liveness import LEARNING, Claim
from core.llm import CancelToken, LLMCancelled, LLMProvider
from core.llm.capability import CapabilityProfile, Job, profile_of
from core.llm.turns_first import TurnsFirst
from core.embedding.reembed import backfill_embeddings
from core.storage.affected import affected
from core.storage.orm import ChatSession, Interaction, utcnow
from core.storage.port import IndexedKind

log = logging.getLogger(__name__)

Task = Callable[[], None]
LearningState = Literal["idle", "learning", "paused"]
ProviderSource = Callable[[], LLMProvider]


@dataclass(frozen=True)
class LearningStats:
    """Counters for the status bar and `hearth ask --json`."""

    facts_created: int = 0
    facts_updated: int = 0
    facts_unchanged: int = 0
    events_created: int = 0
    dropped_by_exclusion: int = 0
    dropped_ungrounded: int = 0
    """Facts and memory candidates a model proposed that were not in the user's words."""
    summaries_written: int = 0
    sessions_closed: int = 0
    waiting_for_model: int = 0
    rejected_by_quality_gate: int = 0
    """Chat summaries too short, with a template hole or about nothing said in the chat
    (``core.learning.quality_gate``): not written."""
    """Exchanges and chats whose model work (facts beyond the rules, a summary) was left
    for a capable model (``core.learning.waiting``)."""
    failures: int = 0
    last_error: str | None = None


class LearningPipeline:
    """Background learning for one open ``Hearth``; an ``ExchangeListener``."""

    def __init__(self, services: LearningServices, provider: LLMProvider, *,
                 quiet_seconds: float | None = None,
                 timers: MakeTimers = QuietTimerJobs.in_memory,
                 turns: TurnsFirst | None = None) -> None:
        self._services = services
        self._provider = provider
        self._turns = turns or TurnsFirst()
        """Shared with the conversation: every model call here gives way to a turn."""
        self._fixed_quiet_seconds = quiet_seconds
        """Given by tests; otherwise the setting is read at each use, so a change in
        Settings applies to the next message at once."""
        self._jobs: queue.Queue[Task | None] = queue.Queue()
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._pending = 0
        self._stats = LearningStats()
        self._open: set[str] = set()  # sessions with an armed quiet timer
        self._timers_lock = threading.Lock()
        """Serialises every call into the timers, so a timer armed while ``use_timers``
        moves them cannot land on the timers being closed. Never taken under ``_lock``."""
        self._stopped = False
        self._stopping = CancelToken()
        """Set by ``stop``: the model call under way ends, and no further job runs."""
        self._claims = services.storage.claims
        self._last_fact_key: dict[str | None, str] = {}
        self._timers: QuietTimers = timers(self.quiet_time_over)
        self._worker = threading.Thread(target=self._run, name="hearth-learning", daemon=True)
        self._worker.start()

    # --- what the conversation calls ---------------------------------------------------

    def exchange_completed(self, interaction_id: int, session_id: str) -> None:
        """Queue learning from one exchange and restart the session's quiet timer."""
        self._restart_quiet_timer(session_id)
        self._queue_exchange(interaction_id, session_id)

    def session_ended(self, session_id: str) -> None:
        """"New chat" or quit: close the session now instead of after the quiet time."""
        self._cancel_quiet_timer(session_id)
        self._submit(lambda: self._close_session(session_id))

    # --- what the timers call ------------------------------------------------------------

    def quiet_time_over(self, session_id: str) -> bool:
        """A quiet timer expired: queue the session's closing. False once the pipeline is
        shut down, so that the caller (the scheduler) closes the session itself."""
        with self._lock:
            if self._stopped:
                return False
            self._open.discard(session_id)
        self._submit(lambda: self._close_session(session_id))
        return True

    def use_timers(self, timers: QuietTimers) -> None:
        """Move to ``timers`` (a scheduler's persistent ones, which may arrive after the
        first messages): armed timers move with their expiry unchanged, and the sessions
        the new timers already track (left open by an earlier run) become this pipeline's
        to close on quit."""
        with self._timers_lock:
            previous, self._timers = self._timers, timers
            moving = previous.pending()
            adopted = set(moving) | set(timers.pending())
            now = utcnow()
            for session_id, expires in moving.items():
                timers.restart(session_id, max(expires - now, timedelta(0)))
                previous.cancel(session_id)
            previous.close()
        with self._lock:
            self._open |= adopted

    # --- lifetime ------------------------------------------------------------------------

    def resume(self) -> int:
        """Take up what an earlier run left (it quit, or was killed): the exchanges still
        due that no live process has queued, in the order they were said, then the chats
        left open past their quiet time. Returns how many exchanges were queued. Call once,
        right after start."""
        quiet_since = utcnow() - self._quiet_time()
        with self._services.storage.read() as session:
            due = session.execute(
                select(Interaction.id, Interaction.session_id)
                .where(Interaction.learning_due.is_(True)).order_by(Interaction.id)).all()
            quiet = session.scalars(
                select(ChatSession.id)
                .where(ChatSession.source == "chat", ChatSession.closed_at.is_(None),
                       ChatSession.last_message_at <= quiet_since)
                .order_by(ChatSession.last_message_at)).all()
        queued = 0
        for interaction_id, session_id in due:
            if not self._claims.alive(LEARNING, interaction_id):
                self._queue_exchange(interaction_id, session_id)
                queued += 1
        for session_id in quiet:
            self._submit(partial(self._close_session, session_id))
        if queued or quiet:
            log.info("resuming learning left unfinished: %d exchanges, %d chats to close",
                     queued, len(quiet))
        self.take_up_waiting()
        return queued

    def take_up_waiting(self) -> int:
        """Queue the work a smaller model left for this one (``core.learning.waiting``),
        when this model may do it; returns how many jobs were queued."""
        profile = self.profile
        storage = self._services.storage
        facts = waiting.waiting(storage, Job.FACTS) if profile.may(Job.FACTS) else []
        chats = waiting.waiting(storage, Job.SUMMARIES) if profile.may(Job.SUMMARIES) else []
        for ref in facts:
            self._submit(partial(self._extract_waiting, int(ref)))
        for ref in chats:
            self._submit(partial(self._summarise_waiting, str(ref)))
        if facts or chats:
            log.info("a capable model takes up what waited for one: %d exchanges, %d chats",
                     len(facts), len(chats))
        return len(facts) + len(chats)

    @property
    def profile(self) -> CapabilityProfile:
        """What this pipeline's model may do (the setting is read each time)."""
        return profile_of(self._provider, self._services.settings.model_jobs)

    def drain(self, timeout: float | None = None) -> bool:
        """Wait until every queued job has run; False if ``timeout`` passed first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def shutdown(self, timeout: float | None = 60.0, *, close_sessions: bool = True) -> bool:
        """Finish the queue and stop the worker. On quit, the sessions still open are
        closed first (summarised). Without ``close_sessions`` (a one-shot ``hearth ask``,
        the desktop rebuilding its assistant) they stay open, and persistent timers stay
        armed for the scheduler or the next pipeline to act on."""
        with self._lock:
            open_sessions = sorted(self._open)
        if close_sessions:
            for session_id in open_sessions:
                self.session_ended(session_id)
        finished = self.drain(timeout)
        with self._lock:
            self._stopped = True  # from now on the timers' owner closes sessions itself
        with self._timers_lock:
            self._timers.close()  # a private scheduler stops; persistent timers stay armed
        self._jobs.put(None)
        self._worker.join(timeout=5)
        return finished

    def stop(self, timeout: float = 1.0) -> bool:
        """Stop now, for a quit that does not keep the user waiting: the model call under
        way is cancelled (at its next token), and what is still queued is left for the next
        start: its exchanges stay due in the database, and the chats stay open until their
        quiet timer (persistent timers stay armed) or the next start closes them. Returns
        whether the worker ended within ``timeout``; if not, it ends at its next safe point
        without marking anything learned."""
        with self._lock:
            self._stopped = True
        self._stopping.cancel()
        with self._timers_lock:
            self._timers.close()
        self._jobs.put(None)
        self._worker.join(timeout)
        return not self._worker.is_alive()

    @property
    def stats(self) -> LearningStats:
        with self._lock:
            return self._stats

    @property
    def state(self) -> LearningState:
        if self._services.settings.learning_paused:
            return "paused"
        with self._lock:
            return "learning" if self._pending else "idle"

    # --- the worker ----------------------------------------------------------------------

    def _submit(self, job: Task) -> None:
        with self._lock:
            self._pending += 1
        self._jobs.put(job)

    def _run(self) -> None:
        while (job := self._jobs.get()) is not None:
            try:
                job()
            except LLMCancelled:
                log.info("learning stopped by quitting; it resumes at the next start")
            except Exception as exc:  # a learning failure must never stop later learning
                log.exception("a learning job failed")
                self._count(failures=1, last_error=f"{type(exc).__name__}: {exc}")
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _count(self, last_error: str | None = None, **increments: int) -> None:
        with self._lock:
            values = {name: getattr(self._stats, name) + n for name, n in increments.items()}
            if last_error is not None:
                values["last_error"] = last_error
            self._stats = replace(self._stats, **values)

    # --- timers --------------------------------------------------------------------------

    def _restart_quiet_timer(self, session_id: str) -> None:
        with self._lock:
            self._open.add(session_id)
        with self._timers_lock:
            self._timers.restart(session_id, self._quiet_time())

    def _quiet_time(self) -> timedelta:
        """How long a chat stays open after its last message (``session_quiet_minutes``)."""
        if self._fixed_quiet_seconds is not None:
            return timedelta(seconds=self._fixed_quiet_seconds)
        return timedelta(minutes=self._services.settings.session_quiet_minutes)

    def _cancel_quiet_timer(self, session_id: str) -> None:
        with self._lock:
            self._open.discard(session_id)
        with self._timers_lock:
            self._timers.cancel(session_id)

    # --- jobs ----------------------------------------------------------------------------

    def _gate(self) -> ExclusionGate:
        return ExclusionGate(self._services.settings.exclusions)

    def _queue_exchange(self, interaction_id: int, session_id: str | None) -> None:
        claim = self._claims.hold(LEARNING, interaction_id)
        self._submit(lambda: self._learn_due(interaction_id, session_id, claim))

    def _learn_due(self, interaction_id: int, session_id: str | None, claim: Claim) -> None:
        """Learn from one exchange and mark it learned; a failure is final too (counted,
        not tried again), but an exchange cut short or not reached by quitting stays due."""
        try:
            if not self._stopping.cancelled:
                self._learn_from_exchange(interaction_id, session_id)
        finally:
            try:
                if not self._stopping.cancelled:
                    with self._services.storage.write() as session:
                        session.execute(update(Interaction)
                                        .where(Interaction.id == interaction_id)
                                        .values(learning_due=False))
            finally:
                claim.release()

    def _learn_from_exchange(self, interaction_id: int, session_id: str | None) -> None:
        """The rules' facts are stored before the model is asked anything: on the embedded
        model an extraction takes from half a minute to minutes on a busy machine (and it
        gives way to every reply: ``TurnsFirst``), and what the user stated outright must
        not wait for it, nor be lost if the model fails or the program quits meanwhile."""
        services = self._services
        backfill_embeddings(services.storage, services.embedder, kinds=[IndexedKind.INTERACTION])
        with services.storage.read() as session:
            interaction = session.get(Interaction, interaction_id)
            if not learns_from(services.settings, session, session_id):
                return
        if interaction is None:
            return
        gate = self._gate()
        if gate.blocks(interaction.user_message):
            self._count(dropped_by_exclusion=1)
            return
        stated = rule_facts(interaction.user_message, self._last_fact_key.get(session_id))
        self._store_facts(stated, gate, interaction_id, session_id)
        if not self.profile.may(Job.FACTS):  # the rules have learned what is certain
            with services.storage.write() as session:
                waiting.wait(session, Job.FACTS, interaction_id)
            self._count(waiting_for_model=1)
            return
        self._extract(interaction, stated, gate, session_id)

    def _extract(self, interaction: Interaction, stated: list[FactCandidate],
                 gate: ExclusionGate, session_id: str | None) -> None:
        """The model's facts for keys no rule set, grounded in the user's words."""
        proposed, ungrounded = self._turns.run(lambda cancel: extract_model_facts(
            self._provider, interaction.user_message, interaction.agent_response,
            cancel=cancel), self._stopping)
        if ungrounded:
            self._count(dropped_ungrounded=ungrounded)
        model_only = merge(stated, proposed)[len(stated):]  # keys no rule set
        self._store_facts(model_only, gate, interaction.id, session_id)

    def _extract_waiting(self, interaction_id: int) -> None:
        """The model extraction a smaller model left for this one. The rules ran when the
        exchange was learned from; they are read again only to know which keys are theirs
        (stored again they could undo a later change of the same fact)."""
        services = self._services
        with services.storage.read() as session:
            interaction = session.get(Interaction, interaction_id)
            learns = interaction is not None and learns_from(
                services.settings, session, interaction.session_id)
        if services.settings.learning_paused:
            return  # still waits: pausing is not a refusal of this exchange
        gate = self._gate()
        if interaction is not None and learns and not gate.blocks(interaction.user_message):
            self._extract(interaction, rule_facts(interaction.user_message), gate,
                          interaction.session_id)
        with services.storage.write() as session:
            waiting.finish(session, Job.FACTS, interaction_id)

    def _summarise_waiting(self, session_id: str) -> None:
        """The summary of a closed chat a smaller model left for this one."""
        if self._stopping.cancelled or self._services.settings.learning_paused:
            return
        counts = self._turns.run(lambda cancel: summarise_closed(
            self._services, session_id, self._provider, cancel=cancel), self._stopping)
        self._count(**counts)  # type: ignore[arg-type]  # counter names only

    def _store_facts(self, candidates: list[FactCandidate], gate: ExclusionGate,
                     interaction_id: int, session_id: str | None) -> None:
        """Store what passes the gate."""
        for candidate in candidates:
            # a value a forget replaced ("I live in [forgotten]") is excluded by the user too
            if (PLACEHOLDER in candidate.value
                    or gate.blocks(f"{candidate.key} {candidate.value}")):
                self._count(dropped_by_exclusion=1)
                continue
            self._store_fact(candidate, interaction_id, session_id)

    def _store_fact(self, candidate: FactCandidate, interaction_id: int,
                    session_id: str | None) -> None:
        """Store one fact and, when it was added or changed, its event."""
        category = candidate.category
        if candidate.is_correction:  # "no, it's X": the rule only guessed the category
            known = self._services.facts.get(candidate.key)
            category = known.category if known is not None else category
        change = self._services.facts.remember(
            candidate.key, candidate.value, category=category,
            source=candidate.source, confidence=1.0 if candidate.source == "user" else 0.7)
        self._last_fact_key[session_id] = change.key
        if change.action == "unchanged":
            self._count(facts_unchanged=1)
            return
        self._count(**{f"facts_{change.action}": 1})  # type: ignore[arg-type]  # counter names only
        add_event(self._services.storage, "fact", f"{change.key}: {change.new_value}", {
            "source": "explicit_rule" if candidate.source == "user" else "extraction",
            "rule": candidate.rule, "correction": candidate.is_correction,
            "priority": "highest" if candidate.source == "user" else "medium",
            "fact_key": change.key, "previous_value": change.old_value,
            "interaction_id": interaction_id, "session_id": session_id})
        self._count(events_created=1)

    def _close_session(self, session_id: str) -> None:
        if self._stopping.cancelled:
            return  # left open: closed by its quiet timer or at the next start
        self._last_fact_key.pop(session_id, None)
        counts = self._turns.run(lambda cancel: close_session(
            self._services, session_id, lambda: self._provider, cancel=cancel), self._stopping)
        self._count(**counts)  # type: ignore[arg-type]  # counter names only


def close_session(services: LearningServices, session_id: str, provider: ProviderSource, *,
                  cancel: CancelToken | None = None) -> dict[str, int]:
    """Close one chat session: mark it closed, write its ``Summary:`` notes and turn its
    memory candidates into context events. A no-op (all counts 0) when it is closed already
    or unknown, so a timer and "new chat" racing each other summarise once. ``provider`` is
    only called when there is something to summarise: a caller without a model at hand (the
    scheduler) builds one only then. A model that may not sum up chats
    (``core.llm.capability``) leaves the summary waiting for one that may
    (``core.learning.waiting``). Candidates that rest on the assistant's words, not the
    user's, are dropped. Returns the ``LearningStats`` increments. A digest stopped by
    ``cancel`` (Hearth quitting, or a turn it gives way to) opens the session again and
    raises ``LLMCancelled``, so the session is closed and summarised later, not closed
    unsummarised; when a new message has reopened the session meanwhile there is nothing
    left to close (its quiet timer runs again), and the counts are simply returned."""
    counts = _no_counts()
    with services.storage.write() as session:
        chat = session.get(ChatSession, session_id)
        if chat is None or chat.closed_at is not None:
            return counts
        chat.closed_at = closed_at = utcnow()
        interactions = _to_summarise(session, chat)
        learns = learns_from(services.settings, session, session_id)
    counts["sessions_closed"] = 1
    if not learns or len(interactions) < MIN_EXCHANGES:
        return counts
    model = provider()
    if not profile_of(model, services.settings.model_jobs).may(Job.SUMMARIES):
        with services.storage.write() as session:
            waiting.wait(session, Job.SUMMARIES, session_id)
        return {**counts, "waiting_for_model": 1}
    try:
        return _summarise(services, session_id, interactions, model, counts, cancel)
    except LLMCancelled:
        with services.storage.write() as session:
            reopened = affected(session.execute(
                update(ChatSession).where(ChatSession.id == session_id,
                                          ChatSession.closed_at == closed_at)
                .values(closed_at=None)))
        if not reopened:  # a new message reopened it already: the chat goes on
            return {**counts, "sessions_closed": 0}
        raise


def summarise_closed(services: LearningServices, session_id: str, provider: LLMProvider, *,
                     cancel: CancelToken | None = None) -> dict[str, int]:
    """Sum up a chat that was closed while the model could not (``close_session``), and
    mark that done. A chat reopened since waits no more: its next closing sums it up. A
    cancel leaves it waiting (``LLMCancelled``)."""
    counts = _no_counts()
    with services.storage.read() as session:
        chat = session.get(ChatSession, session_id)
        interactions = _to_summarise(session, chat) if chat is not None else []
        learns = chat is not None and learns_from(services.settings, session, session_id)
    if chat is not None and chat.closed_at is not None and learns \
            and len(interactions) >= MIN_EXCHANGES:
        counts = _summarise(services, session_id, interactions, provider, counts, cancel)
    with services.storage.write() as session:
        waiting.finish(session, Job.SUMMARIES, session_id)
    return counts


def _no_counts() -> dict[str, int]:
    return {"sessions_closed": 0, "summaries_written": 0, "events_created": 0,
            "dropped_by_exclusion": 0, "dropped_ungrounded": 0, "waiting_for_model": 0,
            "rejected_by_quality_gate": 0}


def _to_summarise(session: Session, chat: ChatSession) -> list[Interaction]:
    """The chat's exchanges after its compaction point (the summary folded the rest)."""
    return list(session.scalars(
        select(Interaction).where(Interaction.session_id == chat.id,
                                  Interaction.id > (chat.compacted_through or 0))
        .order_by(Interaction.id)))


def _summarise(services: LearningServices, session_id: str, interactions: list[Interaction],
               provider: LLMProvider, counts: dict[str, int],
               cancel: CancelToken | None) -> dict[str, int]:
    """Write the digest of ``interactions``: the summaries that pass the exclusion list and
    the quality gate (``core.learning.quality_gate``), and the candidates that rest on the
    user's own words."""
    counts = dict(counts)
    digest = digest_session(provider, interactions, cancel=cancel)
    if digest is None:
        return counts
    gate = ExclusionGate(services.settings.exclusions)
    exchanges = [f"User: {item.user_message}\nAssistant: {item.agent_response}"
                 for item in interactions]
    for summary in digest.summaries:
        if gate.blocks(f"{summary.topic} {summary.summary}"):
            counts["dropped_by_exclusion"] += 1
            continue
        verdict = quality_gate.check(services.embedder, summary.summary, exchanges, share=0)
        if not verdict.passed:
            quality_gate.rejected("chat summary", [session_id], verdict)
            counts["rejected_by_quality_gate"] += 1
            continue
        services.notes.save_summary(summary.topic, summary.summary, session_id=session_id)
        counts["summaries_written"] += 1
    candidates = users_own_candidates(digest.candidates, interactions)
    counts["dropped_ungrounded"] += len(digest.candidates) - len(candidates)
    for candidate in candidates:
        if gate.blocks(candidate.content):
            counts["dropped_by_exclusion"] += 1
            continue
        add_event(services.storage, "memory_candidate", candidate.model_dump_json(),
                  {"source": "session_close", "session_id": session_id,
                   "priority": candidate.priority})
        counts["events_created"] += 1
    return counts
