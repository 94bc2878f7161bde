"""How the Today view words a row's "when": relative to the user's day, never a raw date."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from core.operations.quick_add import day_words
from core.operations.reminders import ReminderItem
from core.operations.tasks import TaskItem
from desktop.daily.today_rows import when_of

DAY = date(2026, 11, 25)
MADE = datetime(2026, 11, 20, tzinfo=UTC)


def task(due: date | None, due_time: str | None = None, done_at: datetime | None = None
         ) -> TaskItem:
    return TaskItem(1, "t", "", "done" if done_at else "todo", due, due_time, done_at, "user",
                    MADE, MADE)


def test_a_task_says_today_late_or_its_day() -> None:
    assert when_of(task(DAY), DAY) == "today"
    assert when_of(task(DAY, "17:30"), DAY) == "today 17:30"
    yesterday, three_ago = DAY - timedelta(days=1), DAY - timedelta(days=3)
    assert when_of(task(yesterday), DAY) == f"{day_words(yesterday)}, 1 day late"
    assert when_of(task(three_ago), DAY) == f"{day_words(three_ago)}, 3 days late"
    assert day_words(yesterday).startswith("Tue 24 Nov")
    assert when_of(task(DAY + timedelta(days=2)), DAY) == day_words(DAY + timedelta(days=2))
    assert when_of(task(None), DAY) == ""


def test_a_done_task_says_when_and_a_missed_reminder_says_since() -> None:
    done_at = datetime(2026, 11, 25, 9, 5, tzinfo=UTC)
    assert when_of(task(DAY, done_at=done_at), DAY) == \
        f"done {done_at.astimezone():%H:%M}"
    missed = datetime(2020, 1, 2, 8, 0, tzinfo=UTC)
    reminder = ReminderItem(1, "call", missed, "UTC", "pending", None, 0, "user", MADE)
    assert when_of(reminder, DAY).startswith("since ")
