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
the run stops.

A killed process never releases its claims, so a claim also dies with its process: while
it holds a batch, the process holds a liveness claim on each event (``StoragePort.claims``,
kind ``event``: a lock file beside a SQLite database, an advisory lock on a PostgreSQL
server), which the operating system or the server drops however the process dies. An
event under a live lease whose liveness claim is free was left by a killed process and is
taken up by the next run at once; before, it waited for the lease (30 minutes) and a dream
run in between reported ``done`` having skipped it. The lease stays as the backstop for a
holder whose liveness cannot be seen.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from sqlalchemy import ColumnElement, and_, false, or_, select, update

from core.storage.orm import ContextEvent, utcnow
from core.storage.port import RowClaim, RowClaims, StoragePort

EVENT = "event"
"""The kind of the liveness claims on claimed events (``StoragePort.claims``)."""

LEASE = timedelta(minutes=30)
"""How long a claim holds: a batch is one consolidation call (with repair, a few model
calls of up to ``ollama_timeout_seconds`` each) and the deduplicator's calls; far longer
than that, short enough that a killed process's events are taken up the same night."""

PROCESS = f"{socket.gethostname()[:120]} pid {os.getpid()} {uuid.uuid4().hex[:8]}"
"""This process's name on its claims: the device (host name) and the process, plus a
random part, since two devices may run processes with the same pid."""


_held: dict[int, RowClaim] = {}
"""This process's liveness claims on the events it holds, by event id."""


def _leased_elsewhere(now: datetime) -> ColumnElement[bool]:
    """Events another process claimed and whose lease has not run out."""
    return and_(ContextEvent.claimed_until.is_not(None), ContextEvent.claimed_until > now,
                ContextEvent.claimed_by != PROCESS)


def _abandoned(storage: StoragePort, now: datetime) -> list[tuple[int, str]]:
    """``(event id, holder)`` of unprocessed events leased to another process that is gone
    (its liveness claim is free)."""
    with storage.read() as session:
        leased = session.execute(select(ContextEvent.id, ContextEvent.claimed_by).where(
            ContextEvent.processed.is_(False), _leased_elsewhere(now))).all()
    claims = storage.claims
    return [(event_id, holder) for event_id, holder in leased
            if holder is not None and not claims.alive(EVENT, event_id)]


def held_elsewhere(storage: StoragePort) -> ColumnElement[bool]:
    """Events another live process is consolidating now: leased to it, and that process
    still running (an abandoned lease is free to take)."""
    now = utcnow()
    return and_(_leased_elsewhere(now), ~_any_of(_abandoned(storage, now)))


def _any_of(abandoned: Sequence[tuple[int, str]]) -> ColumnElement[bool]:
    """Matches the events of ``abandoned`` while they are still held by the same dead
    holder (one that another process took over since is its claim again)."""
    if not abandoned:
        return false()
    return or_(*(and_(ContextEvent.id == event_id, ContextEvent.claimed_by == holder)
                 for event_id, holder in abandoned))


def claim(storage: StoragePort, candidates: Sequence[int], limit: int) -> list[int]:
    """Claim up to ``limit`` of ``candidates`` (oldest first) that are still unprocessed
    and not held by another live process; returns the ids now claimed by this process.
    Each is claimed for liveness too before the lease is committed, so nobody sees the
    lease without the claim that says this process is alive."""
    if not candidates:
        return []
    live_elsewhere = held_elsewhere(storage)
    now = utcnow()
    claims = storage.claims
    new_holds: list[int] = []
    try:
        with storage.write() as session:
            rows = list(session.scalars(
                select(ContextEvent)
                .where(ContextEvent.id.in_(candidates), ContextEvent.processed.is_(False),
                       or_(ContextEvent.claimed_until.is_(None), ~live_elsewhere))
                .order_by(ContextEvent.created_at, ContextEvent.id)
                .limit(limit)
                .with_for_update(skip_locked=True)))
            for row in rows:
                row.claimed_by, row.claimed_until = PROCESS, now + LEASE
                if row.id not in _held:
                    _held[row.id] = claims.hold(EVENT, row.id)
                    new_holds.append(row.id)
            return [row.id for row in rows]
    except BaseException:
        for event_id in new_holds:  # the leases were never committed
            _held.pop(event_id).release()
        raise


def release(storage: StoragePort, ids: Sequence[int]) -> None:
    """End this process's claims on ``ids`` (those another process took since, after the
    lease ran out, stay theirs), then their liveness claims."""
    if not ids:
        return
    try:
        with storage.write() as session:
            session.execute(update(ContextEvent)
                            .where(ContextEvent.id.in_(ids), ContextEvent.claimed_by == PROCESS)
                            .values(claimed_by=None, claimed_until=None))
    finally:
        for event_id in ids:
            held = _held.pop(event_id, None)
            if held is not None:
                held.release()


def claimed_elsewhere(event: ContextEvent, claims: RowClaims) -> bool:
    """Whether another live process (another device, or another program here) is
    consolidating ``event`` now: for the Activity view and `hearth events`."""
    until = event.claimed_until
    return (until is not None and until > utcnow() and event.claimed_by != PROCESS
            and claims.alive(EVENT, event.id))
