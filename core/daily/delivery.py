"""Delivery: what is due now — reminders, task alerts, follow-ups, scheduled prompts — handed
over once, as plain notifications with the actions the user can answer them with.

One pass, ``claim_due(sources, now)``, run every minute by the schedule
(``core.scheduling``, job ``delivery``):

- reminders whose ``remind_at`` ≤ now and still pending (a snoozed one is pending again at
  its new time);
- task alerts that fire now ("due today", "overdue"), each at most once per its cooldown;
- follow-ups due now, within the daily ration (``FollowUpService.to_deliver``);
- scheduled prompts with a cron time since their last run (run afterwards, with a model:
  ``core.routines.prompt_runs``).

Never twice: each kind is chosen and marked delivered (reminder ``sent``, task stamped,
follow-up's ``last_followed_up_at``, prompt's ``last_run_at``) in the one write transaction
that reads it, with its rows read ``FOR UPDATE SKIP LOCKED`` (PostgreSQL: a second device
passes them by; SQLite has one writer at a time). Only after the commit is anything shown.
So a crash between the commit and the notification loses that one notification rather
than repeating it, and two passes racing (the tray and a second process, two devices on
one database) each hand out different items. The cost when nothing is due: one indexed
query per kind (``ix_reminders_status_remind_at``, ``ix_tasks_status_due``) and a few rows
of follow-ups and prompts.

Catch-up: nothing here looks at when the previous pass ran. A reminder whose time passed
while the computer slept is simply due at the first pass after wake — once, however late —
and says when it was meant for: "(due 09:00)".
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from core import clock
from core.daily import when
from core.storage.orm import Reminder, ScheduledPrompt

if TYPE_CHECKING:
    from core.daily.alerts import Alert, AlertService
    from core.daily.reminders import ReminderService
    from core.daily.scheduled_prompts import ScheduledPromptService
    from core.knowledge.follow_ups import FollowUpService
    from core.storage.orm import FollowUp

REMINDER, TASK, FOLLOW_UP, SCHEDULED_PROMPT, BRIEFING = (
    "reminder", "task", "follow_up", "scheduled_prompt", "briefing")
KINDS = (REMINDER, TASK, FOLLOW_UP, SCHEDULED_PROMPT, BRIEFING)

DONE, SNOOZE_10, SNOOZE_60, TOMORROW, DISMISS = (
    "done", "snooze_10", "snooze_60", "tomorrow", "dismiss")
ACTION_LABELS = {DONE: "Done", SNOOZE_10: "Snooze 10 min", SNOOZE_60: "Snooze 1 h",
                 TOMORROW: "Tomorrow", DISMISS: "Not wanted"}
"""Every action a notification may offer, with the words on its button."""
ACTIONS = {REMINDER: (DONE, SNOOZE_10, SNOOZE_60, TOMORROW),
           TASK: (DONE, TOMORROW),
           FOLLOW_UP: (DONE, TOMORROW, DISMISS),
           SCHEDULED_PROMPT: (), BRIEFING: ()}
"""What each kind can be answered with. A task alert has no snooze (its rule's cooldown
brings it back); a follow-up is rationed per day, so its "later" is tomorrow."""

LATE = timedelta(minutes=2)
"""Delivered this much after its time (the computer slept, the app was closed), a
notification says when it was due."""
TOMORROW_AT = (9, 0)
""""Tomorrow" means tomorrow at 09:00 in the user's zone (for a reminder, its own zone)."""


@dataclass(frozen=True)
class Notification:
    """One thing to show. ``item_id`` is the reminder, task, follow-up or scheduled prompt
    it is about (0 for a briefing); ``actions`` are keys of ``ACTION_LABELS``."""

    kind: str
    item_id: int
    title: str
    body: str
    actions: tuple[str, ...] = ()
    due_at: datetime | None = None

    @property
    def key(self) -> str:
        """Unique per item: ``reminder:12``."""
        return f"{self.kind}:{self.item_id}"


@dataclass(frozen=True)
class DuePrompt:
    """A scheduled prompt whose run was claimed, to run with the assistant."""

    id: int
    name: str
    prompt: str


@dataclass(frozen=True)
class Due:
    """What one pass claimed: notifications to show at once, prompts to run first."""

    notifications: tuple[Notification, ...] = ()
    prompts: tuple[DuePrompt, ...] = ()

    @property
    def empty(self) -> bool:
        return not self.notifications and not self.prompts


@dataclass(frozen=True)
class DueSources:
    """Where due items come from: the services a delivery pass claims them in."""

    reminders: ReminderService
    alerts: AlertService
    follow_ups: FollowUpService
    scheduled_prompts: ScheduledPromptService


def claim_due(sources: DueSources, now: datetime | None = None) -> Due:
    """Everything due at ``now`` (``core.clock``'s now), already marked delivered; see the
    module docstring. Reminders first (the user set a time), then alerts, follow-ups."""
    now = now or clock.now()
    reminders = [_reminder(row, now) for row in sources.reminders.claim_due(now)]
    alerts = [_alert(alert) for alert in sources.alerts.claim(when.today(now=now), now)]
    follow_ups = [_follow_up(row) for row in sources.follow_ups.to_deliver(now)]
    prompts = [_prompt(row) for row in sources.scheduled_prompts.claim_due(now)]
    return Due(tuple(reminders + alerts + follow_ups), tuple(prompts))


def late_note(due_at: datetime, now: datetime, zone_name: str | None = None) -> str:
    """" (due 09:00)" when ``now`` is more than ``LATE`` after ``due_at`` (with the day
    when it is not today), else ""."""
    if now - due_at <= LATE:
        return ""
    zone = when.zone(zone_name)
    local, today = due_at.astimezone(zone), now.astimezone(zone).date()
    shown = local.strftime("%H:%M") if local.date() == today else local.strftime(
        "%a %d %b %H:%M")
    return f" (due {shown})"


def tomorrow_morning(now: datetime, zone_name: str | None = None) -> datetime:
    """``TOMORROW_AT`` on the day after ``now``'s local day, as aware UTC."""
    zone = when.zone(zone_name)
    day = now.astimezone(zone).date() + timedelta(days=1)
    local = datetime(day.year, day.month, day.day, *TOMORROW_AT, tzinfo=zone)
    return when.moment(local)


def _reminder(row: Reminder, now: datetime) -> Notification:
    return Notification(REMINDER, row.id, "Reminder",
                        row.message + late_note(row.remind_at, now, row.zone),
                        ACTIONS[REMINDER], row.remind_at)


def _alert(alert: Alert) -> Notification:
    title = "Due today" if alert.kind == "task_due_today" else "Overdue"
    body = alert.title if alert.kind == "task_due_today" else (
        f"{alert.title} (was due {alert.due_date})")
    return Notification(TASK, alert.task_id, title, body, ACTIONS[TASK])


def _follow_up(row: FollowUp) -> Notification:
    return Notification(FOLLOW_UP, row.id, "You meant to…", row.text, ACTIONS[FOLLOW_UP],
                        row.follow_up_at)


def _prompt(row: ScheduledPrompt) -> DuePrompt:
    return DuePrompt(row.id, row.name, row.prompt)
