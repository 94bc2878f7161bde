"""Claims on context events (``core.consolidation.event_claims``), on both backends: a
batch another process holds under a live lease is skipped, an expired lease (its process
was killed) is taken over, releasing leaves another's claim alone."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select

from core.consolidation import event_claims
from core.learning.events import add_event
from core.storage.orm import ContextEvent, utcnow
from core.storage.port import StoragePort
from core.views.activity import EventState, queued_events


def claimed_by_another(storage: StoragePort, event_id: int, until_in: timedelta) -> None:
    with storage.write() as session:
        row = session.get(ContextEvent, event_id)
        assert row is not None
        row.claimed_by, row.claimed_until = "other-device pid 1 abcd", utcnow() + until_in


def test_live_claims_are_skipped_and_expired_ones_taken_over(storage: StoragePort) -> None:
    ids = [add_event(storage, "observation", f"event {n}", {}) for n in range(5)]
    claimed_by_another(storage, ids[0], timedelta(minutes=5))    # a live device's batch
    claimed_by_another(storage, ids[1], -timedelta(seconds=1))   # a killed device's

    assert event_claims.claim(storage, ids, 3) == ids[1:4]
    assert event_claims.claim(storage, ids, 4) == ids[1:5]  # ours again, and the last one
    with storage.read() as session:
        rows = {row.id: row for row in session.scalars(select(ContextEvent))}
    assert rows[ids[0]].claimed_by == "other-device pid 1 abcd"
    assert all(rows[i].claimed_by == event_claims.PROCESS for i in ids[1:])
    assert event_claims.claimed_elsewhere(rows[ids[0]])
    assert not event_claims.claimed_elsewhere(rows[ids[1]])

    event_claims.release(storage, ids)
    with storage.read() as session:
        rows = {row.id: row for row in session.scalars(select(ContextEvent))}
    assert rows[ids[0]].claimed_by == "other-device pid 1 abcd"  # not ours to release
    assert all(rows[i].claimed_by is None and rows[i].claimed_until is None
               for i in ids[1:])


def test_the_queue_shows_an_event_another_device_is_consolidating(storage: StoragePort) -> None:
    mine, theirs = (add_event(storage, "observation", text, {}) for text in ("a", "b"))
    claimed_by_another(storage, theirs, timedelta(minutes=5))
    event_claims.claim(storage, [mine], 1)
    states = {event.id: event.state for event in queued_events(storage, max_attempts=3)}
    assert states == {mine: EventState.PENDING, theirs: EventState.ELSEWHERE}
