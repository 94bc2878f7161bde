"""The memory processor: unprocessed context events become working memory,
scaffold and deduplicated long-term memories.

Observations arrive on the event bus (``core.learning.events.add_event``) from the
record_observation tool, post-exchange fact learning, session digests and imports. A run
takes the pending events oldest first, in batches; it claims each batch for itself first
(``core.consolidation.event_claims``: another process, here or on another device sharing
the database, skips it), then asks the model once
(bounded schema, repaired and validated by ``ask_structured``) for the updated scaffold,
the rewritten working memory and facts worth embedding. Those facts and the batch's
``memory_candidate`` events go through the two-phase deduplicator, and then everything is
written in ONE write transaction that also marks the batch's events processed, so a batch is
either fully consolidated or not at all.

A batch that fails on its own account (unusable output after repair, a request the model
refuses, a database error) writes nothing but its events' ``attempts``, ``last_error`` and
the model that failed them (``failed_with``), in a small transaction of its own, and the
run goes on with the next batch. A model that cannot answer at all (``LLMOutage``: Ollama
not running, the model missing or loading, a server error, a timeout) is not the events'
fault: no attempt is counted, the batch's events note what they wait for in ``last_error``,
and the run stops at once with status ``unavailable`` (the next 500 events would meet the
same dead server). An event that has failed ``event_max_attempts`` times is poisoned: it is
no longer picked up, and `hearth events --failed` shows it. It gets one automatic retry
(``auto_retried``): at the first run with another model than the one that failed it, or,
failing that, once a run gets a usable answer from the model; an event that fails again
stays poisoned until the user retries it (`hearth events --retry ID` or `--retry --all`).
Nothing is ever dropped.

Scaffold merge rule: the model is asked for the whole updated scaffold, but small models
often return only what changed, so the answer is merged into the previous version: keys it
leaves out are kept, keys it sets to ``null`` are removed, nested objects merge by the same
rule, and any other value (text, number, list) replaces the old one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
    field_validator,
)
from sqlalchemy import or_, select

from core.consolidation.services import ConsolidationServices
from core.consolidation import event_claims
from core.consolidation.dedupe import CandidateMemory, Decision, Deduplicator
from core.consolidation.runs import RunRecorder
from core.llm.token_estimates import clip
from core.errors import HearthError, InvalidInputError
from core.learning.exclusions import ExclusionGate
from core.knowledge.notes_about_you import (
    NOTES_ABOUT_YOU_MAX_CHARS,
    NOTES_ABOUT_YOU_MAX_DEPTH,
    NOTES_ABOUT_YOU_MAX_KEYS,
)
from core.knowledge.versions import newest_version
from core.learning.schemas import MemoryCandidate, plain_text
from core.llm.protocol import CancelToken, LLMCancelled, LLMOutage, LLMProvider, Message
from core.llm.repair import unwrap_stringified
from core.user_input import nesting_depth
from core.llm.structured import CANCELLED, ask_structured
from core.llm.prompts import load_prompt
from core.storage.orm import ContextEvent, NotesAboutYouVersion, WorkingMemoryVersion, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

log = logging.getLogger(__name__)

BATCH_SIZE = 20
"""Events per model call: enough to consolidate a conversation's worth at once, few enough
that a 4k-context model still sees the whole scaffold and working memory."""
CLAIM_WINDOW = 10 * BATCH_SIZE
"""Pending events looked at per claim: enough to find a batch when another process holds
the first ones, few enough for any driver's limit on parameters."""

WORKING_MEMORY_MAX_CHARS = 3500   # ~500 words: it is in every turn's system prompt
FACTS_MAX = 10
FACT_MAX_CHARS = 300
OBSERVATION_CHARS = 600           # one observation as shown to the model
PROCESSOR_MAX_TOKENS = 3500       # the bounds above at ~3.5 characters per token
ERROR_CHARS = 500                 # of last_error
IDENTITY_CHARS = 300              # of failed_with (provider · model · host)
WAITING_PREFIX = "Waiting for the model (not counted as an attempt): "

MEMORY_CANDIDATE = "memory_candidate"

Progress = Callable[[int, int], None]


class ProcessorOutput(BaseModel):
    """What the model returns for one batch (``{updated_scaffold, updated_working_memory,
    facts_to_embed}``). The scaffold is schema-free: its keys are the model's own.

    The schema marks all three fields required, so a grammar-constrained model writes each
    of them; validation still accepts an answer that leaves one out (nothing to change).
    """

    model_config = ConfigDict(json_schema_extra={
        "required": ["updated_scaffold", "updated_working_memory", "facts_to_embed"]})

    updated_scaffold: dict[str, Any] = Field(default_factory=dict,
                                             max_length=NOTES_ABOUT_YOU_MAX_KEYS)
    updated_working_memory: str = Field(
        default="", max_length=WORKING_MEMORY_MAX_CHARS,
        pattern=plain_text(WORKING_MEMORY_MAX_CHARS, min_chars=0))
    facts_to_embed: list[Annotated[str, StringConstraints(
        min_length=1, max_length=FACT_MAX_CHARS, pattern=plain_text(FACT_MAX_CHARS))]] = Field(
        default_factory=list, max_length=FACTS_MAX)

    @field_validator("updated_scaffold")
    @classmethod
    def _normalised_and_bounded(cls, scaffold: dict[str, Any]) -> dict[str, Any]:
        unwrapped: dict[str, Any] = unwrap_stringified(scaffold)
        depth = nesting_depth(unwrapped)
        if depth > NOTES_ABOUT_YOU_MAX_DEPTH:
            raise ValueError(f"the scaffold nests {depth} levels deep; use at most "
                             f"{NOTES_ABOUT_YOU_MAX_DEPTH}")
        size = len(json.dumps(unwrapped, ensure_ascii=False))
        if size > NOTES_ABOUT_YOU_MAX_CHARS:
            raise ValueError(f"the scaffold is {size} characters long; keep it under "
                             f"{NOTES_ABOUT_YOU_MAX_CHARS} by summarising values")
        return unwrapped


@dataclass
class ProcessorReport:
    """What one run did. ``memories_skipped`` counts near-identical candidates skipped
    without the model and those the model judged NOOP."""

    run_id: int
    status: str = "done"              # done, skipped (nothing pending), cancelled, unavailable
    unavailable: str = ""             # why the model could not answer (status unavailable)
    events_seen: int = 0
    processed: int = 0
    failed: int = 0
    poisoned: int = 0
    excluded: int = 0                 # events and facts dropped by the exclusion list
    memories_added: int = 0
    memories_updated: int = 0
    memories_invalidated: int = 0
    memories_skipped: int = 0
    scaffold_keys: int = 0

    def counts(self) -> dict[str, int]:
        return {key: value for key, value in asdict(self).items()
                if key not in ("run_id", "status", "unavailable")}


def merge_scaffold(previous: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The scaffold after ``update``: left-out keys kept, ``null`` removes, objects merge."""
    merged = dict(previous)
    for key, value in update.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict):
            before = merged.get(key)
            merged[key] = merge_scaffold(before if isinstance(before, dict) else {}, value)
        else:
            merged[key] = value
    return merged


@dataclass(frozen=True)
class _Event:
    """An event as the processor needs it, detached from any session."""

    id: int
    event_type: str
    content: str
    metadata: dict[str, Any]


@dataclass
class _Batch:
    events: list[_Event]
    candidates: list[CandidateMemory] = field(default_factory=list)


class _Unusable(Exception):
    """The model answered, but nothing usable (garbage after repair and one retry, or a
    refusal of the request)."""


class _BatchTaken(Exception):
    """Another run processed some of this batch's events first; nothing was written. The
    claims make this the exception (a lease that ran out while the model was answering);
    this stays the final guard."""


class _RunState:
    """One run's recorder, report and per-stage running totals (stages repeat per batch)."""

    def __init__(self, storage: StoragePort, trigger: str) -> None:
        self.recorder = RunRecorder(storage, "processor", trigger)
        self.report = ProcessorReport(run_id=self.recorder.run_id)
        self.answered = False
        """The model gave a usable answer in this run (it works: see ``_readmit``)."""
        self.poisoned: set[int] = set()
        """Events poisoned by this run, which has just seen them fail."""
        self._totals: dict[str, dict[str, int]] = {}

    @contextmanager
    def stage(self, name: str) -> Iterator[dict[str, int]]:
        """A recorded stage whose counts carry on from the previous batches' ones."""
        with self.recorder.stage(name) as counts:
            counts.update(self._totals.get(name, {}))
            counts["batches"] = counts.get("batches", 0) + 1
            yield counts
            self._totals[name] = dict(counts)


class MemoryProcessor:
    """Consolidates pending context events; ``run`` is safe to call from any trigger."""

    def __init__(self, services: ConsolidationServices, provider: LLMProvider,
                 deduplicator: Deduplicator | None = None) -> None:
        self._services = services
        self._provider = provider
        self._deduplicator = deduplicator or Deduplicator(services, provider)

    def run(self, *, trigger: str = "manual", progress: Progress | None = None,
            cancel: CancelToken | None = None) -> ProcessorReport:
        """Process every pending event, batch by batch; the run is recorded in ``runs``.

        Poisoned events get their one automatic retry here (see the module docstring):
        those another model failed join this run's work, and once this run has had a
        usable answer, those poisoned before it follow at its end."""
        state = _RunState(self._services.storage, trigger)
        report = state.report
        try:
            self._readmit(state, another_model_only=True)
            pending = self._pending_ids()
            report.events_seen = len(pending)
            report.status = self._work(pending, state, progress, cancel)
            if report.status == "done" and state.answered:
                again = self._readmit(state, another_model_only=False)
                report.events_seen += len(again)
                report.status = self._work(again, state, progress, cancel)
            if not report.events_seen:
                report.status = "skipped"
            report.scaffold_keys = len(current_notes_about_you(self._services.storage))
        except BaseException as exc:
            state.recorder.fail(f"{type(exc).__name__}: {exc}", report.counts())
            raise
        state.recorder.finish(report.counts(), status=report.status,
                              error=report.unavailable or None)
        return report

    def _work(self, ids: Sequence[int], state: _RunState, progress: Progress | None,
              cancel: CancelToken | None) -> str:
        """Consolidate ``ids`` batch by batch: ``done``, or why the run stops here
        (``cancelled``, ``unavailable``). Each batch is claimed before the model is asked
        (``core.consolidation.event_claims``): events another process claimed meanwhile
        are left to it."""
        remaining = list(ids)
        while remaining:
            if cancel is not None and cancel.cancelled:
                return "cancelled"
            window = remaining[:CLAIM_WINDOW]
            batch = event_claims.claim(self._services.storage, window, BATCH_SIZE)
            if not batch:  # all of these are another process's now, or done
                remaining = remaining[len(window):]
                continue
            taken = set(batch)
            remaining = [event_id for event_id in remaining if event_id not in taken]
            try:
                outcome = self._process(batch, state, cancel)
            finally:
                event_claims.release(self._services.storage, batch)
            if outcome != "done":
                return outcome
            if progress is not None:
                progress(len(ids) - len(remaining), len(ids))
        return "done"

    # --- one batch ------------------------------------------------------------------------

    def _process(self, ids: Sequence[int], state: _RunState,
                 cancel: CancelToken | None) -> str:
        """Consolidate one batch: ``done`` (consolidated, or failed and counted),
        ``cancelled`` or ``unavailable`` (the batch is left as it was, nothing counted)."""
        report = state.report
        batch = self._prepare(self._load(ids), report)
        if not batch.events:
            return "done"
        try:
            with state.stage("consolidate") as counts:
                outcome = ask_structured(
                    self._provider, self._messages(batch.events), ProcessorOutput,
                    max_tokens=PROCESSOR_MAX_TOKENS, cancel=cancel)
                if outcome.error == CANCELLED:
                    return "cancelled"
                if isinstance(outcome.failure, LLMOutage):
                    raise outcome.failure
                if outcome.value is None:
                    raise _Unusable(outcome.error or "no answer")
                state.answered = True
                counts["events"] = counts.get("events", 0) + len(batch.events)
                counts["model_requests"] = counts.get("model_requests", 0) + outcome.attempts
            output = outcome.value
            candidates = batch.candidates + self._fact_candidates(output.facts_to_embed, report)
            if cancel is not None and cancel.cancelled:
                return "cancelled"
            with state.stage("dedupe") as counts:
                decisions = self._deduplicator.decide(candidates, cancel=cancel)
                counts["candidates"] = counts.get("candidates", 0) + len(candidates)
            with state.stage("apply") as counts:
                self._apply(batch, output, decisions, state)
                counts["events_processed"] = counts.get("events_processed", 0) + len(
                    batch.events)
        except LLMCancelled:
            return "cancelled"  # the user's wish, not a failure: no attempt is counted
        except LLMOutage as exc:
            self._waiting(batch.events, exc, report)
            return "unavailable"
        except _BatchTaken:
            log.info("Events %s were processed by another run meanwhile; skipped.", list(ids))
        except (_Unusable, HearthError) as exc:
            self._failed(batch.events, _describe(exc), state)
        except Exception as exc:
            # A programming error: counted as an attempt so one bad event cannot block the
            # queue forever, then the run fails loudly. (Ctrl-C is not the events' fault.)
            self._failed(batch.events, f"{type(exc).__name__}: {exc}", state)
            raise
        return "done"

    def _prepare(self, events: list[_Event], report: ProcessorReport) -> _Batch:
        """Drop what the exclusion list now forbids (marked processed, never shown to the
        model) and read memory candidates; a candidate that cannot be read is poisoned at
        once, since retrying cannot fix it."""
        gate = ExclusionGate(self._services.settings.exclusions)
        batch = _Batch([])
        excluded: list[int] = []
        for event in events:
            if gate.blocks(event.content):
                excluded.append(event.id)
                continue
            if event.event_type == MEMORY_CANDIDATE:
                try:
                    candidate = MemoryCandidate.model_validate_json(event.content)
                except ValidationError as exc:
                    self._poison(event.id, f"not a valid memory candidate: "
                                           f"{exc.errors(include_url=False)[0]['msg']}")
                    report.poisoned += 1
                    continue
                batch.candidates.append(_event_candidate(event, candidate))
            batch.events.append(event)
        if excluded:
            self._mark_excluded(excluded)
            report.excluded += len(excluded)
        return batch

    def _messages(self, events: Sequence[_Event]) -> list[Message]:
        storage = self._services.storage
        observations = "\n".join(f"- [{event.event_type}] {_observation_text(event)}"
                                 for event in events)
        scaffold = json.dumps(current_notes_about_you(storage), ensure_ascii=False, indent=1)
        user = (f"<working_memory>\n{_quoted(current_working_memory(storage)) or '(empty)'}\n"
                f"</working_memory>\n\n<scaffold>\n{_quoted(scaffold)}\n</scaffold>\n\n"
                f"<observations>\n{_quoted(observations)}\n</observations>")
        return [Message("system", load_prompt("memory_processor")), Message("user", user)]

    def _fact_candidates(self, facts: Sequence[str], report: ProcessorReport
                         ) -> list[CandidateMemory]:
        gate = ExclusionGate(self._services.settings.exclusions)
        kept = []
        for fact in facts:
            if gate.blocks(fact):
                report.excluded += 1
                continue
            kept.append(CandidateMemory(content=fact.strip(), memory_type="semantic",
                                        namespace="user", priority="medium",
                                        source="processor"))
        return kept

    def _apply(self, batch: _Batch, output: ProcessorOutput, decisions: list[Decision],
               state: _RunState) -> None:
        """Everything for the batch in one transaction; the events are processed only
        when it commits."""
        ids = [event.id for event in batch.events]
        report = state.report
        with self._services.storage.write() as session:
            rows = list(session.scalars(select(ContextEvent).where(
                ContextEvent.id.in_(ids), ContextEvent.processed.is_(False))))
            if len(rows) != len(ids):
                raise _BatchTaken()
            previous = newest_version(session, NotesAboutYouVersion)
            before = previous.data if previous is not None else {}
            merged = merge_scaffold(before, output.updated_scaffold)
            if merged != before:
                session.add(NotesAboutYouVersion(data=merged, source="processor",
                                            run_id=report.run_id))
            narrative = output.updated_working_memory.strip()
            current = newest_version(session, WorkingMemoryVersion)
            if narrative and (current is None or current.content != narrative):
                session.add(WorkingMemoryVersion(content=narrative, source="processor",
                                                 run_id=report.run_id))
            counts = self._deduplicator.apply(session, decisions) if decisions else None
            now = utcnow()
            for row in rows:
                row.processed, row.processed_at, row.last_error = True, now, None
                row.claimed_by, row.claimed_until = None, None
        report.processed += len(rows)
        if counts is not None:
            report.memories_added += counts.added
            report.memories_updated += counts.updated
            report.memories_invalidated += counts.invalidated
            report.memories_skipped += counts.skipped + counts.noop

    # --- event bookkeeping -----------------------------------------------------------------

    def _pending_ids(self) -> list[int]:
        """Unprocessed events with attempts left, except those another process is
        consolidating now (its claim's lease has not run out)."""
        with self._services.storage.read() as session:
            return list(session.scalars(
                select(ContextEvent.id)
                .where(ContextEvent.processed.is_(False),
                       ContextEvent.attempts < self._services.settings.event_max_attempts,
                       or_(ContextEvent.claimed_until.is_(None),
                           ~event_claims.held_elsewhere(self._services.storage)))
                .order_by(ContextEvent.created_at, ContextEvent.id)))

    def _load(self, ids: Sequence[int]) -> list[_Event]:
        with self._services.storage.read() as session:
            rows = session.scalars(select(ContextEvent).where(
                ContextEvent.id.in_(ids), ContextEvent.processed.is_(False))
                .order_by(ContextEvent.created_at, ContextEvent.id))
            return [_Event(row.id, row.event_type, row.content, dict(row.source_metadata or {}))
                    for row in rows]

    def _failed(self, events: Sequence[_Event], error: str, state: _RunState) -> None:
        """Count a failed attempt on each event of the batch, in a transaction of its own,
        with the model that failed it (a later change of model retries a poisoned one)."""
        limit = self._services.settings.event_max_attempts
        report = state.report
        with self._services.storage.write() as session:
            rows = session.scalars(select(ContextEvent).where(
                ContextEvent.id.in_([event.id for event in events]),
                ContextEvent.processed.is_(False)))
            for row in rows:
                row.attempts += 1
                row.last_error = error[:ERROR_CHARS]
                row.failed_with = self._provider.identity[:IDENTITY_CHARS]
                report.failed += 1
                if row.attempts >= limit:
                    report.poisoned += 1
                    state.poisoned.add(row.id)
        log.warning("Consolidating %d event(s) failed; each says why (`hearth events "
                    "--failed`)", len(events))

    def _waiting(self, events: Sequence[_Event], outage: LLMOutage,
                 report: ProcessorReport) -> None:
        """The model could not answer: the batch's events say what they wait for (the
        Activity view shows it) and keep their attempts; the run reports it."""
        report.unavailable = _describe(outage)
        with self._services.storage.write() as session:
            for row in session.scalars(select(ContextEvent).where(
                    ContextEvent.id.in_([event.id for event in events]),
                    ContextEvent.processed.is_(False))):
                row.last_error = f"{WAITING_PREFIX}{report.unavailable}"[:ERROR_CHARS]
        log.warning("The model could not answer; consolidation waits for it: %s",
                    report.unavailable)

    def _readmit(self, state: _RunState, *, another_model_only: bool) -> list[int]:
        """Give poisoned events their one automatic retry (one attempt left): those failed
        by another model than this run's (or before Hearth recorded which), or with
        ``another_model_only`` False every one poisoned before this run. Returns their
        ids, oldest first."""
        limit = self._services.settings.event_max_attempts
        identity = self._provider.identity[:IDENTITY_CHARS]
        query = select(ContextEvent).where(
            ContextEvent.processed.is_(False), ContextEvent.attempts >= limit,
            ContextEvent.auto_retried.is_(False))
        if another_model_only:
            query = query.where(or_(ContextEvent.failed_with.is_(None),
                                    ContextEvent.failed_with != identity))
        with self._services.storage.write() as session:
            rows = [row for row in session.scalars(
                query.order_by(ContextEvent.created_at, ContextEvent.id))
                if row.id not in state.poisoned]
            for row in rows:
                row.attempts, row.auto_retried = limit - 1, True
        if rows:
            log.info("Poisoned events %s get their automatic retry (%s).",
                     [row.id for row in rows],
                     "another model" if another_model_only else "the model answers again")
        return [row.id for row in rows]

    def _poison(self, event_id: int, error: str) -> None:
        """Poison an event retrying cannot fix (its automatic retry counts as used)."""
        with self._services.storage.write() as session:
            row = session.get(ContextEvent, event_id)
            if row is not None:
                row.attempts = max(row.attempts + 1, self._services.settings.event_max_attempts)
                row.last_error = error[:ERROR_CHARS]
                row.auto_retried = True

    def _mark_excluded(self, ids: Sequence[int]) -> None:
        with self._services.storage.write() as session:
            now = utcnow()
            for row in session.scalars(select(ContextEvent).where(ContextEvent.id.in_(ids))):
                row.processed, row.processed_at = True, now
                row.last_error = "not consolidated: mentions a topic on the exclusion list"


# --- reading the current state (also used by `hearth events` and context injection) -------


def current_notes_about_you(storage: StoragePort) -> dict[str, Any]:
    """The newest version of the notes's data ({} before the first run)."""
    with storage.read() as session:
        newest = newest_version(session, NotesAboutYouVersion)
        return dict(newest.data) if newest is not None else {}


def current_working_memory(storage: StoragePort) -> str:
    """The newest working-memory narrative ("" before the first run)."""
    with storage.read() as session:
        newest = newest_version(session, WorkingMemoryVersion)
        return newest.content if newest is not None else ""


def list_events(storage: StoragePort, max_attempts: int, *, failed: bool = False,
                limit: int = 200) -> list[ContextEvent]:
    """Pending events (still to be tried), or with ``failed`` those that failed at least
    once and are not processed (poisoned ones included), oldest first."""
    query = select(ContextEvent).where(ContextEvent.processed.is_(False))
    if failed:
        query = query.where(ContextEvent.attempts > 0)
    else:
        query = query.where(ContextEvent.attempts < max_attempts)
    with storage.read() as session:
        return list(session.scalars(
            query.order_by(ContextEvent.created_at, ContextEvent.id).limit(limit)))


def retry_event(storage: StoragePort, event_id: int) -> ContextEvent:
    """Give a failed or poisoned event a fresh set of attempts (after fixing the cause)."""
    with storage.write() as session:
        row = require(session, ContextEvent, event_id,
                      f"Nothing numbered {event_id} is waiting to be learned.",
                      "Run `hearth events --failed` to see the failed ones.")
        if row.processed:
            raise InvalidInputError(f"Event {event_id} is already consolidated.",
                                    "Only unprocessed events can be retried.")
        _fresh(row)
        return row


def retry_failed_events(storage: StoragePort) -> int:
    """Give every failed or poisoned event a fresh set of attempts; returns how many."""
    with storage.write() as session:
        rows = list(session.scalars(select(ContextEvent).where(
            ContextEvent.processed.is_(False), ContextEvent.attempts > 0)))
        for row in rows:
            _fresh(row)
        return len(rows)


def _fresh(row: ContextEvent) -> None:
    """As if the event had never been tried (its automatic retry unused again too)."""
    row.attempts, row.last_error, row.failed_with, row.auto_retried = 0, None, None, False


# --- helpers -------------------------------------------------------------------------------


def _event_candidate(event: _Event, candidate: MemoryCandidate) -> CandidateMemory:
    metadata = event.metadata
    interaction = metadata.get("interaction_id")
    return CandidateMemory(
        content=candidate.content, memory_type=candidate.memory_type,
        namespace=candidate.namespace, priority=candidate.priority,
        source=str(metadata.get("source") or "processor")[:32],
        session_id=metadata.get("session_id") or None, event_id=event.id,
        interaction_id=interaction if isinstance(interaction, int) else None)


def _observation_text(event: _Event) -> str:
    """One line per observation; a memory candidate shows its sentence, not its JSON."""
    text = event.content
    if event.event_type == MEMORY_CANDIDATE:
        candidate = MemoryCandidate.model_validate_json(event.content)
        text = f"{candidate.content} ({candidate.memory_type}, {candidate.priority} priority)"
    return clip(" ".join(text.split()), OBSERVATION_CHARS)


def _quoted(text: str) -> str:
    """Observations are data: they cannot close the tags that frame them."""
    return text.replace("</", "<\\/")


def _describe(exc: BaseException) -> str:
    if isinstance(exc, HearthError):
        return f"{exc.message} {exc.hint}".strip()
    return str(exc)
