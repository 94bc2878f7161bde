"""Tasks: list, add, change, complete, reopen and delete the user's to-dos.

Wraps ``core.daily.tasks``; a task comes back as ``TaskItem``. "Today" is the user's local
day (``core.daily.when.today``) unless the view passes one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, time

from core.app import Hearth
from core.daily import when
from core.daily.tasks import KEEP, Keep
from core.daily.when import day, today, zone
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import Task

__all__ = ["KEEP", "Keep", "TaskItem", "add", "complete", "day", "delete", "due_today", "edit",
           "list_tasks", "overdue", "reopen", "today", "zone"]
"""``day``, ``today`` and ``zone`` are how a front end reads the user's "YYYY-MM-DD" and
names their local day and time zone, as the tasks do."""

TASKS = Changes.of(Domain.TASKS)


@dataclass(frozen=True)
class TaskItem:
    """One task. ``status``: "todo" or "done"; ``due_date`` a local day, ``due_time``
    "HH:MM" on it; ``source``: "user", "assistant" or "rule"."""

    id: int
    title: str
    details: str
    status: str
    due_date: date | None
    due_time: str | None
    done_at: datetime | None
    source: str
    created_at: datetime
    updated_at: datetime


def _item(row: Task) -> TaskItem:
    return TaskItem(row.id, row.title, row.details, row.status,
                    None if row.due_date is None else date.fromisoformat(row.due_date),
                    row.due_time, row.done_at, row.source, row.created_at, row.updated_at)


def list_tasks(hearth: Hearth, status: str | None = None) -> tuple[TaskItem, ...]:
    """Tasks (of ``status``), soonest due first, undated last."""
    return tuple(_item(row) for row in hearth.tasks.list(status=status))


def due_today(hearth: Hearth, local_day: date | None = None) -> tuple[TaskItem, ...]:
    return tuple(_item(row) for row in hearth.tasks.due_today(local_day or when.today()))


def overdue(hearth: Hearth, local_day: date | None = None) -> tuple[TaskItem, ...]:
    return tuple(_item(row) for row in hearth.tasks.overdue(local_day or when.today()))


def add(hearth: Hearth, title: str, *, details: str = "", due_date: date | str | None = None,
        due_time: time | str | None = None) -> Done[TaskItem]:
    return Done(_item(hearth.tasks.create(title, details=details, due_date=due_date,
                                          due_time=due_time)), TASKS)


def edit(hearth: Hearth, task_id: int, *, title: str | None = None,
         details: str | None = None, due_date: date | str | None | Keep = KEEP,
         due_time: time | str | None | Keep = KEEP) -> Done[TaskItem]:
    """Change what is given (``KEEP`` leaves a due date or time; None clears it)."""
    return Done(_item(hearth.tasks.update(task_id, title=title, details=details,
                                          due_date=due_date, due_time=due_time)), TASKS)


def complete(hearth: Hearth, task_id: int) -> Done[TaskItem]:
    return Done(_item(hearth.tasks.complete(task_id)), TASKS)


def reopen(hearth: Hearth, task_id: int) -> Done[TaskItem]:
    return Done(_item(hearth.tasks.reopen(task_id)), TASKS)


def delete(hearth: Hearth, task_id: int) -> Done[TaskItem]:
    """Delete it for good (the user's own list); returns what it was."""
    return Done(_item(hearth.tasks.delete(task_id)), TASKS)
