"""Scheduled prompts: a question the assistant answers on a schedule (a 5-field cron in a
time zone), and the task alerts (a task due today, a task overdue) with their cooldowns.

Wraps ``core.daily.scheduled_prompts`` and ``core.daily.alerts``; both come back as plain
items. The delivery job (``core.daily.delivery``, every minute) reads them as they are, so
a change needs no rescheduling."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core import clock
from core.app import Hearth
from core.daily.scheduled_prompts import next_run
from core.daily.timetable import DAYS as DAYS  # for the window's picker and list
from core.daily.timetable import REPEATS as REPEATS
from core.daily.timetable import Repeat as Repeat
from core.daily.timetable import Timetable as Timetable
from core.daily.timetable import describe as describe
from core.daily.timetable import ordinal as ordinal
from core.daily.timetable import read_cron as read_cron
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import AlertRule, ScheduledPrompt

SCHEDULE = Changes.of(Domain.SCHEDULE)


@dataclass(frozen=True)
class PromptItem:
    """One scheduled prompt; ``next_run_at`` is aware UTC (None when disabled)."""

    id: int
    name: str
    prompt: str
    cron: str
    zone: str
    enabled: bool
    last_run_at: datetime | None
    next_run_at: datetime | None


@dataclass(frozen=True)
class AlertItem:
    """One alert rule: ``kind`` is "task_due_today" or "task_overdue"."""

    kind: str
    enabled: bool
    cooldown_minutes: int
    last_fired_at: datetime | None


def _prompt(row: ScheduledPrompt) -> PromptItem:
    upcoming = next_run(row, clock.now()) if row.enabled else None
    return PromptItem(row.id, row.name, row.prompt, row.cron, row.zone, row.enabled,
                      row.last_run_at, upcoming)


def _alert(row: AlertRule) -> AlertItem:
    return AlertItem(row.kind, row.enabled, row.cooldown_minutes, row.last_fired_at)


def list_prompts(hearth: Hearth) -> tuple[PromptItem, ...]:
    """Every scheduled prompt, by name."""
    return tuple(_prompt(row) for row in hearth.scheduled_prompts.list())


def add(hearth: Hearth, name: str, prompt: str, cron: str, *,
        zone: str | None = None, enabled: bool = True) -> Done[PromptItem]:
    """A new prompt (a bad cron or zone raises ``InvalidInputError``); a disabled one is
    kept but does not run until enabled."""
    return Done(_prompt(hearth.scheduled_prompts.create(name, prompt, cron, zone=zone,
                                                        enabled=enabled)), SCHEDULE)


def edit(hearth: Hearth, prompt_id: int, *, name: str | None = None,
         prompt: str | None = None, cron: str | None = None, zone: str | None = None,
         enabled: bool | None = None) -> Done[PromptItem]:
    """Change what is given; the rest stays."""
    return Done(_prompt(hearth.scheduled_prompts.update(
        prompt_id, name=name, prompt=prompt, cron=cron, zone=zone, enabled=enabled)), SCHEDULE)


def delete(hearth: Hearth, prompt_id: int) -> Done[PromptItem]:
    row = hearth.scheduled_prompts.delete(prompt_id)
    return Done(PromptItem(row.id, row.name, row.prompt, row.cron, row.zone, row.enabled,
                           row.last_run_at, None), SCHEDULE)


def list_alerts(hearth: Hearth) -> tuple[AlertItem, ...]:
    """Both alert rules, as stored or with their defaults."""
    return tuple(_alert(row) for row in hearth.alerts.rules())


def set_alert(hearth: Hearth, kind: str, *, enabled: bool | None = None,
              cooldown_minutes: int | None = None) -> Done[AlertItem]:
    """Turn a rule on or off, or change how long it stays quiet after firing for a task."""
    return Done(_alert(hearth.alerts.set_rule(kind, enabled=enabled,
                                              cooldown_minutes=cooldown_minutes)), SCHEDULE)
