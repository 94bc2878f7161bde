"""Days, times and zones as the user means them, checked once for every daily tool.

A task is due on a *local* day and a reminder fires at a *local* time in the user's zone
(``local_zone_name``: the system's, as the scheduler uses); what is stored is the ISO day
("2026-11-25"), the wall-clock time ("09:30") and, for moments, UTC. Each reader here turns
text or a value into one of those, or says in one sentence what is wrong with it.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timezone
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tzlocal import get_localzone_name

from core import clock
from core.errors import InvalidInputError

MAX_ZONE_CHARS = 64
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::\d{2})?$")


def local_zone_name() -> str:
    """The user's time zone: the system's (UTC where the system names none)."""
    return get_localzone_name() or "UTC"


def zone(name: str | None = None) -> ZoneInfo:
    """The zone ``name`` (the user's when None), or a sentence saying it is unknown."""
    name = local_zone_name() if name is None else name.strip()
    try:
        if not name or len(name) > MAX_ZONE_CHARS:
            raise ValueError(name)
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise InvalidInputError(f"{name!r} is not a time zone Hearth knows.",
                                "Use a name such as Europe/Lisbon or America/New_York.") from error


def today(zone_name: str | None = None, now: datetime | None = None) -> date:
    """The user's calendar day at ``now`` (``core.clock``'s now by default)."""
    return (now or clock.now()).astimezone(zone(zone_name)).date()


def day(value: date | str) -> date:
    """A calendar day from a ``date`` or ISO text (``YYYY-MM-DD``)."""
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(value.strip())
    except ValueError as error:
        raise InvalidInputError(f"{value!r} is not a date.",
                                "Write it as YYYY-MM-DD, for example 2026-12-24.") from error


def clock_time(value: time | str) -> time:
    """A wall-clock time (minutes) from a ``time`` or ``H:MM`` / ``HH:MM`` text."""
    if isinstance(value, time):
        return value.replace(second=0, microsecond=0, tzinfo=None)
    found = _CLOCK.match(value.strip())
    try:
        if found is None:
            raise ValueError(value)
        return time(int(found[1]), int(found[2]))
    except ValueError as error:
        raise InvalidInputError(f"{value!r} is not a time of day.",
                                "Write it as HH:MM, for example 09:30.") from error


def moment(value: datetime | str, zone_name: str | None = None) -> datetime:
    """An aware UTC moment from an aware ``datetime``, or from ISO text
    (``YYYY-MM-DDTHH:MM``) read in ``zone_name`` (the user's zone when None) unless it
    carries an offset of its own."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError as error:
            raise InvalidInputError(
                f"{value!r} is not a date and time.",
                "Write it as YYYY-MM-DDTHH:MM, for example 2026-12-24T18:30.") from error
        if value.tzinfo is None:
            value = value.replace(tzinfo=zone(zone_name))
    if value.tzinfo is None:
        raise InvalidInputError("A time without a time zone is ambiguous.",
                                "Pass an aware datetime.")
    return value.astimezone(timezone.utc)


def start_of(local_day: date, zone_name: str | None = None) -> datetime:
    """The first moment of ``local_day`` in the zone, as UTC."""
    return moment(datetime.combine(local_day, time(), zone(zone_name)))
