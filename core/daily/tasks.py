"""Tasks: things the user has to do, optionally due on a local day (and at a time).

Status is ``todo`` or ``done``; completing stamps ``done_at``, reopening clears it. A task
the user deletes is deleted (their own action on their own list). ``due_today`` and
``overdue`` take the user's local day, so "today" is never UTC's. The ``*_in`` functions do
the work inside a caller's write transaction, so a confirmed pending action applies in the
same transaction as its status change (``core.daily.pending_actions``); the service wraps each in
one of its own.
"""

from __future__ import annotations

import builtins
from datetime import date, time
from enum import Enum
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.daily import checks, when
from core.errors import InvalidInputError
from core.storage.orm import DAILY_SOURCES, TASK_STATUSES, Task, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

MAX_TITLE = 300
MAX_DETAILS = 10_000


class Keep(Enum):
    KEEP = "keep"


KEEP: Final = Keep.KEEP
"""For ``update``: leave this field as it is (None clears a due date or time)."""


def create_in(session: Session, title: str, *, details: str = "",
              due_date: date | str | None = None, due_time: time | str | None = None,
              source: str = "user") -> Task:
    task = Task(title=checks.line(title, "a task's title", MAX_TITLE),
                details=checks.body(details, "a task's details", MAX_DETAILS),
                source=checks.one_of(source, DAILY_SOURCES, "source"))
    _set_due(task, due_date, due_time)
    session.add(task)
    session.flush()
    return task


def update_in(session: Session, task_id: int, *, title: str | None = None,
              details: str | None = None, due_date: date | str | None | Keep = KEEP,
              due_time: time | str | None | Keep = KEEP) -> Task:
    task = find(session, task_id)
    if title is not None:
        task.title = checks.line(title, "a task's title", MAX_TITLE)
    if details is not None:
        task.details = checks.body(details, "a task's details", MAX_DETAILS)
    if due_date is None and due_time is KEEP:
        due_time = None  # no day, so no time on it
    _set_due(task, task.due_date if due_date is KEEP else due_date,
             task.due_time if due_time is KEEP else due_time)
    task.updated_at = utcnow()
    session.flush()
    return task


def set_status_in(session: Session, task_id: int, status: str) -> Task:
    """Mark a task done (stamping when) or to do again."""
    task = find(session, task_id)
    task.status = checks.one_of(status, TASK_STATUSES, "task status")
    task.done_at = utcnow() if status == "done" else None
    task.updated_at = utcnow()
    session.flush()
    return task


def delete_in(session: Session, task_id: int) -> Task:
    task = find(session, task_id)
    session.delete(task)
    session.flush()
    return task


def find(session: Session, task_id: int) -> Task:
    return require(session, Task, task_id, f"There is no task {task_id}.",
                   "List them with `hearth tasks list`.")


def _set_due(task: Task, due_date: date | str | None, due_time: time | str | None) -> None:
    """A due time needs a due day: "at 9" alone says nothing about which day."""
    if due_date is None and due_time is not None:
        raise InvalidInputError("A task's due time needs a due date.",
                                "Give the day too, or leave the time out.")
    task.due_date = None if due_date is None else when.day(due_date).isoformat()
    task.due_time = None if due_time is None else when.clock_time(due_time).strftime("%H:%M")


class TaskService:
    """Create, list, change and answer tasks."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def create(self, title: str, *, details: str = "", due_date: date | str | None = None,
               due_time: time | str | None = None, source: str = "user") -> Task:
        with self._storage.write() as session:
            return create_in(session, title, details=details, due_date=due_date,
                             due_time=due_time, source=source)

    def get(self, task_id: int) -> Task:
        with self._storage.read() as session:
            return find(session, task_id)

    def list(self, *, status: str | None = None, due_before: date | None = None,
             due_on: date | None = None) -> builtins.list[Task]:
        """Tasks (of ``status``; due before or on a day), soonest due first, undated last,
        then oldest first."""
        query = select(Task).order_by(Task.due_date.is_(None), Task.due_date,
                                      Task.due_time.is_(None), Task.due_time, Task.id)
        if status is not None:
            query = query.where(Task.status == checks.one_of(status, TASK_STATUSES,
                                                             "task status"))
        if due_before is not None:
            query = query.where(Task.due_date < when.day(due_before).isoformat())
        if due_on is not None:
            query = query.where(Task.due_date == when.day(due_on).isoformat())
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))

    def due_today(self, local_day: date) -> builtins.list[Task]:
        """Open tasks due on the user's ``local_day``."""
        return self.list(status="todo", due_on=local_day)

    def overdue(self, local_day: date) -> builtins.list[Task]:
        """Open tasks due before the user's ``local_day``."""
        return self.list(status="todo", due_before=local_day)

    def update(self, task_id: int, *, title: str | None = None, details: str | None = None,
               due_date: date | str | None | Keep = KEEP,
               due_time: time | str | None | Keep = KEEP) -> Task:
        with self._storage.write() as session:
            return update_in(session, task_id, title=title, details=details,
                             due_date=due_date, due_time=due_time)

    def complete(self, task_id: int) -> Task:
        with self._storage.write() as session:
            return set_status_in(session, task_id, "done")

    def reopen(self, task_id: int) -> Task:
        with self._storage.write() as session:
            return set_status_in(session, task_id, "todo")

    def delete(self, task_id: int) -> Task:
        """Delete it; returns what it was."""
        with self._storage.write() as session:
            return delete_in(session, task_id)
