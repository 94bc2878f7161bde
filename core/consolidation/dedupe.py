"""Two-phase deduplication: every memory candidate is compared with what is
already known before it is written, so memory grows by new knowledge, not by repetition.

Phase 1 is arithmetic. Each candidate is embedded (one batch for all candidates) and its
nearest valid memories in its namespace scope are found by cosine similarity:

* a neighbour at least ``dedupe_skip_similarity`` similar makes the candidate a ``SKIP``,
  without an LLM call (a near-identical restatement);
* no neighbour at least ``dedupe_candidate_similarity`` similar makes it an ``ADD``,
  without an LLM call;
* otherwise the neighbours in between (at most ``dedupe_neighbours``) are shown to the LLM
  in phase 2, which answers ADD, UPDATE (refines an existing memory: the old one is
  superseded by the new), DELETE (the old one is now wrong: it is invalidated with the
  reason, and the candidate added as the new truth) or NOOP (already known).

Both thresholds were calibrated on ``tests/data/dedupe_pairs.jsonl`` with the real
bge-small model (``benchmarks/dedupe_calibration.py``; numbers in docs/consolidation.md).

Namespace scope. A candidate is compared with memories in its own namespace, below it and
above it on its own path: ``user/health`` meets ``user/health``, ``user/health/allergies``
and ``user``, but not the sibling ``user/work``. Related namespaces hold the same kinds of
knowledge at different precision; siblings are separate areas (no cross-project
contamination).

Candidates in one batch are deduplicated against each other too, in order: an earlier
candidate that will be written is a neighbour of the later ones, and an UPDATE or DELETE
may target it (``Decision.target_index``). A memory that an earlier candidate supersedes
or invalidates is no longer a neighbour for later ones (its successor is).

A user-stated candidate (priority ``highest``) wins over an older memory: where the
answer would be SKIP or NOOP against a memory that is not itself user-stated, it becomes
an UPDATE, so the user's version is the current one (and never decays) while the old one
stays in the history, superseded.

``decide`` never writes. When the LLM cannot decide a candidate (garbage after the
repair-and-retry path) it raises ``DedupeUndecided``; when it cannot answer at all (down,
timed out: an ``LLMOutage``) that error propagates as it is. Either way nothing is lost:
the caller leaves its events unprocessed for a later retry. ``apply`` writes the
decisions in the caller's transaction and never physically deletes anything.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np
from pydantic import BaseModel, Field, create_model, field_validator, model_validator
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.config import Settings
from core.embedding.chunking import embed_documents_with_chunks
from core.storage.windows import NO_CHUNKS, ChunkVectors
from core.errors import InvalidInputError
from core.learning.schemas import plain_text
from core.llm.protocol import (
    CancelToken,
    LLMCancelled,
    LLMError,
    LLMOutage,
    LLMProvider,
    Message,
)
from core.llm.structured import CANCELLED, ask_structured
from core.knowledge.memories import MemorySpec, validated_memory
from core.llm.prompts import load_prompt
from core.storage.orm import Memory, Priority, utcnow
from core.storage.port import IndexedKind, SearchFilters

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices

log = logging.getLogger(__name__)

Action = Literal["ADD", "UPDATE", "DELETE", "NOOP", "SKIP"]
WRITES = frozenset({"ADD", "UPDATE", "DELETE"})
"""Actions that insert the candidate as a new memory."""

ANCESTOR_OVERFETCH = 4
"""Rows fetched per wanted neighbour when searching from an ancestor namespace, since the
sibling namespaces found there are dropped afterwards."""

REASON_CHARS = 200
DEDUPE_MAX_TOKENS = 200
"""A verdict is an action, a small number and a reason of at most 200 characters."""

USER_STATED = Priority.HIGHEST.value


@dataclass(frozen=True)
class CandidateMemory:
    """A memory proposed by the processor, an extraction or an import, not yet written."""

    content: str
    memory_type: str = "semantic"
    namespace: str = "user"
    priority: str = "medium"
    source: str = "consolidation"
    session_id: str | None = None
    event_id: int | None = None
    interaction_id: int | None = None

    def spec(self) -> MemorySpec:
        return MemorySpec(content=self.content, memory_type=self.memory_type,
                          namespace=self.namespace.strip().strip("/"),
                          priority=self.priority, source=self.source,
                          session_id=self.session_id, event_id=self.event_id,
                          interaction_id=self.interaction_id)


@dataclass(frozen=True)
class Decision:
    """What to do with one candidate.

    ``target_id`` is the existing memory the action concerns (for SKIP, NOOP, UPDATE,
    DELETE), or ``None``; ``target_index`` instead names an earlier decision in the same
    list when the candidate concerns another candidate of the same batch. ``vector`` is the
    candidate's embedding, so ``apply`` does not embed again.
    """

    candidate: CandidateMemory
    action: Action
    target_id: int | None
    reason: str
    similarity: float | None
    vector: np.ndarray = field(compare=False, repr=False)
    target_index: int | None = None
    windows: ChunkVectors = field(default=NO_CHUNKS, compare=False, repr=False)
    """The candidate's further windows (``core.embedding.chunking``), stored with it."""


@dataclass(frozen=True)
class DedupeCounts:
    """Decisions applied, one count each. UPDATE and DELETE also insert the candidate, so
    ``written`` is the number of new memories."""

    added: int = 0
    updated: int = 0
    invalidated: int = 0
    skipped: int = 0
    noop: int = 0

    @property
    def written(self) -> int:
        return self.added + self.updated + self.invalidated

    def __add__(self, other: DedupeCounts) -> DedupeCounts:
        return DedupeCounts(self.added + other.added, self.updated + other.updated,
                            self.invalidated + other.invalidated,
                            self.skipped + other.skipped, self.noop + other.noop)


class DedupeUndecided(LLMError):
    """The LLM gave no usable verdict for a candidate; nothing was written.

    An ``LLMError`` (hence a ``HearthError``): the caller treats it like the model being
    down and leaves the observations for a later retry.
    """

    def __init__(self, candidate: CandidateMemory, error: str) -> None:
        super().__init__(
            f"The language model could not decide whether {candidate.content[:80]!r} is new, "
            f"a change or already known ({error}).",
            "The observation stays queued and is retried on the next consolidation run; "
            "check `hearth status` if this keeps happening.")
        self.candidate = candidate
        self.error = error


# --- the verdict the LLM is asked for ------------------------------------------------------


class DedupeVerdict(BaseModel):
    """The LLM's answer; ``target`` numbers the shown memories from 1 (0: none)."""

    shown: ClassVar[int] = 0
    """How many memories were shown (set per schema by ``verdict_model``)."""

    action: Literal["ADD", "UPDATE", "DELETE", "NOOP"]
    target: int = Field(default=0, ge=0)
    reason: str = Field(min_length=1, max_length=REASON_CHARS,
                        pattern=plain_text(REASON_CHARS))

    @field_validator("action", mode="before")
    @classmethod
    def _upper(cls, value: Any) -> Any:
        """Small models write "update"; the meaning is not in doubt."""
        return value.strip().upper() if isinstance(value, str) else value

    @field_validator("reason", mode="before")
    @classmethod
    def _plain(cls, value: Any) -> Any:
        """A quote in the reason is no reason to discard the verdict (providers without a
        grammar ignore the pattern): keep the words, drop what the pattern forbids."""
        if not isinstance(value, str):
            return value
        cleaned = " ".join("".join(" " if ch in '"\\' or ord(ch) < 32 else ch
                                   for ch in value).split())
        return cleaned[:REASON_CHARS]

    @model_validator(mode="after")
    def _target_for_changes(self) -> DedupeVerdict:
        if self.action in ("UPDATE", "DELETE") and self.target == 0:
            if type(self).shown == 1:
                self.target = 1  # one memory was shown: there is only one it can mean
            else:
                raise ValueError(f"{self.action} needs target: the number of the existing "
                                 f"memory it replaces")
        return self


@cache
def verdict_model(shown: int) -> type[DedupeVerdict]:
    """The verdict schema for ``shown`` memories: ``target`` is bounded by it, so a
    grammar-constrained model cannot name a memory that was not shown."""
    model = create_model(f"DedupeVerdict{shown}", __base__=DedupeVerdict,
                         target=(int, Field(default=0, ge=0, le=shown)))
    model.shown = shown
    return model


# --- neighbours ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Neighbour:
    """A stored memory (``memory_id``) or an earlier candidate of the batch
    (``batch_index``) close to a candidate."""

    similarity: float
    content: str
    namespace: str
    priority: str
    created_at: datetime | None = None
    memory_id: int | None = None
    batch_index: int | None = None


def in_scope(namespace: str, other: str) -> bool:
    """Whether ``other`` is ``namespace``, below it or above it on its path."""
    return (other == namespace or other.startswith(namespace + "/")
            or namespace.startswith(other + "/"))


def _ancestors(namespace: str) -> list[str]:
    parts = namespace.split("/")
    return ["/".join(parts[:end]) for end in range(1, len(parts))]


# --- the deduplicator ----------------------------------------------------------------------


class Deduplicator:
    """Decides (embedding + at most one LLM call per candidate) and applies decisions."""

    def __init__(self, services: ConsolidationServices, provider: LLMProvider) -> None:
        self._services = services
        self._provider = provider

    def decide(self, candidates: Sequence[CandidateMemory], *,
               cancel: CancelToken | None = None) -> list[Decision]:
        """One decision per candidate, in order; writes nothing.

        Raises ``InvalidInputError`` for a candidate that could never be stored (before any
        LLM call), ``DedupeUndecided`` when the LLM gives no usable verdict, the provider's
        ``LLMOutage`` when it cannot answer at all, and ``LLMCancelled`` when ``cancel`` is
        set.
        """
        if not candidates:
            return []
        for candidate in candidates:
            _check(candidate)
        embedder = self._services.embedder
        self._services.storage.search.ensure_dimensions(embedder.dimensions)
        embedded = embed_documents_with_chunks(
            embedder, [candidate.spec().content.strip() for candidate in candidates])
        vectors = embedded.vectors
        with self._services.storage.read() as session:
            stored = [self._stored_neighbours(session, candidate.spec().namespace, vector)
                      for candidate, vector in zip(candidates, vectors, strict=True)]
        decisions: list[Decision] = []
        retired: set[tuple[str, int | None]] = set()  # ("memory", id) or ("batch", index)
        for index, candidate in enumerate(candidates):
            neighbours = [n for n in stored[index] + self._batch_neighbours(
                              decisions, candidate, vectors[index])
                          if _key(n) not in retired]
            neighbours.sort(key=lambda n: -n.similarity)
            decision = self._decide_one(candidate, vectors[index],
                                        neighbours[:self._settings.dedupe_neighbours], cancel)
            if decision.action in ("UPDATE", "DELETE"):
                retired.add(("memory", decision.target_id) if decision.target_index is None
                            else ("batch", decision.target_index))
            decisions.append(replace(decision, windows=embedded.chunks[index]))
        return decisions

    def apply(self, session: Session, decisions: Sequence[Decision]) -> DedupeCounts:
        """Write ``decisions`` (the whole list ``decide`` returned, in order) in the caller's
        write transaction; nothing is physically deleted.

        A target that is no longer current (invalidated, superseded or removed since
        ``decide``) is left alone and the candidate is simply added: it is still the newest
        statement. NOOP and SKIP touch nothing (being restated is not recall: access counts
        and decay are about use).
        """
        search = self._services.storage.search
        model_id = self._services.embedder.model_id
        created: dict[int, int] = {}
        counts = {"ADD": 0, "UPDATE": 0, "DELETE": 0, "SKIP": 0, "NOOP": 0}
        for index, decision in enumerate(decisions):
            action = decision.action
            if action not in WRITES:
                counts[action] += 1
                continue
            memory = validated_memory(decision.candidate.spec())
            session.add(memory)
            session.flush()
            search.store_embeddings(session, IndexedKind.MEMORY, [memory.id],
                                    decision.vector.reshape(1, -1), model_id,
                                    chunks=[decision.windows])
            created[index] = memory.id
            if action != "ADD":
                target_id = (decision.target_id if decision.target_index is None
                             else created.get(decision.target_index))
                old = session.get(Memory, target_id) if target_id is not None else None
                if old is None or not old.is_valid or old.superseded_by is not None:
                    log.info("Dedupe target %s is no longer current; memory %d added.",
                             target_id, memory.id)
                    action = "ADD"
                elif action == "UPDATE":
                    old.superseded_by = memory.id
                    old.updated_at = utcnow()
                else:
                    old.is_valid = False
                    old.invalid_reason = (f"Contradicted by memory {memory.id}: "
                                          f"{decision.reason}")
                    old.updated_at = utcnow()
            counts[action] += 1
        session.flush()
        return DedupeCounts(added=counts["ADD"], updated=counts["UPDATE"],
                            invalidated=counts["DELETE"], skipped=counts["SKIP"],
                            noop=counts["NOOP"])

    # --- phase 1 --------------------------------------------------------------------------

    @property
    def _settings(self) -> Settings:
        return self._services.settings

    def _stored_neighbours(self, session: Session, namespace: str,
                           vector: np.ndarray) -> list[Neighbour]:
        """Valid memories in scope at least ``dedupe_candidate_similarity`` similar.

        Two searches: the namespace's own subtree (exact), and, for a nested namespace, the
        subtree of its top-level ancestor, from which only the ancestors themselves are
        kept. A large sibling subtree could crowd ancestor rows out of the second search's
        overfetch; that needs many siblings more similar than the ancestor memory, i.e.
        near-duplicates in another area, which this scope deliberately ignores anyway.
        """
        wanted = self._settings.dedupe_neighbours
        floor = self._settings.dedupe_candidate_similarity
        search = self._services.storage.search
        scores: dict[int, float] = {}
        searches = [((namespace,), wanted)]
        ancestors = _ancestors(namespace)
        if ancestors:
            searches.append(((ancestors[0],), wanted * ANCESTOR_OVERFETCH))
        for namespaces, limit in searches:
            for hit in search.vector_search(session, IndexedKind.MEMORY, vector,
                                            SearchFilters(namespaces=namespaces), limit):
                if hit.score >= floor:
                    scores[hit.id] = hit.score
        if not scores:
            return []
        rows = session.scalars(select(Memory).where(Memory.id.in_(list(scores))))
        return [Neighbour(scores[row.id], row.content, row.namespace, row.priority,
                          row.created_at, memory_id=row.id)
                for row in rows if in_scope(namespace, row.namespace)]

    def _batch_neighbours(self, earlier: Sequence[Decision], candidate: CandidateMemory,
                          vector: np.ndarray) -> list[Neighbour]:
        """Earlier candidates of this batch that will be written and are close enough."""
        namespace = candidate.spec().namespace
        floor = self._settings.dedupe_candidate_similarity
        found = []
        for index, decision in enumerate(earlier):
            other = decision.candidate.spec()
            if decision.action not in WRITES or not in_scope(namespace, other.namespace):
                continue
            similarity = float(np.dot(vector, decision.vector))
            if similarity >= floor:
                found.append(Neighbour(similarity, other.content.strip(), other.namespace,
                                       other.priority, batch_index=index))
        return found

    def _decide_one(self, candidate: CandidateMemory, vector: np.ndarray,
                    neighbours: Sequence[Neighbour], cancel: CancelToken | None) -> Decision:
        if not neighbours:
            return _decision(candidate, vector, "ADD", None, "nothing similar is known")
        nearest = neighbours[0]
        if nearest.similarity >= self._settings.dedupe_skip_similarity:
            if _user_stated_wins(candidate, nearest):
                return _decision(candidate, vector, "UPDATE", nearest,
                                 "the user stated this themselves")
            return _decision(candidate, vector, "SKIP", nearest, "near-identical to a memory")
        verdict = self._ask(candidate, neighbours, cancel)
        chosen = neighbours[verdict.target - 1] if verdict.target else None
        if verdict.action == "ADD":
            return _decision(candidate, vector, "ADD", None, verdict.reason,
                             similarity=nearest.similarity)
        target = chosen or nearest
        if verdict.action == "NOOP" and _user_stated_wins(candidate, target):
            return _decision(candidate, vector, "UPDATE", target,
                             f"the user stated this themselves; {verdict.reason}")
        return _decision(candidate, vector, verdict.action, target, verdict.reason)

    # --- phase 2 --------------------------------------------------------------------------

    def _ask(self, candidate: CandidateMemory, neighbours: Sequence[Neighbour],
             cancel: CancelToken | None) -> DedupeVerdict:
        spec = candidate.spec()
        shown = "\n".join(f"{number}. {_describe(neighbour)}"
                          for number, neighbour in enumerate(neighbours, start=1))
        messages = [
            Message("system", load_prompt("dedupe")),
            Message("user", f"<existing_memories>\n{shown}\n</existing_memories>\n"
                            f"<new_memory>({spec.namespace}, {_priority_label(spec.priority)}) "
                            f"{spec.content.strip()}</new_memory>"),
        ]
        outcome = ask_structured(self._provider, messages, verdict_model(len(neighbours)),
                                 max_tokens=DEDUPE_MAX_TOKENS, cancel=cancel)
        if outcome.error == CANCELLED:
            raise LLMCancelled("Deduplication was cancelled.",
                               "The observations stay queued for the next run.")
        if isinstance(outcome.failure, LLMOutage):
            raise outcome.failure  # the model could not answer: not the candidate's fault
        if outcome.value is None:
            raise DedupeUndecided(candidate, outcome.error or "no answer")
        return outcome.value


def _decision(candidate: CandidateMemory, vector: np.ndarray, action: Action,
              target: Neighbour | None, reason: str, *,
              similarity: float | None = None) -> Decision:
    return Decision(candidate=candidate, action=action,
                    target_id=None if target is None else target.memory_id,
                    reason=reason[:REASON_CHARS],
                    similarity=target.similarity if target is not None else similarity,
                    vector=vector,
                    target_index=None if target is None else target.batch_index)


def _key(neighbour: Neighbour) -> tuple[str, int | None]:
    if neighbour.batch_index is not None:
        return ("batch", neighbour.batch_index)
    return ("memory", neighbour.memory_id)


def _check(candidate: CandidateMemory) -> None:
    """Refuse, before any work, a candidate that could never be stored."""
    spec = candidate.spec()
    if not spec.namespace:
        raise InvalidInputError(f"The memory {candidate.content[:80]!r} has no namespace.",
                                "Give it one such as user or user/health.")
    validated_memory(spec)


def _user_stated_wins(candidate: CandidateMemory, target: Neighbour) -> bool:
    return candidate.priority == USER_STATED and target.priority != USER_STATED


def _priority_label(priority: str) -> str:
    return "stated by the user" if priority == USER_STATED else f"{priority} priority"


def _describe(neighbour: Neighbour) -> str:
    when = ("noted just now" if neighbour.created_at is None
            else f"noted {neighbour.created_at:%Y-%m-%d}")
    return (f"({neighbour.namespace}, {_priority_label(neighbour.priority)}, {when}) "
            f"{neighbour.content}")
