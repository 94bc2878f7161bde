"""What the link stage must redo: the ``link_changes`` queue and the ``link_state`` record.

Both tables are made by migration ``0014_link_watermark``, whose triggers append a queue row,
in the writer's own transaction, for every memory whose vector was stored or replaced, whose
validity changed, or that was deleted (and for every memory that had a ``knn`` edge to it).
So the changes are found the same way on SQLite and PostgreSQL, from any process, and never
by timestamps (an imported memory carries the date it happened, not when it arrived).

A run reads the queue once, at its start, and at its end deletes exactly the rows it read
(by ``seq``, not a range: on PostgreSQL a row with a smaller ``seq`` may commit later),
together with recording what it linked with. A change committed meanwhile stays queued for
the next night; a run that fails or is cancelled deletes nothing, so its rerun sees the same
changes (the watermark only moves after the edges are written).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import BigInteger, Column, Integer, MetaData, String, Table, Text, delete, insert
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.storage.port import batched

_TABLES = MetaData()
CHANGES = Table("link_changes", _TABLES,
                Column("seq", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
                Column("memory_id", BigInteger().with_variant(Integer, "sqlite"),
                       nullable=False))
STATE = Table("link_state", _TABLES, Column("key", String(64), primary_key=True),
              Column("value", Text, nullable=False))
LINKED = "linked"
"""``link_state`` key of the settings the last successful run linked with."""


@dataclass(frozen=True)
class Pending:
    """The queue as a run found it: the rows (to delete when done) and their memories."""

    seqs: list[int]
    memory_ids: frozenset[int]


def pending(session: Session) -> Pending:
    rows = session.execute(select(CHANGES.c.seq, CHANGES.c.memory_id)).all()
    return Pending([int(row[0]) for row in rows], frozenset(int(row[1]) for row in rows))


def linked_with(session: Session) -> dict[str, Any] | None:
    """What the last successful run recorded (None before the first)."""
    value = session.execute(select(STATE.c.value).where(STATE.c.key == LINKED)).scalar()
    return None if value is None else dict(json.loads(value))


def finish(session: Session, done: Pending, settings: dict[str, Any]) -> None:
    """Mark ``done`` linked under ``settings``: in the run's last transaction."""
    for chunk in batched(done.seqs, 1_000):
        session.execute(delete(CHANGES).where(CHANGES.c.seq.in_(chunk)))
    session.execute(delete(STATE).where(STATE.c.key == LINKED))
    session.execute(insert(STATE).values(key=LINKED, value=json.dumps(settings, sort_keys=True)))
