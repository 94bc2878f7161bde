"""The moment a question is asked at ("as of"), for questions about the past.

A search asked *as of* a moment sees the memory as it was then: nothing created after the
moment is returned (memories, notes and exchanges by their ``created_at``, which for an
imported turn is when it was said, not when it was imported), and everything that depends
on "now" is computed from the moment instead of the wall clock: the recency boost, the
dates a question names ("in March" is the latest March not after it) and the windows of a
type + time question ("the notes from last week"). That is how an evaluation asks each
question at its own time with only the past visible, and how a person asks "what did I know
then?".

The moment is written as ISO 8601:

* a **date** (``2025-03-14``) means the end of that day in the user's time zone (the
  system's, which "last week" and reminders use too): everything said that day is seen;
* a **date and time** (``2025-03-14T18:30``) is read in the user's time zone, unless it
  carries an offset (``+01:00``) or ``Z``.

The moment itself is included: a row created exactly at it is seen.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

from core.daily.when import zone
from core.errors import InvalidInputError

MAX_CHARS = 40
"""The longest moment text taken (``2025-03-14T18:30:00.123456+05:30`` is 32)."""
HINT = "Write it as YYYY-MM-DD or YYYY-MM-DDTHH:MM (an offset such as +01:00 or Z may follow)."
STEP = timedelta(microseconds=1)
"""The smallest step of a stored time: what is seen ends just after the moment."""


def as_of(value: datetime | str, zone_name: str | None = None) -> datetime:
    """The moment ``value`` names, as aware UTC (see the module docstring for how text is
    read; ``zone_name`` is the user's zone when None), or a sentence saying what is wrong."""
    if isinstance(value, datetime):
        if value.tzinfo is None:
            raise InvalidInputError("An as-of time without a time zone is ambiguous.",
                                    "Pass an aware datetime.")
        return value.astimezone(timezone.utc)
    text = value.strip()
    if not text or len(text) > MAX_CHARS:
        raise InvalidInputError(f"{value[:MAX_CHARS]!r} is not a date or a date and time.",
                                HINT)
    local = zone(zone_name)
    try:
        try:
            day = date.fromisoformat(text)
        except ValueError:
            moment = datetime.fromisoformat(text)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=local)
        else:  # the last moment of that day in the user's zone
            moment = datetime.combine(day, time.max, local)
        return moment.astimezone(timezone.utc)
    except (ValueError, OverflowError) as error:
        raise InvalidInputError(f"{text!r} is not a date or a date and time Hearth can use.",
                                HINT) from error


def seen_until(moment: datetime) -> datetime:
    """The exclusive end of what a question asked at ``moment`` sees (``created_at <``
    it), so a row created at the moment itself is seen."""
    return moment + STEP if moment < datetime.max.replace(tzinfo=timezone.utc) else moment
