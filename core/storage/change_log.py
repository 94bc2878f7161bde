"""The change log: what each write transaction changed, for the processes that did not write.

A process hears of its own writes from its ``ChangeFeed`` as they commit. Another process
or device sharing the database (a ``hearth`` command, the dream's child process, a second
computer on one PostgreSQL server) learns of them here: each write transaction that touched
a domain appends one row, in the same transaction, naming the domains and the writing
feed's ``origin`` (a random token, never the data or who wrote it). A watcher reads the
rows after the last one it saw and skips its own process's (``core.storage.change_watch``).

Writers take turns (``core.storage.write_turns``), so ids grow in commit order on both
backends. The log keeps about ``KEEP`` rows: every ``PRUNE_EVERY``-th append removes those
further back. A watcher that fell further behind than that (a laptop asleep while another
device wrote) cannot know what it missed and is told everything may have changed.

The table is made by migration 0021; like the link queue it is not one of the models, so
neither export nor ``hearth migrate`` copies it.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import BigInteger, Column, Connection, Integer, MetaData, String, Table
from sqlalchemy import delete, func, insert, select
from sqlalchemy.orm import Session

from core.storage.changes import Changes, Domain

KEEP = 1_000
PRUNE_EVERY = 100
SEPARATOR = ","
KNOWN = frozenset(Domain)
"""A domain a newer Hearth logs and this one does not know is nothing this one shows."""

_TABLES = MetaData()
CHANGE_LOG = Table("change_log", _TABLES,
                   Column("id", BigInteger().with_variant(Integer, "sqlite"), primary_key=True),
                   Column("origin", String(32), nullable=False),
                   Column("domains", String(255), nullable=False))


def append(session: Session, origin: str, changes: Changes) -> None:
    """Record ``changes`` in the transaction that made them (and now and then forget the
    rows older than ``KEEP``)."""
    row_id = session.execute(insert(CHANGE_LOG).values(
        origin=origin, domains=SEPARATOR.join(sorted(changes.domains)))
        .returning(CHANGE_LOG.c.id)).scalar_one()
    if row_id % PRUNE_EVERY == 0:
        session.execute(delete(CHANGE_LOG).where(CHANGE_LOG.c.id <= row_id - KEEP))


def last_id(connection: Connection) -> int:
    """The newest row's id (0 when the log is empty): where a new watcher starts."""
    return int(connection.execute(select(func.max(CHANGE_LOG.c.id))).scalar() or 0)


@dataclass(frozen=True)
class Since:
    """What the log says happened after a watcher's last row: the newest id, and the
    domains other origins changed."""

    last: int
    changes: Changes


def since(connection: Connection, after: int, origin: str) -> Since:
    """The rows after ``after`` that ``origin`` did not write, merged. Rows pruned before
    they were read make it every domain."""
    rows = connection.execute(select(CHANGE_LOG.c.id, CHANGE_LOG.c.origin,
                                     CHANGE_LOG.c.domains)
                              .where(CHANGE_LOG.c.id > after).order_by(CHANGE_LOG.c.id)).all()
    if not rows:
        return Since(after, Changes())
    first = connection.execute(select(func.min(CHANGE_LOG.c.id))).scalar_one()
    if first > after + 1:
        return Since(rows[-1].id, Changes(frozenset(Domain)))
    domains = {Domain(name) for row in rows if row.origin != origin
               for name in row.domains.split(SEPARATOR) if name in KNOWN}
    return Since(rows[-1].id, Changes(frozenset(domains)))
