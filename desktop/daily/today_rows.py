"""How the Today view writes each row: the sections, and a task's, a reminder's or a
follow-up's text and "when" in the user's words ("Fri 27 Nov, 2 days late", "17:00 today").

Kept apart from the page so the wording is one small, testable piece."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from core import clock
from core.operations.follow_ups import FollowUp
from core.operations.quick_add import day_words
from core.operations.reminders import ReminderItem
from core.operations.tasks import TaskItem
from core.operations.today import Today


@dataclass(frozen=True)
class Section:
    key: str
    title: str
    collapsed: bool = False
    always: bool = False
    """Shown even when empty (with a line saying so)."""


SECTIONS = (
    Section("overdue", "Overdue"),
    Section("today", "Today", always=True),
    Section("reminders", "Reminders"),
    Section("follow_ups", "Follow-ups"),
    Section("coming", "Coming up"),
    Section("undated", "No date", collapsed=True),
    Section("done", "Done today"),
)


def section_records(today: Today) -> dict[str, tuple[Any, ...]]:
    return {"overdue": today.overdue, "today": today.due_today, "reminders": today.reminders,
            "follow_ups": today.follow_ups, "coming": today.coming,
            "undated": today.undated,
            "done": today.done_today}


def kind_of(record: Any) -> str:
    if isinstance(record, TaskItem):
        return "task"
    if isinstance(record, ReminderItem):
        return "reminder"
    return "follow_up"


def title_of(record: Any) -> str:
    if isinstance(record, TaskItem):
        return record.title
    if isinstance(record, ReminderItem):
        return record.message
    assert isinstance(record, FollowUp)
    return record.text


def details_of(record: Any) -> str:
    text = (record.details if isinstance(record, TaskItem)
            else record.context if isinstance(record, FollowUp) else "")
    return " ".join(text.split())


def when_of(record: Any, day: date) -> str:
    """The row's "when", relative to the user's ``day``."""
    if isinstance(record, TaskItem):
        return _task_when(record, day)
    moment = record.remind_at if isinstance(record, ReminderItem) else record.follow_up_at
    if moment is None:
        return ""
    past = moment <= clock.now()
    return ("since " if past else "") + moment_words(moment, day)


def moment_words(moment: datetime, day: date) -> str:
    local = moment.astimezone()
    if local.date() == day:
        return f"{local:%H:%M} today"
    if local.date() == day + timedelta(days=1):
        return f"{local:%H:%M} tomorrow"
    return f"{local:%H:%M} {day_words(local.date())}"


def _task_when(task: TaskItem, day: date) -> str:
    if task.status == "done" and task.done_at is not None:
        return f"done {task.done_at.astimezone():%H:%M}"
    at = f" {task.due_time}" if task.due_time else ""
    if task.due_date is None:
        return ""
    if task.due_date == day:
        return f"today{at}"
    late = (day - task.due_date).days
    if late > 0:
        return f"{day_words(task.due_date)}, {late} day{'s' * (late != 1)} late"
    return f"{day_words(task.due_date)}{at}"
