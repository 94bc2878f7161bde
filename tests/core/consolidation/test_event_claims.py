"""Claims on context events (``core.consolidation.event_claims``), on both backends: a
batch another live process holds under a live lease is skipped; an expired lease, or a
live lease whose process is gone (its liveness claim is free), is taken over; releasing
leaves another's claim alone."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select

from core.consolidation import event_claims
from core.learning.events import add_event
from core.storage.orm import ContextEvent, utcnow
from core.storage.port import RowClaim, StoragePort
from core.views.activity import EventState, queued_events


@pytest.fixture
def alive() -> Iterator[list[RowClaim]]:
    """Liveness claims standing for another process that is still running."""
    held: list[RowClaim] = []
    yield held
    for claim in held:
        claim.release()


def claimed_by_another(storage: StoragePort, event_id: int, until_in: timedelta,
                       alive: list[RowClaim] | None = None) -> None:
    """Lease ``event_id`` to another process, alive (its liveness claim held, as its
    ``claim`` would) when ``alive`` is given."""
    with storage.write() as session:
        row = session.get(ContextEvent, event_id)
        assert row is not None
        row.claimed_by, row.claimed_until = "other-device pid 1 abcd", utcnow() + until_in
        if alive is not None:
            alive.append(storage.claims.hold(event_claims.EVENT, event_id))


def test_live_claims_are_skipped_and_expired_ones_taken_over(
        storage: StoragePort, alive: list[RowClaim]) -> None:
    ids = [add_event(storage, "observation", f"event {n}", {}) for n in range(5)]
    claimed_by_another(storage, ids[0], timedelta(minutes=5), alive)  # a live device's batch
    claimed_by_another(storage, ids[1], -timedelta(seconds=1))        # a killed device's

    assert event_claims.claim(storage, ids, 3) == ids[1:4]
    assert event_claims.claim(storage, ids, 4) == ids[1:5]  # ours again, and the last one
    with storage.read() as session:
        rows = {row.id: row for row in session.scalars(select(ContextEvent))}
    assert rows[ids[0]].claimed_by == "other-device pid 1 abcd"
    assert all(rows[i].claimed_by == event_claims.PROCESS for i in ids[1:])
    assert event_claims.claimed_elsewhere(rows[ids[0]], storage.claims)
    assert not event_claims.claimed_elsewhere(rows[ids[1]], storage.claims)

    event_claims.release(storage, ids)
    with storage.read() as session:
        rows = {row.id: row for row in session.scalars(select(ContextEvent))}
    assert rows[ids[0]].claimed_by == "other-device pid 1 abcd"  # not ours to release
    assert all(rows[i].claimed_by is None and rows[i].claimed_until is None
               for i in ids[1:])


def test_a_live_lease_of_a_process_that_is_gone_is_taken_over_at_once(
        storage: StoragePort) -> None:
    ids = [add_event(storage, "observation", f"event {n}", {}) for n in range(2)]
    claimed_by_another(storage, ids[0], timedelta(minutes=30))  # killed mid-batch
    states = {event.id: event.state for event in queued_events(storage, max_attempts=3)}
    assert states == {ids[0]: EventState.PENDING, ids[1]: EventState.PENDING}

    assert event_claims.claim(storage, ids, 5) == ids
    assert storage.claims.alive(event_claims.EVENT, ids[0])  # ours now, and we live
    event_claims.release(storage, ids)
    assert not storage.claims.alive(event_claims.EVENT, ids[0])


def test_the_queue_shows_an_event_another_device_is_consolidating(
        storage: StoragePort, alive: list[RowClaim]) -> None:
    mine, theirs = (add_event(storage, "observation", text, {}) for text in ("a", "b"))
    claimed_by_another(storage, theirs, timedelta(minutes=5), alive)
    event_claims.claim(storage, [mine], 1)
    states = {event.id: event.state for event in queued_events(storage, max_attempts=3)}
    assert states == {mine: EventState.PENDING, theirs: EventState.ELSEWHERE}
