"""Unfinished work whose process is gone: found at open and marked ``interrupted``.

An exchange is ``pending`` while its reply streams and a run is ``running`` while it runs.
A process killed in the middle (``hearth ask`` or ``hearth dream`` SIGKILLed, a crash, the
power) would leave them so for good, and nothing in the row can tell a dead owner from a
live one: the desktop window may be streaming a reply while a ``hearth`` command opens the
same folder.

So the process working on such a row *claims* it (``StoragePort.claims``), before the row
is committed, releasing the claim only after its final state is. A claim is something the
system drops when its process dies, however it dies, and never hands to another process
(unlike a pid): on SQLite an exclusive ``flock`` on ``running/<kind>-<id>.lock`` beside the
database file (``core.storage.file_claims``); on PostgreSQL, shared by several devices, a
session advisory lock on the server, which the server drops with the connection of a
process that died (``core.storage.postgres.locks``). At open,
``reconcile`` marks every pending exchange and running run whose claim is free (or was
never made, by an older Hearth) ``interrupted``, keeping whatever it had written (a partial
reply, finished stages), and removes claim files nobody holds.

The order makes it race-free: an owner's claim is held whenever its row can be seen as
unfinished, and the update is conditional on the row still being unfinished, so a row
finished between the check and the update is left as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.storage.orm import Interaction, Run, utcnow
from core.storage.port import RowClaim as Claim
from core.storage.port import StoragePort

__all__ = ["INTERACTION", "INTERRUPTED", "LEARNING", "RUN", "Claim", "Reconciled",
           "claim_new_row", "reconcile"]

log = logging.getLogger(__name__)

INTERACTION, RUN = "interaction", "run"
LEARNING = "learning"
"""An exchange queued for learning in a live process (``LearningPipeline``): the next
start of another process leaves it to its owner."""
INTERRUPTED = "interrupted"
REPLY_INTERRUPTED = "The reply was interrupted: the program stopped before it finished."
RUN_INTERRUPTED = "the process stopped before the run finished"


def claim_new_row(storage: StoragePort, kind: str,
                  create: Callable[[Session], int]) -> tuple[int, Claim]:
    """Insert an unfinished row (``create`` adds it in the write session and returns its
    id), claimed by this process before it is committed; the caller releases the claim
    once the row's final state is committed."""
    claims = storage.claims
    claim: Claim | None = None
    try:
        with storage.write() as session:
            row_id = create(session)
            claim = claims.hold(kind, row_id)
    except BaseException:
        if claim is not None:  # the row was never committed
            claim.release()
        raise
    return row_id, claim


@dataclass(frozen=True)
class Reconciled:
    """What ``reconcile`` marked interrupted."""

    interactions: Sequence[int]
    runs: Sequence[int]


def reconcile(storage: StoragePort) -> Reconciled:
    """Mark pending exchanges and running runs whose process is gone ``interrupted``."""
    claims = storage.claims
    with storage.read() as session:
        pending = session.scalars(select(Interaction.id).where(
            Interaction.status == "pending")).all()
        running = session.scalars(select(Run.id).where(Run.status == "running")).all()
    dead = Reconciled([i for i in pending if not claims.alive(INTERACTION, i)],
                      [r for r in running if not claims.alive(RUN, r)])
    if dead.interactions or dead.runs:
        with storage.write() as session:
            session.execute(update(Interaction).where(
                Interaction.id.in_(dead.interactions), Interaction.status == "pending")
                .values(status=INTERRUPTED, error=REPLY_INTERRUPTED))
            session.execute(update(Run).where(Run.id.in_(dead.runs), Run.status == "running")
                            .values(status=INTERRUPTED, error=RUN_INTERRUPTED,
                                    finished_at=utcnow()))
        log.info("marked interrupted (their process is gone): exchanges %s, runs %s",
                 list(dead.interactions), list(dead.runs))
    claims.sweep()
    return dead
