"""Habits: behavioural rules about working with this user, found by reflection.

A reflection proposes rules such as "always confirm before deleting any item". One sighting
is not a pattern, so a new rule is a *candidate*; seen again in a **later** reflection run it
is promoted to *active*, and active rules go into the system prompt (``core.conversation.
system_prompt`` reads ``status == "active"``). A model repeating itself within one run does
not count twice: a sighting counts only when the rule was last seen before the run started.

Rules are normalised (lowercase, single spaces, no final full stop) so that one rule has one
row whoever spells it. The user has the last word: promote, demote (back to candidate, with
the count reset so one more sighting is needed) and delete; undoing a reflection that saw a
rule again puts back its status, count and last sighting (``restore``). A delete really
deletes, and its audit entry names the id and category but not the rule: the user wanted it
gone."""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import InvalidInputError
from core.storage.orm import Habit, AuditEntry, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

MAX_RULE_CHARS = 200
MAX_CATEGORY_CHARS = 32
PROMOTE_AT = 2
STATUSES: tuple[str, ...] = ("candidate", "active")

Observed = Literal["added", "seen", "promoted", "unchanged"]


@dataclass(frozen=True)
class HabitState:
    """What a sighting changes in a rule: kept by the reflection for a rule it saw again, so
    undoing that run can put the rule back as it was (``restore``)."""

    status: str
    recurrence_count: int
    last_seen: datetime


@dataclass(frozen=True)
class Observation:
    """What one ``observe`` did (the reflection counts these); ``before`` is the rule's
    state before a sighting that changed it ("seen", "promoted"), else None."""

    habit: Habit
    action: Observed
    before: HabitState | None = None


def normalise_rule(rule: str) -> str:
    """``"Always confirm before deleting.  "`` → ``"always confirm before deleting"``."""
    text = " ".join(rule.split()).lower().rstrip(".").strip()
    if not text:
        raise InvalidInputError("A habit needs a rule.", "Say what to do differently.")
    if len(text) > MAX_RULE_CHARS:
        raise InvalidInputError(f"The rule is {len(text)} characters long.",
                                f"Keep a rule under {MAX_RULE_CHARS} characters.")
    return text


def normalise_category(category: str) -> str:
    """``"Decision Making"`` → ``"decision_making"``; empty → ``"general"``."""
    text = re.sub(r"[\W_]+", "_", category.strip().lower()).strip("_")[:MAX_CATEGORY_CHARS]
    return text or "general"


class HabitService:
    """Observe rules from reflection runs; let the user promote, demote and delete them."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def observe(self, rule: str, category: str = "general", *, run_started_at: datetime,
                now: datetime | None = None) -> Observation:
        """Record one sighting of ``rule`` by the reflection run that started at
        ``run_started_at``: new → candidate; seen before that run → one more recurrence,
        promoted to active at ``PROMOTE_AT``; already seen in this run → unchanged."""
        rule, category = normalise_rule(rule), normalise_category(category)
        now = now or utcnow()
        with self._storage.write() as session:
            habit = session.scalars(
                select(Habit).where(Habit.rule == rule)).one_or_none()
            action: Observed
            before = None
            if habit is None:
                habit = Habit(rule=rule, category=category, recurrence_count=1,
                                         status="candidate", first_seen=now, last_seen=now)
                session.add(habit)
                action = "added"
            elif habit.last_seen >= run_started_at:
                action = "unchanged"
            else:
                before = HabitState(habit.status, habit.recurrence_count,
                                       habit.last_seen)
                habit.recurrence_count += 1
                habit.last_seen = now
                action = "seen"
                if habit.status == "candidate" and habit.recurrence_count >= PROMOTE_AT:
                    habit.status = "active"
                    action = "promoted"
            session.flush()
            session.expunge(habit)
        return Observation(habit, action, before)

    def get(self, habit_id: int) -> Habit:
        with self._storage.read() as session:
            habit = self._find(session, habit_id)
            session.expunge(habit)
        return habit

    def list(self, status: str | None = None) -> builtins.list[Habit]:
        """Habits (of one status, or all), by id."""
        if status is not None and status not in STATUSES:
            raise InvalidInputError(f"{status!r} is not a habit status.",
                                    f"Use one of: {', '.join(STATUSES)}.")
        query = select(Habit).order_by(Habit.id)
        if status is not None:
            query = query.where(Habit.status == status)
        with self._storage.read() as session:
            rows = builtins.list(session.scalars(query))
            session.expunge_all()
        return rows

    def active(self) -> builtins.list[Habit]:
        """The rules the system prompt shows."""
        return self.list("active")

    def promote(self, habit_id: int) -> Habit:
        """Make a rule active now, without waiting for a second sighting."""
        return self._set_status(habit_id, "active", "habit.promote")

    def demote(self, habit_id: int) -> Habit:
        """Take a rule out of the system prompt; it needs a new sighting to come back."""
        return self._set_status(habit_id, "candidate", "habit.demote")

    def delete(self, habit_id: int) -> None:
        """Delete a rule for good (audited without its text)."""
        with self._storage.write() as session:
            habit = self._find(session, habit_id)
            session.add(AuditEntry(action="habit.delete", actor="user",
                                   arguments={"id": habit_id, "category": habit.category},
                                   result_summary="deleted"))
            session.delete(habit)

    def restore(self, habit_id: int, state: HabitState) -> Habit:
        """Put a rule back as it was before a reflection saw it again (undoing that run):
        its status, count and when it was last seen."""
        with self._storage.write() as session:
            habit = self._find(session, habit_id)
            previous = habit.status
            habit.status, habit.recurrence_count = state.status, state.recurrence_count
            habit.last_seen = state.last_seen
            session.add(AuditEntry(action="habit.restore", actor="user",
                                   arguments={"id": habit_id},
                                   result_summary=f"{previous} -> {state.status}"))
            session.flush()
            session.expunge(habit)
        return habit

    def _set_status(self, habit_id: int, status: str, audit: str) -> Habit:
        with self._storage.write() as session:
            habit = self._find(session, habit_id)
            previous = habit.status
            habit.status = status
            if status == "candidate":
                habit.recurrence_count = 1
            session.add(AuditEntry(action=audit, actor="user", arguments={"id": habit_id},
                                   result_summary=f"{previous} -> {status}"))
            session.flush()
            session.expunge(habit)
        return habit

    @staticmethod
    def _find(session: Session, habit_id: int) -> Habit:
        return require(session, Habit, habit_id,
                       f"There is no habit {habit_id}.",
                       "List them with `hearth habits`.")
