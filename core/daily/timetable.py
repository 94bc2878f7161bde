"""A scheduled prompt's timetable in a person's words: "Weekdays at 09:00" rather than
``0 9 * * 1-5``.

A cron expression is how the schedule is stored and run (``core.daily.scheduled_prompts``),
and ``hearth prompts`` takes one; but a line of five fields is no way to ask a person when
something should happen. The common timetables (every day, weekdays, weekends, one day a
week, one day a month, every hour) are read from and written as cron here, so the window can
offer a plain picker and name each schedule in words; anything else is a custom timetable,
shown as its cron behind "Details". Day numbers are standard cron's: 0 (and 7) is Sunday.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

Repeat = Literal["daily", "weekdays", "weekends", "weekly", "monthly", "hourly"]
REPEATS: tuple[Repeat, ...] = ("daily", "weekdays", "weekends", "weekly", "monthly", "hourly")
DAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
"""By cron's day number (0 is Sunday)."""
DAY_ABBREVIATIONS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
WEEKDAYS = frozenset({"1-5", "mon-fri"})
WEEKENDS = frozenset({"0,6", "6,0", "6,7", "7,6", "sat,sun", "sun,sat"})
NUMBER = re.compile(r"^\d{1,2}$")


@dataclass(frozen=True)
class Timetable:
    """How often (``repeat``), on which day (``day``: 0–6 for ``weekly``, Sunday first;
    1–31 for ``monthly``), and at what time (``minute`` only, for ``hourly``)."""

    repeat: Repeat
    hour: int = 9
    minute: int = 0
    day: int = 1

    @property
    def cron(self) -> str:
        """The 5-field cron expression that runs it."""
        hour = "*" if self.repeat == "hourly" else str(self.hour)
        day_of_month = str(self.day) if self.repeat == "monthly" else "*"
        day_of_week = {"weekdays": "1-5", "weekends": "0,6",
                       "weekly": str(self.day)}.get(self.repeat, "*")
        return f"{self.minute} {hour} {day_of_month} * {day_of_week}"

    @property
    def words(self) -> str:
        """"Weekdays at 09:00", "Sundays at 18:30", "The 1st of each month at 07:00"."""
        at = f"at {self.hour:02d}:{self.minute:02d}"
        if self.repeat == "hourly":
            return f"Every hour, at {self.minute} past" if self.minute else "Every hour"
        if self.repeat == "weekly":
            return f"{DAYS[self.day]}s {at}"
        if self.repeat == "monthly":
            return f"The {ordinal(self.day)} of each month {at}"
        return {"daily": "Every day", "weekdays": "Weekdays",
                "weekends": "Weekends"}[self.repeat] + f" {at}"


def ordinal(number: int) -> str:
    """1 → "1st", 22 → "22nd", 13 → "13th"."""
    if 10 <= number % 100 <= 20:
        return f"{number}th"
    return f"{number}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(number % 10, 'th')}"


def _number(field: str, low: int, high: int) -> int | None:
    if not NUMBER.match(field) or not low <= int(field) <= high:
        return None
    return int(field)


def _day_of_week(field: str) -> int | None:
    lowered = field.lower()
    if lowered in DAY_ABBREVIATIONS:
        return DAY_ABBREVIATIONS.index(lowered)
    day = _number(lowered, 0, 7)
    return None if day is None else day % 7


def read_cron(cron: str) -> Timetable | None:
    """The timetable a cron expression is, or None for one of another shape (custom)."""
    fields = cron.split()
    if len(fields) != 5 or fields[3] != "*":
        return None
    minute_field, hour_field, day_of_month, _month, day_of_week = fields
    minute = _number(minute_field, 0, 59)
    if minute is None:
        return None
    if hour_field == "*":
        hourly = day_of_month == "*" and day_of_week == "*"
        return Timetable("hourly", 0, minute) if hourly else None
    hour = _number(hour_field, 0, 23)
    if hour is None:
        return None
    if day_of_month != "*":
        date = _number(day_of_month, 1, 31)
        ok = date is not None and day_of_week == "*"
        return Timetable("monthly", hour, minute, date) if ok and date is not None else None
    lowered = day_of_week.lower()
    if lowered == "*":
        return Timetable("daily", hour, minute)
    if lowered in WEEKDAYS:
        return Timetable("weekdays", hour, minute)
    if lowered in WEEKENDS:
        return Timetable("weekends", hour, minute)
    day = _day_of_week(lowered)
    return None if day is None else Timetable("weekly", hour, minute, day)


CUSTOM = "A custom timetable"


def describe(cron: str) -> str:
    """The schedule in words; one of another shape is "A custom timetable" (its cron is
    the precise word, shown behind Details)."""
    timetable = read_cron(cron)
    return CUSTOM if timetable is None else timetable.words
