"""How the inspector shows times: in the user's local time zone, to the minute, and how it
sorts them (as numbers, because Qt's proxy models compare plain values, not Python objects)."""

from __future__ import annotations

from datetime import datetime

NEVER = "—"


def local_time(moment: datetime | None) -> str:
    """``2026-11-22 14:03`` in local time; a dash for no time. Stored times are UTC."""
    if moment is None:
        return NEVER
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def time_key(moment: datetime | None) -> float:
    """A sort key for a time column; no time sorts last in ascending order."""
    return moment.timestamp() if moment is not None else float("inf")
