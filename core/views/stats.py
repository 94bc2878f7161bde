"""The numbers behind the Stats view: how memory grew, what the facts are about, and how
strong and fresh the memories are.

Everything is aggregated in SQL (counts per day, per category, per bin), so a database with
100k memories sends a few hundred numbers to Python, not 100k rows; numpy turns daily counts
into running totals.

Days are UTC calendar days (times are stored in UTC); a memory made late in the evening in
a western time zone counts on the next day.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

import numpy as np
from sqlalchemy import Integer, cast, func, select

from core.errors import InvalidInputError
from core.storage.orm import Memory, UserFact
from core.storage.port import StoragePort
from core.storage.sql import floor_int, greatest, least, utc_day

HISTOGRAM_BINS = 20
"""Strength and freshness are in [0, 1]: bins of 0.05."""


@dataclass(frozen=True)
class Growth:
    """Memories stored by the end of each day on which any was made (oldest first).

    ``total`` counts every stored memory, ``valid`` those still valid and not superseded
    today (so the gap between them is what consolidation retired)."""

    days: list[date]
    total: np.ndarray
    valid: np.ndarray


@dataclass(frozen=True)
class Histogram:
    """``counts[i]`` values fell in ``[edges[i], edges[i + 1])`` (the last bin includes 1)."""

    edges: np.ndarray
    counts: np.ndarray


@dataclass(frozen=True)
class Stats:
    growth: Growth
    facts_by_category: list[tuple[str, int]]
    """Most facts first."""
    strength: Histogram
    freshness: Histogram


def memory_growth(storage: StoragePort) -> Growth:
    day = utc_day(Memory.created_at)
    valid = func.sum(cast((Memory.is_valid.is_(True)) & Memory.superseded_by.is_(None),
                          Integer))
    query = select(day, func.count(), valid).group_by(day).order_by(day)
    with storage.read() as session:
        rows = session.execute(query).all()
    days = [date.fromisoformat(row[0]) for row in rows]
    total = np.cumsum(np.array([row[1] for row in rows], dtype=np.int64))
    still_valid = np.cumsum(np.array([row[2] or 0 for row in rows], dtype=np.int64))
    return Growth(days, total, still_valid)


def facts_by_category(storage: StoragePort) -> list[tuple[str, int]]:
    query = (select(UserFact.category, func.count()).group_by(UserFact.category)
             .order_by(func.count().desc(), UserFact.category))
    with storage.read() as session:
        return [(category, amount) for category, amount in session.execute(query)]


def histogram(storage: StoragePort, column: str, bins: int = HISTOGRAM_BINS) -> Histogram:
    """The distribution of ``strength`` or ``freshness`` over valid memories (the ones
    decay still works on), values clamped into [0, 1]."""
    if column not in ("strength", "freshness"):
        raise InvalidInputError(f"There is no histogram of {column!r}.",
                                "Use strength or freshness.")
    if bins < 1:
        raise InvalidInputError(f"A histogram needs at least one bin, not {bins}.",
                                "Ask for a positive number of bins.")
    value = getattr(Memory, column)
    clamped = least(greatest(value, 0.0), 1.0)
    bin_index = least(floor_int(clamped * bins), bins - 1)
    query = (select(bin_index, func.count())
             .where(Memory.is_valid.is_(True), Memory.superseded_by.is_(None))
             .group_by(bin_index))
    counts = np.zeros(bins, dtype=np.int64)
    with storage.read() as session:
        for index, amount in session.execute(query):
            counts[int(index)] = amount
    return Histogram(np.linspace(0.0, 1.0, bins + 1), counts)


def stats(storage: StoragePort, bins: int = HISTOGRAM_BINS) -> Stats:
    """Everything the Stats view plots, in one call (one background job)."""
    return Stats(growth=memory_growth(storage), facts_by_category=facts_by_category(storage),
                 strength=histogram(storage, "strength", bins),
                 freshness=histogram(storage, "freshness", bins))
