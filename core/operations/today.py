"""The Today view's contents in one read: overdue tasks, today's, reminders coming up,
follow-ups that are due, tasks due on a later day, undated tasks and what was done today.

Why one read: the view reloads whenever tasks, reminders or follow-ups change (from the
chat's tools or the scheduler too), and one worker call keeps its sections consistent
with each other."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from core import clock
from core.app import Hearth
from core.daily import when
from core.operations import follow_ups, reminders, tasks
from core.operations.follow_ups import FollowUp
from core.operations.reminders import ReminderItem
from core.operations.tasks import TaskItem

REMINDER_HORIZON = timedelta(hours=24)


@dataclass(frozen=True)
class Today:
    day: date
    overdue: tuple[TaskItem, ...]
    due_today: tuple[TaskItem, ...]
    reminders: tuple[ReminderItem, ...]
    follow_ups: tuple[FollowUp, ...]
    coming: tuple[TaskItem, ...]
    undated: tuple[TaskItem, ...]
    done_today: tuple[TaskItem, ...]


def load(hearth: Hearth, now: datetime | None = None) -> Today:
    """Pending reminders until the later of 24 hours from now and the end of the local day
    (a missed one included); open follow-ups due by the end of the day; tasks done today
    stay listed (struck through) so a tick can be taken back."""
    moment = now or clock.now()
    zone = when.zone()
    day = moment.astimezone(zone).date()
    end_of_day = datetime.combine(day + timedelta(days=1), time(), zone)
    horizon = max(moment + REMINDER_HORIZON, end_of_day)
    todo = tasks.list_tasks(hearth, "todo")
    done = tasks.list_tasks(hearth, "done")
    return Today(
        day=day,
        overdue=tasks.overdue(hearth, day),
        due_today=tasks.due_today(hearth, day),
        reminders=tuple(item for item in reminders.list_reminders(hearth, "pending")
                        if item.remind_at <= horizon),
        follow_ups=tuple(item for item in follow_ups.list_follow_ups(hearth, "open")
                         if item.follow_up_at is not None and item.follow_up_at <= end_of_day),
        coming=tuple(item for item in todo
                     if item.due_date is not None and item.due_date > day),
        undated=tuple(item for item in todo if item.due_date is None),
        done_today=tuple(item for item in done if item.done_at is not None
                         and item.done_at.astimezone(zone).date() == day),
    )
