"""Habits: the rules Hearth drew about working with the user.
List them, put one in use now (promote), stop using one (demote), delete one.

Wraps ``core.knowledge.habits``; a rule comes back as ``Habit``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage import orm

HABITS = Changes.of(Domain.HABITS)


@dataclass(frozen=True)
class Habit:
    """One rule. ``status``: "active" (in every system prompt) or "candidate"."""

    id: int
    rule: str
    category: str
    recurrence_count: int
    status: str
    first_seen: datetime
    last_seen: datetime


def _habit(row: orm.Habit) -> Habit:
    return Habit(row.id, row.rule, row.category, row.recurrence_count, row.status,
                 row.first_seen, row.last_seen)


def list_habits(hearth: Hearth, status: str | None = None) -> tuple[Habit, ...]:
    """Every habit (of ``status``, if given), by id."""
    return tuple(_habit(row) for row in hearth.habits.list(status))


def promote(hearth: Hearth, habit_id: int) -> Done[Habit]:
    """Use the habit from the next reply on."""
    return Done(_habit(hearth.habits.promote(habit_id)), HABITS)


def demote(hearth: Hearth, habit_id: int) -> Done[Habit]:
    """Stop using the habit until Hearth notices it again."""
    return Done(_habit(hearth.habits.demote(habit_id)), HABITS)


def delete(hearth: Hearth, habit_id: int) -> Changes:
    """Delete the habit for good."""
    hearth.habits.delete(habit_id)
    return HABITS
