"""Which process consolidates which context events: a claim with a lease, taken before
the model is asked.

Several processes may consolidate at once: the window and `hearth process` on one
machine, or several devices sharing one PostgreSQL database. Without claims two of them
could both send the same batch to the model and one would find, only when writing, that
the other got there first (the processor's final guard, ``_BatchTaken``), having spent a
model call (seconds to minutes) for nothing.

So a batch is claimed first, in a short write transaction: the next pending events that
nobody else holds are selected ``FOR UPDATE SKIP LOCKED`` (a PostgreSQL row lock that
makes a concurrent claimer pass them by; SQLite has one writer at a time and compiles it
to nothing) and stamped with this process's identity (``claimed_by``) and the end of its
lease (``claimed_until``). Other processes skip an event under a live lease. The claim
ends when the batch's outcome is written (processed, failed, waiting for the model) or
the run stops; a killed process never releases its claims, so they simply expire: the
lease is longer than a slow batch (several model calls, each with the model's timeout),
and then the events are taken up again by whoever runs next.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, or_, select, update

from core.storage.orm import ContextEvent, utcnow
from core.storage.port import StoragePort

LEASE = timedelta(minutes=30)
"""How long a claim holds: a batch is one consolidation call (with repair, a few model
calls of up to ``ollama_timeout_seconds`` each) and the deduplicator's calls; far longer
than that, short enough that a killed process's events are taken up the same night."""

PROCESS = f"{socket.gethostname()[:120]} pid {os.getpid()} {uuid.uuid4().hex[:8]}"
"""This process's name on its claims: the device (host name) and the process, plus a
random part, since two devices may run processes with the same pid."""


def held_elsewhere(now: datetime) -> ColumnElement[bool]:
    """Events another process holds under a live lease."""
    return and_(ContextEvent.claimed_until.is_not(None), ContextEvent.claimed_until > now,
                ContextEvent.claimed_by != PROCESS)


def claim(storage: StoragePort, candidates: Sequence[int], limit: int) -> list[int]:
    """Claim up to ``limit`` of ``candidates`` (oldest first) that are still unprocessed
    and not held by another process; returns the ids now claimed by this process."""
    if not candidates:
        return []
    now = utcnow()
    with storage.write() as session:
        rows = list(session.scalars(
            select(ContextEvent)
            .where(ContextEvent.id.in_(candidates), ContextEvent.processed.is_(False),
                   or_(ContextEvent.claimed_until.is_(None), ~held_elsewhere(now)))
            .order_by(ContextEvent.created_at, ContextEvent.id)
            .limit(limit)
            .with_for_update(skip_locked=True)))
        for row in rows:
            row.claimed_by, row.claimed_until = PROCESS, now + LEASE
        return [row.id for row in rows]


def release(storage: StoragePort, ids: Sequence[int]) -> None:
    """End this process's claims on ``ids`` (those another process took since, after the
    lease ran out, stay theirs)."""
    if not ids:
        return
    with storage.write() as session:
        session.execute(update(ContextEvent)
                        .where(ContextEvent.id.in_(ids), ContextEvent.claimed_by == PROCESS)
                        .values(claimed_by=None, claimed_until=None))


def claimed_elsewhere(event: ContextEvent, now: datetime | None = None) -> bool:
    """Whether another process (another device, or another program here) is consolidating
    ``event`` now: for the Activity view and `hearth events`."""
    until = event.claimed_until
    return (until is not None and until > (now or utcnow())
            and event.claimed_by != PROCESS)
