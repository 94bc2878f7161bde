"""The one clock every part of ``core`` reads: the system's, or one a test or benchmark sets.

Memory changes with time (strength, freshness, recency, "which sessions are quiet"), and the
only honest way to ask "after a year of nights, is everything still findable?" is to move
time, not to sleep. Every timestamp ``core`` writes or compares comes from ``now()``
(``core.storage.orm.utcnow`` is this function), so ``shifted(days=365)`` moves the whole
engine a year ahead in one process: imports, dreams, recall and their records alike.

The clock is process-wide by design: a half-shifted engine (the dream a year ahead, recall
today) would measure nothing real.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

_offset = timedelta(0)


def now() -> datetime:
    """The current time, timezone-aware UTC (moved by ``shifted`` while it is active)."""
    return datetime.now(timezone.utc) + _offset


@contextmanager
def shifted(delta: timedelta | None = None, *, days: float = 0.0) -> Iterator[None]:
    """Run the block with the clock moved ``delta`` (or ``days``) ahead of real time.

    Nested shifts add up; leaving the block restores the previous offset.
    """
    global _offset
    previous = _offset
    _offset = previous + (delta if delta is not None else timedelta(days=days))
    try:
        yield
    finally:
        _offset = previous
