"""Scheduled prompts: a prompt the assistant runs on a 5-field cron schedule in a zone.

The schedule is checked when it is written, by APScheduler's ``CronTrigger.from_crontab``
(the scheduler that runs it), after the day-of-week field is read as standard cron reads
it: APScheduler 3 counts 0 as Monday, cron counts 0 (and 7) as Sunday, so "1-5" would run
Tuesday to Saturday; numbers are turned into day names first. ``due(now)`` says which
enabled prompts have a run they have not had since their last run (or creation): a run
missed while the computer slept is due once at wake, not once per missed time.
"""

from __future__ import annotations

import builtins
import re
from functools import lru_cache
from datetime import datetime, timedelta

from apscheduler.triggers.cron import CronTrigger
from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from core.daily import checks, when
from core.errors import InvalidInputError
from core.storage.orm import ScheduledPrompt, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

MAX_NAME = 200
MAX_PROMPT = 4000
DAY_NAMES = ("sun", "mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""Standard cron's day numbers 0–7 (both 0 and 7 are Sunday)."""
_DAY_RANGE = re.compile(r"^(\d)(?:-(\d))?(?:/(\d+))?$")
CRON_HINT = ("Write five fields: minute hour day-of-month month day-of-week, for example "
             "\"0 9 * * 1-5\" (09:00 on weekdays).")


def _day_of_week(field: str) -> str:
    """Cron's day-of-week field with its numbers as day names (see the module docstring)."""
    parts = []
    for part in field.split(","):
        found = _DAY_RANGE.match(part)
        if found is None:
            parts.append(part)
            continue
        first, last, step = found.groups()
        end = int(last) if last is not None else (7 if step else int(first))
        if int(first) > 7 or end > 7 or int(first) > end:
            raise ValueError(part)
        days = range(int(first), end + 1, int(step or 1))
        parts.extend(dict.fromkeys(DAY_NAMES[day] for day in days))
    return ",".join(dict.fromkeys(parts))


def trigger(cron: str, zone: str | None = None) -> CronTrigger:
    """The trigger of a 5-field cron expression in ``zone`` (the user's when None)."""
    fields = cron.split()
    if len(fields) != 5:
        raise InvalidInputError(f"{cron!r} is not a 5-field cron schedule.", CRON_HINT)
    try:
        fields[4] = _day_of_week(fields[4])
        return CronTrigger.from_crontab(" ".join(fields), timezone=when.zone(zone))
    except ValueError as error:
        raise InvalidInputError(f"{cron!r} is not a cron schedule ({error}).",
                                CRON_HINT) from error


_trigger = lru_cache(maxsize=256)(trigger)
"""``trigger`` kept per (cron, zone): delivery asks every minute, and reading a cron takes
about half a millisecond, most of an empty pass. (A trigger is not changed by asking it.)"""


def next_run(prompt: ScheduledPrompt, after: datetime) -> datetime | None:
    """The prompt's first scheduled time strictly after ``after`` (UTC)."""
    fire = _trigger(prompt.cron, prompt.zone).get_next_fire_time(
        None, after + timedelta(seconds=1))
    return None if fire is None else when.moment(fire)


def create_in(session: Session, name: str, prompt: str, cron: str, *,
              zone: str | None = None, enabled: bool = True) -> ScheduledPrompt:
    zone_name = zone.strip() if zone is not None else when.local_zone_name()
    cron = " ".join(cron.split())
    trigger(cron, zone_name)
    name = _free_name(session, name)
    row = ScheduledPrompt(name=name, cron=cron, zone=zone_name, enabled=enabled,
                          prompt=checks.body(prompt, "a scheduled prompt", MAX_PROMPT,
                                             required=True))
    session.add(row)
    session.flush()
    return row


def _free_name(session: Session, name: str, prompt_id: int | None = None) -> str:
    """``name`` checked, if no other prompt has it."""
    name = checks.line(name, "a scheduled prompt's name", MAX_NAME)
    taken = session.scalar(select(ScheduledPrompt.id).where(ScheduledPrompt.name == name))
    if taken is not None and taken != prompt_id:
        raise InvalidInputError(f"There is already a scheduled prompt named {name!r}.",
                                "Choose another name, or change that one.")
    return name


def find(session: Session, prompt_id: int) -> ScheduledPrompt:
    return require(session, ScheduledPrompt, prompt_id,
                   f"There is no scheduled prompt {prompt_id}.", "It may have been deleted.")


def update_in(session: Session, prompt_id: int, *, name: str | None = None,
              prompt: str | None = None, cron: str | None = None, zone: str | None = None,
              enabled: bool | None = None) -> ScheduledPrompt:
    """Change what is given (None: keep); a new cron or zone is checked together."""
    row = find(session, prompt_id)
    if cron is not None or zone is not None:
        row.cron = " ".join((cron or row.cron).split())
        row.zone = zone.strip() if zone is not None else row.zone
        trigger(row.cron, row.zone)
    if name is not None:
        row.name = _free_name(session, name, prompt_id)
    if prompt is not None:
        row.prompt = checks.body(prompt, "a scheduled prompt", MAX_PROMPT, required=True)
    if enabled is not None:
        row.enabled = enabled
    row.updated_at = utcnow()
    session.flush()
    return row


def delete_in(session: Session, prompt_id: int) -> ScheduledPrompt:
    row = find(session, prompt_id)
    session.delete(row)
    session.flush()
    return row


class ScheduledPromptService:
    """Create, change and list scheduled prompts; say which are due."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def create(self, name: str, prompt: str, cron: str, *, zone: str | None = None,
               enabled: bool = True) -> ScheduledPrompt:
        with self._storage.write() as session:
            return create_in(session, name, prompt, cron, zone=zone, enabled=enabled)

    def get(self, prompt_id: int) -> ScheduledPrompt:
        with self._storage.read() as session:
            return find(session, prompt_id)

    def list(self) -> builtins.list[ScheduledPrompt]:
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(ScheduledPrompt).order_by(
                ScheduledPrompt.name, ScheduledPrompt.id)))

    def update(self, prompt_id: int, *, name: str | None = None, prompt: str | None = None,
               cron: str | None = None, zone: str | None = None,
               enabled: bool | None = None) -> ScheduledPrompt:
        with self._storage.write() as session:
            return update_in(session, prompt_id, name=name, prompt=prompt, cron=cron,
                             zone=zone, enabled=enabled)

    def delete(self, prompt_id: int) -> ScheduledPrompt:
        with self._storage.write() as session:
            return delete_in(session, prompt_id)

    def due(self, now: datetime | None = None) -> builtins.list[ScheduledPrompt]:
        """Enabled prompts with a scheduled time after their last run (or creation) and at
        or before ``now``."""
        now = now or clock.now()
        due = []
        for row in self.list():
            fire = next_run(row, row.last_run_at or row.created_at)
            if row.enabled and fire is not None and fire <= now:
                due.append(row)
        return due

    def claim_due(self, now: datetime | None = None) -> builtins.list[ScheduledPrompt]:
        """The prompts ``due`` now, already marked run at ``now``: chosen and marked in one
        write transaction (rows read ``FOR UPDATE SKIP LOCKED``), so a run is handed to one
        caller only, even by two processes at once. Marked before it runs: a crash during
        the run loses that run rather than repeating it."""
        now = now or clock.now()
        if not self.due(now):  # most minutes: none, and no write lock taken
            return []
        with self._storage.write() as session:
            rows = builtins.list(session.scalars(
                select(ScheduledPrompt).where(ScheduledPrompt.enabled.is_(True))
                .order_by(ScheduledPrompt.id).with_for_update(skip_locked=True)))
            due = []
            for row in rows:
                fire = next_run(row, row.last_run_at or row.created_at)
                if fire is not None and fire <= now:
                    row.last_run_at = now
                    due.append(row)
            session.flush()
            session.expunge_all()
        return due

    def mark_run(self, prompt_id: int, at: datetime | None = None) -> ScheduledPrompt:
        """Record a run at ``at`` (now): ``due`` counts from there."""
        with self._storage.write() as session:
            row = find(session, prompt_id)
            row.last_run_at = at or clock.now()
            return row
