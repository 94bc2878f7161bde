"""What consolidation is doing and has done: the event queue with each event's state, and
the history of reflection, dream, processor and decay runs with their stages.

Shared by ``hearth events`` / ``hearth runs`` and the window's Activity view, so both name
an event's state and a run's duration the same way.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from core.consolidation.event_claims import claimed_elsewhere
from core.knowledge.facts import key_words
from core.storage.orm import ContextEvent, Run
from core.storage.port import RowClaims, StoragePort

RUN_KINDS = ("reflection", "dream", "processor", "decay")
"""The kinds of run recorded today (``core.consolidation.runs.RunRecorder`` callers)."""


class EventState(str, enum.Enum):
    PENDING = "pending"      # not tried yet
    FAILING = "failing"      # failed, will be tried again
    POISONED = "poisoned"    # failed ``event_max_attempts`` times; waits for a retry
    ELSEWHERE = "elsewhere"  # being consolidated now by another process or device
    PROCESSED = "processed"


@dataclass(frozen=True)
class EventView:
    id: int
    event_type: str
    content: str
    source_metadata: dict[str, Any]
    state: EventState
    attempts: int
    last_error: str | None
    created_at: datetime
    processed_at: datetime | None

    @property
    def failed(self) -> bool:
        return self.state in (EventState.FAILING, EventState.POISONED)

    @property
    def kind_words(self) -> str:
        """What kind of thing waits, as a person says it (not "memory_candidate")."""
        return EVENT_TYPE_WORDS.get(self.event_type, key_words(self.event_type))

    @property
    def said(self) -> str:
        """What waits to be learned, in words: a fact as "sister name: Priya", a memory
        found in a chat as its text (it is queued as JSON with its type and priority)."""
        if self.event_type == "fact":
            key, colon, value = self.content.partition(": ")
            return f"{key_words(key)}{colon}{value}"
        if self.event_type == "memory_candidate":
            try:
                found = json.loads(self.content)
            except ValueError:
                return self.content
            if isinstance(found, dict) and isinstance(found.get("content"), str):
                return str(found["content"])
        return self.content


EVENT_TYPE_WORDS = {"fact": "a fact", "observation": "a note about you",
                    "memory_candidate": "something to remember"}
"""An event's type in words, for the Activity view (``hearth events`` keeps the types)."""


@dataclass(frozen=True)
class StageView:
    """One stage of a run; a stage repeated per batch has its seconds added up."""

    name: str
    status: str
    seconds: float | None
    counts: dict[str, Any]
    error: str | None
    traceback: str | None = None
    """Where a failed stage raised (``core.consolidation.runs``): for a bug report, one
    click away in the Activity view."""


@dataclass(frozen=True)
class RunView:
    id: int
    kind: str
    trigger: str
    status: str
    started_at: datetime
    finished_at: datetime | None
    seconds: float | None
    """``None`` while the run is going (or if it was killed before it could finish)."""
    counts: dict[str, Any]
    error: str | None
    stages: list[StageView]
    change_count: int = 0
    """Lines in the run's changelog (``core.consolidation.changelog``): dreams and
    reflections only."""


def event_view(event: ContextEvent, max_attempts: int, claims: RowClaims) -> EventView:
    """``event`` as the Activity view and `hearth events` show it; ``claims`` tell whether
    a process that leased it is still alive."""
    if event.processed:
        state = EventState.PROCESSED
    elif claimed_elsewhere(event, claims):
        state = EventState.ELSEWHERE
    elif event.attempts >= max_attempts:
        state = EventState.POISONED
    else:
        state = EventState.FAILING if event.attempts else EventState.PENDING
    return EventView(id=event.id, event_type=event.event_type, content=event.content,
                     source_metadata=dict(event.source_metadata or {}), state=state,
                     attempts=event.attempts, last_error=event.last_error,
                     created_at=event.created_at, processed_at=event.processed_at)


def queued_events(storage: StoragePort, max_attempts: int,
                  limit: int = 1000) -> list[EventView]:
    """Every event not yet consolidated (pending, failing and poisoned), oldest first."""
    query = (select(ContextEvent).where(ContextEvent.processed.is_(False))
             .order_by(ContextEvent.created_at, ContextEvent.id).limit(limit))
    with storage.read() as session:
        return [event_view(row, max_attempts, storage.claims)
                for row in session.scalars(query)]


def queue_size(storage: StoragePort) -> int:
    """How many events wait, beyond the ``limit`` a list shows."""
    with storage.read() as session:
        return session.execute(select(func.count()).select_from(ContextEvent).where(
            ContextEvent.processed.is_(False))).scalar_one()


def run_view(run: Run) -> RunView:
    seconds = None
    if run.finished_at is not None:
        seconds = round((run.finished_at - run.started_at).total_seconds(), 3)
    stages = [StageView(name=name, status=str(entry.get("status", "")),
                        seconds=entry.get("seconds"), counts=dict(entry.get("counts", {})),
                        error=entry.get("error"), traceback=entry.get("traceback"))
              for name, entry in (run.stages or {}).items()]
    return RunView(id=run.id, kind=run.kind, trigger=run.trigger, status=run.status,
                   started_at=run.started_at, finished_at=run.finished_at, seconds=seconds,
                   counts=dict(run.counts or {}), error=run.error, stages=stages,
                   change_count=len(run.changes or []))


def list_runs(storage: StoragePort, kind: str | None = None, limit: int = 20) -> list[RunView]:
    """Recent runs, newest first, optionally of one kind."""
    query = select(Run).order_by(Run.id.desc()).limit(limit)
    if kind:
        query = query.where(Run.kind == kind)
    with storage.read() as session:
        return [run_view(row) for row in session.scalars(query)]
