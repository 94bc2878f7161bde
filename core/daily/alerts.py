"""Task alerts: which rules fire now, for which tasks, respecting each rule's cooldown.

Two rules: ``task_due_today`` (an open task due on the user's day) and ``task_overdue``
(an open task due before it), both on with a cooldown of a day unless the user changed
them. Their defaults live here (``DEFAULT_RULES``), not as seeded rows: a rule gets a row
when first changed or fired, so a new database holds nothing (see migration 0013).

A rule fires for a task unless it is disabled, or it already fired for that task within its
cooldown (``Task.notified_kind`` and ``notified_at`` remember the last alert per task).
``decide`` is the pure decision; ``AlertService.firing`` reads what it needs and ``record``
stamps the tasks and rules of the alerts that were shown, in one transaction. Delivery
(``core.daily.delivery``) uses ``claim``: decide and stamp in one write transaction, the
tasks read ``FOR UPDATE SKIP LOCKED``, so two delivery passes (two processes, or two devices
on one PostgreSQL database) never hand out the same alert within its cooldown.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from core.daily import checks
from core.errors import InvalidInputError
from core.storage.orm import ALERT_KINDS, AlertRule, Task
from core.storage.port import StoragePort

MAX_COOLDOWN_MINUTES = 60 * 24 * 30
DEFAULT_COOLDOWN_MINUTES = 60 * 24
"""Once a day per task and rule, unless the user says otherwise."""
DEFAULT_RULES = {kind: (True, DEFAULT_COOLDOWN_MINUTES) for kind in ALERT_KINDS}
"""Each rule's (enabled, cooldown) before the user changes it."""


@dataclass(frozen=True)
class Alert:
    """One rule firing for one task."""

    kind: str
    task_id: int
    title: str
    due_date: str


def _applies(kind: str, task: Task, today: str) -> bool:
    if task.status != "todo" or task.due_date is None:
        return False
    return task.due_date == today if kind == "task_due_today" else task.due_date < today


def decide(rules: Iterable[AlertRule], tasks: Iterable[Task], today: date,
           now: datetime) -> list[Alert]:
    """The alerts to show now: each enabled rule, for each task it applies to on the user's
    ``today``, unless that rule fired for that task less than its cooldown ago."""
    day = today.isoformat()
    tasks = list(tasks)
    alerts = []
    for rule in rules:
        if not rule.enabled:
            continue
        cooldown = timedelta(minutes=rule.cooldown_minutes)
        for task in tasks:
            recent = (task.notified_kind == rule.kind and task.notified_at is not None
                      and now - task.notified_at < cooldown)
            if _applies(rule.kind, task, day) and not recent:
                alerts.append(Alert(rule.kind, task.id, task.title, task.due_date or ""))
    return alerts


class AlertService:
    """The alert rules, and which of them fire."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def rules(self) -> list[AlertRule]:
        """Every rule, as stored or with its defaults, by kind."""
        with self._storage.read() as session:
            return _every_rule(session, create=False)

    def set_rule(self, kind: str, *, enabled: bool | None = None,
                 cooldown_minutes: int | None = None) -> AlertRule:
        checks.one_of(kind, ALERT_KINDS, "kind of alert")
        if cooldown_minutes is not None and not 0 < cooldown_minutes <= MAX_COOLDOWN_MINUTES:
            raise InvalidInputError(f"A cooldown of {cooldown_minutes} minutes is out of range.",
                                    f"Use 1 to {MAX_COOLDOWN_MINUTES} minutes (30 days).")
        with self._storage.write() as session:
            (rule,) = [r for r in _every_rule(session, create=True) if r.kind == kind]
            if enabled is not None:
                rule.enabled = enabled
            if cooldown_minutes is not None:
                rule.cooldown_minutes = cooldown_minutes
            session.flush()
            return rule

    def firing(self, today: date, now: datetime | None = None) -> list[Alert]:
        """What ``decide`` says for the open, dated tasks on the user's ``today``."""
        with self._storage.read() as session:
            rules = _every_rule(session, create=False)
            tasks = list(session.scalars(select(Task).where(  # both rules: due by today
                Task.status == "todo", Task.due_date <= today.isoformat()).order_by(
                Task.due_date, Task.id)))
        return decide(rules, tasks, today, now or clock.now())

    def record(self, alerts: Sequence[Alert], now: datetime | None = None) -> None:
        """Remember that ``alerts`` were shown at ``now``: their cooldowns start there."""
        with self._storage.write() as session:
            _stamp(session, alerts, now or clock.now())

    def claim(self, today: date, now: datetime | None = None) -> list[Alert]:
        """The alerts firing now, already recorded as shown: read and stamped in one write
        transaction, so each is handed out once per cooldown however many callers race."""
        now = now or clock.now()
        if not self.firing(today, now):  # most minutes: none, and no write lock taken
            return []
        with self._storage.write() as session:
            rules = _every_rule(session, create=False)
            tasks = list(session.scalars(select(Task).where(
                Task.status == "todo", Task.due_date <= today.isoformat()).order_by(
                Task.due_date, Task.id).with_for_update(skip_locked=True)))
            alerts = decide(rules, tasks, today, now)
            _stamp(session, alerts, now)
        return alerts


def _stamp(session: Session, alerts: Sequence[Alert], now: datetime) -> None:
    """Start the cooldowns of ``alerts`` at ``now`` (tasks and rules)."""
    for alert in alerts:
        task = session.get(Task, alert.task_id)
        if task is not None:  # deleted since: nothing to remember about it
            task.notified_kind, task.notified_at = alert.kind, now
    kinds = {alert.kind for alert in alerts}
    for rule in _every_rule(session, create=bool(kinds)):
        if rule.kind in kinds:
            rule.last_fired_at = now


def _every_rule(session: Session, *, create: bool) -> list[AlertRule]:
    """The stored rules, and the others with their defaults (added to ``session`` when
    ``create``: about to be changed), by kind."""
    stored = {rule.kind: rule for rule in session.scalars(select(AlertRule))}
    for kind, (enabled, cooldown) in DEFAULT_RULES.items():
        if kind not in stored:
            stored[kind] = AlertRule(kind=kind, enabled=enabled, cooldown_minutes=cooldown)
            if create:
                session.add(stored[kind])
    return [stored[kind] for kind in sorted(stored)]
