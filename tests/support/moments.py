"""Moments on a fixed day a few days ahead, and moving ``core.clock`` to one: delivery
tests set reminders "at 09:00" (never in the past) and then live through that morning
without waiting for it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta, timezone

from core import clock

UTC = timezone.utc


def day(hour: int, minute: int = 0, second: int = 0, *, days: int = 0) -> datetime:
    """A moment on a fixed day three days ahead of the real one (plus ``days``), in UTC
    (the tests set reminders in UTC, so "09:00" is the same everywhere)."""
    base = (datetime.now(UTC) + timedelta(days=3 + days)).date()
    return datetime(base.year, base.month, base.day, hour, minute, second, tzinfo=UTC)


@contextmanager
def at(moment: datetime) -> Iterator[datetime]:
    """Move ``core.clock`` so that it reads ``moment`` (plus the few ms the block takes)."""
    with clock.shifted(moment - datetime.now(UTC)):
        yield moment
