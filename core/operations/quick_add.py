"""Quick add: one line typed in the Today view becomes a task or a reminder.

Why it lives here: the window may only reach core through ``core.operations``, and the
reading of the line must be the same one the chat's explicit requests use
(``core.daily.explicit``), so "renew passport by Friday" means the same day in both places.
A line that names no reminder is a task; a trailing "by Friday" / "tomorrow" is its due day,
and so is a plain date or time at its end, "dentist next Tuesday 3pm" being the task
"dentist" due on Tuesday at 15:00 (``time_phrases.parse_day_time``): a quick-add line is a
to-do typed on purpose, so a date at its end is its date (the chat's rules, which read any
message, ask for "by" or "due" before a day).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date, datetime, time
from zoneinfo import ZoneInfo

from core import clock
from core.app import Hearth
from core.daily import when
from core.daily.explicit import ExplicitRequest, explicit_request
from core.daily.time_phrases import parse_day_time
from core.operations import reminders, tasks
from core.operations.done import Done
from core.operations.reminders import ReminderItem
from core.operations.tasks import TaskItem

DUE_MARKER = re.compile(r"^\s*(?:due(?: by| on)?|by|on)\s+", re.I)
TASK_PREFIX = "add a task: "
"""How a bare line is put to the explicit-request reader, so its task rules find the due day."""


@dataclass(frozen=True)
class QuickAdd:
    """What a quick-add line was read as. ``kind``: "task" or "reminder"; a task may have a
    ``due_date`` (and a ``due_time`` on it), a reminder always has ``remind_at`` (aware UTC)."""

    kind: str
    title: str
    due_date: date | None
    remind_at: datetime | None
    zone: str
    due_time: time | None = None

    @property
    def hint(self) -> str:
        """The line the view shows before Enter: "Task: renew passport — due Fri 27 Nov"."""
        if self.kind == "reminder":
            assert self.remind_at is not None
            local = self.remind_at.astimezone(when.zone(self.zone))
            return f"Reminder: {self.title} — {day_words(local.date())} at {local:%H:%M}"
        at = f" at {self.due_time:%H:%M}" if self.due_time else ""
        due = f" — due {day_words(self.due_date)}{at}" if self.due_date else " — no due date"
        return f"Task: {self.title}{due}"


def day_words(day: date) -> str:
    """"Fri 27 Nov" (with the year when it is not this one)."""
    words = f"{day:%a} {day.day} {day:%b}"
    return words if day.year == when.today().year else f"{words} {day.year}"


def parse(text: str, now: datetime | None = None) -> QuickAdd | None:
    """What ``text`` asks for (None for an empty line). Never fails: a line the rules do
    not read is a task titled with the whole line."""
    line = " ".join(text.split())
    if not line:
        return None
    zone_name = when.local_zone_name()
    zone, moment = when.zone(zone_name), now or clock.now()
    found = explicit_request(line, now=moment, zone=zone)
    if found is None or found.action not in ("task.create", "reminder.create"):
        found = explicit_request(TASK_PREFIX + line, now=moment, zone=zone)
    if found is None or found.action not in ("task.create", "reminder.create"):
        return QuickAdd("task", line, None, None, zone_name)
    quick = _read(found, zone_name)
    if quick.kind != "task":
        return quick
    if quick.due_date is None:
        return _dated(quick, now=moment, zone=zone) or quick
    return _timed(quick, line, now=moment, zone=zone)


def _dated(quick: QuickAdd, *, now: datetime, zone: ZoneInfo) -> QuickAdd | None:
    """The task with the longest date or time phrase at the end of its title taken as its
    due day (and time), when one is there and not already past."""
    title = quick.title
    today = now.astimezone(zone).date()
    for start in (match.start() for match in re.finditer(r"(?<=\s)\S", title)):
        found = parse_day_time(title[start:], now=now, zone=zone)
        if found is None or found[0] < today:
            continue
        head = title[:start].rstrip(" ,;:-\u2013\u2014")
        if head:
            return replace(quick, title=head, due_date=found[0], due_time=found[1])
    return None


def _timed(quick: QuickAdd, line: str, *, now: datetime, zone: ZoneInfo) -> QuickAdd:
    """A task the rules gave a due day ("dentist on Tuesday at 15:00"), with the time of
    day the rest of the line names on that day."""
    at = line.rfind(quick.title)
    tail = DUE_MARKER.sub("", line[at + len(quick.title):] if at >= 0 else "").strip()
    found = parse_day_time(tail, now=now, zone=zone) if tail else None
    if found is None or found[0] != quick.due_date or found[1] is None:
        return quick
    return replace(quick, due_time=found[1])


def _read(found: ExplicitRequest, zone_name: str) -> QuickAdd:
    arguments = found.arguments
    if found.action == "reminder.create":
        return QuickAdd("reminder", arguments["message"], None,
                        datetime.fromisoformat(arguments["remind_at"]), zone_name)
    due = arguments.get("due_date")
    return QuickAdd("task", arguments["title"], date.fromisoformat(due) if due else None,
                    None, zone_name)


def add(hearth: Hearth, quick: QuickAdd) -> Done[TaskItem] | Done[ReminderItem]:
    """Store what ``parse`` read (a bad title or a past time raise ``InvalidInputError``)."""
    if quick.kind == "reminder":
        assert quick.remind_at is not None
        return reminders.add(hearth, quick.title, quick.remind_at, zone=quick.zone)
    return tasks.add(hearth, quick.title, due_date=quick.due_date, due_time=quick.due_time)
