"""When a phrase means: "tomorrow at 9", "on Friday", "in 20 minutes", "by the end of the month".

The explicit-request rules (``core.daily.explicit``) cut a message into what to do and when;
this module turns the "when" into a moment (``parse_when``, for a reminder) or a day
(``parse_due``, for a task's due date). Both read a whole phrase or nothing: a phrase this
grammar does not cover returns None rather than a guess. Either may return a time in the
past when the phrase names one; the caller decides what that means.

The grammar is written out here, because a free-form parser reads dates into words that
are not dates ("may", "sun"); ``dateparser`` (English only, imported on first use) does
only the calendar work on the date words it is handed. Durations under a day are real
time; days are calendar days in the user's zone. English only.

See docs/assistant.md, "Times and due dates" (every phrase read, the defaults, clock
changes).
"""

from __future__ import annotations

import calendar
import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta, timezone
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

DEFAULT_HOUR = 9
"""The hour a reminder for a day without a time fires at ("remind me on Friday to ...")."""

_PERIOD_HOURS = {"morning": 9, "afternoon": 15, "evening": 18, "night": 20}

_NUMBER_WORDS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
    "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "forty-five": 45,
    "fifty": 50, "sixty": 60, "ninety": 90, "a couple of": 2,
}
_NUMBER = r"(?:\d{1,3}|" + "|".join(
    sorted((w.replace(" ", r"\ ") for w in _NUMBER_WORDS), key=len, reverse=True)) + ")"

# Weekday and month spellings, each mapped to the full name dateparser is handed. Three-letter
# forms that are also ordinary words ("sun", "sat", "wed", "mar") are left out on purpose.
_WEEKDAYS = {
    "monday": "monday", "mon": "monday", "tuesday": "tuesday", "tue": "tuesday",
    "tues": "tuesday", "wednesday": "wednesday", "thursday": "thursday", "thu": "thursday",
    "thur": "thursday", "thurs": "thursday", "friday": "friday", "fri": "friday",
    "saturday": "saturday", "sunday": "sunday",
}
_MONTHS = {
    "january": 1, "jan": 1, "february": 2, "feb": 2, "march": 3, "april": 4, "apr": 4,
    "may": 5, "june": 6, "jun": 6, "july": 7, "jul": 7, "august": 8, "aug": 8,
    "september": 9, "sept": 9, "sep": 9, "october": 10, "oct": 10, "november": 11, "nov": 11,
    "december": 12, "dec": 12,
}


def _words(names: dict[str, Any]) -> str:
    return "(?:" + "|".join(sorted(names, key=len, reverse=True)) + ")"


_END = r"(?=$|[ ,])"
_DATE = re.compile(rf"""
    (?:on\ )?(?:
        (?P<rel>(?:the\ )?day\ after\ tomorrow|today|tomorrow|tmrw|tmr|yesterday|tonight
                |this\ (?:morning|afternoon|evening))
      | (?:(?P<mod>this\ coming|this|next|coming)\ )?(?P<wd>{_words(_WEEKDAYS)})
      | (?:the\ )?(?P<d1>\d{{1,2}})(?:st|nd|rd|th)?\ (?:of\ )?(?P<m1>{_words(_MONTHS)})
            (?:,?\ (?P<y1>\d{{4}}))?
      | (?P<m2>{_words(_MONTHS)})\ (?:the\ )?(?P<d2>\d{{1,2}})(?:st|nd|rd|th)?
            (?:,?\ (?P<y2>\d{{4}}))?
      | (?P<iso>\d{{4}}-\d{{2}}-\d{{2}})
      | in\ (?P<dn>{_NUMBER})\ (?P<du>days?|weeks?)
    ){_END}""", re.X)

_AMPM = r"(?P<ap>am|pm|a\.m\.|p\.m\.)"
_TIME = re.compile(rf"""
    (?:
        (?:at\ |@\ ?)?(?P<h1>\d{{1,2}})(?:[:.](?P<mi1>\d{{2}}))?\ ?{_AMPM}
      | (?:at\ |@\ ?)?(?P<h2>\d{{1,2}})[:.](?P<mi2>\d{{2}})
      | at\ (?P<h3>\d{{1,2}})(?:\ o'?clock)?
      | (?P<h4>\d{{1,2}})\ o'?clock
      | (?:at\ )?(?P<named>noon|midday|midnight)
      | in\ the\ (?P<period>morning|afternoon|evening)
      | at\ (?P<night>night)
    )
    (?:\ (?:in\ the\ (?P<q>morning|afternoon|evening)|at\ (?P<qn>night)))?
    {_END}""", re.X)
_BARE_PERIOD = re.compile(rf"(?P<period>morning|afternoon|evening|night){_END}")
"""After a date only: "tomorrow morning", "Friday evening"."""

_SHORT_DURATION = re.compile(rf"""
    in\ (?:
        (?P<n>{_NUMBER})\ (?P<unit>minutes?|mins?|hours?|hrs?)
      | (?P<half>half\ an\ hour)
      | (?P<n_half>an|one|\d{{1,2}})\ (?:hours?\ )?and\ a\ half(?:\ hours?)?
    )$""", re.X)
_SEPARATOR = re.compile(r",? (?:and )?")

_DUE_MARKER = re.compile(r"(?:due(?: by| on)?|by|on) ")
_DUE_SPECIAL = re.compile(r"""
    (?:the\ )?(?:
        end\ of\ (?P<month_rel>the\ |this\ |next\ )?month
      | end\ of\ (?:the\ |this\ )?week
      | (?P<weekend>(?:the|this)\ weekend)
      | (?P<next_week>next\ week)
    )$""", re.X)


@dataclass(frozen=True)
class _Clock:
    """A time of day a phrase named; ``flexible`` when written without am/pm ("at 7")."""

    hour: int
    minute: int = 0
    next_day: bool = False  # midnight: the one that ends the day
    flexible: bool = False


@dataclass(frozen=True)
class _Day:
    """A calendar day a phrase named; ``keeps_clock`` for "in 3 days" (present clock time)."""

    day: date
    keeps_clock: bool = False
    period: str | None = None  # "tonight", "this evening": today, at that part of the day


def normalise(text: str) -> str:
    """Lower case, NFKC (a no-break space becomes a space), curly apostrophes made straight,
    invisible format characters removed, runs of white space as one space."""
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
    text = "".join(c for c in text if unicodedata.category(c) != "Cf")
    return " ".join(text.lower().split())


def require_aware(now: datetime) -> None:
    """Refuse a naive ``now``: read as the machine's local time it would silently shift every
    answer by the distance between the machine's zone and the user's."""
    if now.utcoffset() is None:
        raise ValueError("now must be a timezone-aware datetime (core.clock.now() is one)")


def parse_when(text: str, *, now: datetime, zone: ZoneInfo) -> datetime | None:
    """The moment ``text`` names (aware, UTC, whole seconds), or None if it names none.

    ``now`` is an aware instant; ``zone`` is the user's. See docs/assistant.md ("Times and
    due dates") for the phrases read and the defaults; the result can lie in the past
    ("yesterday at 9").
    """
    require_aware(now)
    phrase = normalise(text).rstrip(".!")
    now = now.astimezone(timezone.utc).replace(microsecond=0)
    duration = _short_duration(phrase)
    if duration is not None:
        return now + duration
    parts = _parts(phrase, now=now, zone=zone)
    if parts is None:
        return None
    day, clock = parts
    local_now = now.astimezone(zone)
    if day is not None and day.period is not None:
        if clock is None:
            clock = _Clock(_PERIOD_HOURS[day.period])
        elif clock.flexible and day.period != "morning" and clock.hour < 12:
            clock = _Clock(clock.hour + 12, clock.minute)  # "tonight at 9": 21:00
    if clock is None:
        assert day is not None  # _parts returns at least one of the two
        if day.keeps_clock:
            return _at(day.day, local_now.time().replace(tzinfo=None), zone)
        return _at(day.day, time(DEFAULT_HOUR), zone)
    base = day.day if day else local_now.date()
    wall_clock = time(clock.hour, clock.minute)
    moment = _at(base + timedelta(days=int(clock.next_day)), wall_clock, zone)
    if day is None and moment <= now:  # a time alone: the next one, so tomorrow's
        moment = _at(base + timedelta(days=1 + int(clock.next_day)), wall_clock, zone)
    return moment


def parse_due(text: str, *, now: datetime, zone: ZoneInfo) -> date | None:
    """The day a task is due by, from "by Friday", "due tomorrow", "due April 15", "by the
    end of the month" (docs/assistant.md, "Times and due dates"), or None. May be a day in
    the past."""
    require_aware(now)
    phrase = normalise(text).rstrip(".!")
    marker = _DUE_MARKER.match(phrase)
    if marker:
        phrase = phrase[marker.end():]
    today = now.astimezone(zone).date()
    special = _DUE_SPECIAL.match(phrase)
    if special:
        return _special_due(special, today)
    parts = _parts(phrase, now=now, zone=zone)
    if parts is None or parts[0] is None:
        return None
    return parts[0].day


def parse_day_time(text: str, *, now: datetime, zone: ZoneInfo
                   ) -> tuple[date, time | None] | None:
    """The day, and the time of day if one is named, of a dated to-do: "next Tuesday 3pm"
    (Tuesday, 15:00), "on Friday" (Friday, no time), "3pm" (the next 15:00: today or
    tomorrow), "tonight" (today, 20:00). A duration ("in 2 hours") is no day: None."""
    require_aware(now)
    phrase = normalise(text).rstrip(".!")
    parts = _parts(phrase, now=now, zone=zone)
    if parts is None:
        return None
    day, clock = parts
    if clock is None and day is not None and day.period is None:
        return day.day, None
    moment = parse_when(text, now=now, zone=zone)
    if moment is None:
        return None
    local = moment.astimezone(zone)
    return local.date(), local.time().replace(second=0)


def _special_due(match: re.Match[str], today: date) -> date:
    if match["weekend"]:
        return today if today.weekday() >= 5 else today + timedelta(days=5 - today.weekday())
    if match["next_week"]:
        return today + timedelta(days=7 - today.weekday())
    if "month" in match[0]:
        year, month = today.year, today.month
        if match["month_rel"] == "next ":
            year, month = (year + 1, 1) if month == 12 else (year, month + 1)
        return date(year, month, calendar.monthrange(year, month)[1])
    return today + timedelta(days=6 - today.weekday())  # the end of the week: Sunday


def _at(day: date, clock: time, zone: ZoneInfo) -> datetime:
    """The instant a wall-clock time on a day in ``zone`` is, in UTC (fold 0: see above)."""
    return datetime.combine(day, clock, tzinfo=zone).astimezone(timezone.utc)


def _number(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBER_WORDS[word]


def _short_duration(phrase: str) -> timedelta | None:
    match = _SHORT_DURATION.match(phrase)
    if match is None:
        return None
    if match["half"]:
        return timedelta(minutes=30)
    if match["n_half"]:
        return timedelta(minutes=60 * _number(match["n_half"]) + 30)
    amount = _number(match["n"])
    if amount == 0:
        return None
    unit = match["unit"]
    return timedelta(hours=amount) if unit.startswith("h") else timedelta(minutes=amount)


def _parts(phrase: str, *, now: datetime, zone: ZoneInfo
           ) -> tuple[_Day | None, _Clock | None] | None:
    """A date and/or a time of day that together make up the whole phrase, else None."""
    day: _Day | None = None
    clock: _Clock | None = None
    position = 0
    while position < len(phrase):
        if day is not None or clock is not None:
            separator = _SEPARATOR.match(phrase, position)
            if separator is None:
                return None
            position = separator.end()
        date_match = _DATE.match(phrase, position) if day is None else None
        if date_match:
            day = _read_date(date_match, now=now, zone=zone)
            if day is None:
                return None
            position = date_match.end()
            continue
        time_match = _TIME.match(phrase, position) if clock is None else None
        if time_match is None and clock is None and day is not None:
            time_match = _BARE_PERIOD.match(phrase, position)
        if time_match is None:
            return None
        clock = _read_time(time_match)
        if clock is None:
            return None
        position = time_match.end()
    if day is None and clock is None:
        return None
    return day, clock


def _read_date(match: re.Match[str], *, now: datetime, zone: ZoneInfo) -> _Day | None:
    today = now.astimezone(zone).date()
    if match["rel"]:
        word = match["rel"]
        if word == "tonight" or word.startswith("this "):
            return _Day(today, period="night" if word == "tonight" else word[5:])
        offsets = {"yesterday": -1, "today": 0, "tomorrow": 1, "tmrw": 1, "tmr": 1}
        return _Day(today + timedelta(days=offsets.get(word, 2)))  # else the day after
    if match["dn"]:
        amount = _number(match["dn"])
        return _Day(today + timedelta(days=amount * (7 if match["du"][0] == "w" else 1)),
                    keeps_clock=True)
    if match["iso"]:
        try:
            return _Day(date.fromisoformat(match["iso"]))
        except ValueError:
            return None
    if match["wd"]:
        modifier = {"this coming": "next ", "coming": "next ", "this": "this ",
                    "next": "next "}.get(match["mod"] or "", "")
        return _via_dateparser(modifier + _WEEKDAYS[match["wd"]], today)
    month = _MONTHS[match["m1"] or match["m2"]]
    day_number = int(match["d1"] or match["d2"])
    year = match["y1"] or match["y2"]
    if year is None and (month, day_number) == (today.month, today.day):
        return _Day(today)  # dateparser would say next year; "on 25 November" today is today
    phrase = f"{day_number} {calendar.month_name[month].lower()}" + (f" {year}" if year else "")
    return _via_dateparser(phrase, today)


def _via_dateparser(phrase: str, today: date) -> _Day | None:
    """The day a weekday or month phrase names, counted from the user's ``today``.

    dateparser is asked for a calendar day only, from a naive base at noon of the user's own
    date (so no zone setting and no hour can move it across midnight); the wall clock and
    the offset are applied by ``_at``, which knows the zone's rules for that very day.
    """
    parsed = _dateparser().parse(phrase, languages=["en"], settings={
        "PREFER_DATES_FROM": "future",
        "RELATIVE_BASE": datetime.combine(today, time(12)),
        "RETURN_AS_TIMEZONE_AWARE": False,
    })
    return None if parsed is None else _Day(parsed.date())


@cache
def _dateparser() -> Any:
    """``dateparser``, imported on first use: it takes about a quarter of a second to import
    (and half a second more for its first parse), which the app's start-up should not pay."""
    import dateparser

    return dateparser


def _read_time(match: re.Match[str]) -> _Clock | None:
    groups = match.groupdict()
    if groups.get("named"):
        return _Clock(0, next_day=True) if groups["named"] == "midnight" else _Clock(12)
    if groups.get("period") or groups.get("night"):
        return _Clock(_PERIOD_HOURS[groups.get("period") or "night"])
    hour_text = groups["h1"] or groups["h2"] or groups["h3"] or groups["h4"]
    hour, minute = int(hour_text), int(groups["mi1"] or groups["mi2"] or 0)
    if minute > 59:
        return None
    ampm = groups["ap"]
    qualifier = groups["q"] or groups["qn"]
    if ampm:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if ampm.startswith("p") else 0)
    elif qualifier:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (0 if qualifier == "morning" else 12)
    elif 1 <= hour <= 6 and not hour_text.startswith("0"):
        hour += 12  # "at 3": the afternoon (docs/assistant.md, "Times and due dates")
    if hour > 23:
        return None
    flexible = not ampm and not qualifier and not hour_text.startswith("0")
    return _Clock(hour, minute, flexible=flexible)
