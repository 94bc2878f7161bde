"""Reminders: list, set, reword, snooze and cancel them.

Wraps ``core.daily.reminders``; a reminder comes back as ``ReminderItem``. Delivery is the
schedule's (``core.daily.delivery``, run every minute by ``core.scheduling``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import Reminder

REMINDERS = Changes.of(Domain.REMINDERS)


@dataclass(frozen=True)
class ReminderItem:
    """One reminder. ``remind_at`` is aware UTC (show it in ``zone``); ``status``:
    "pending", "sent" or "cancelled"."""

    id: int
    message: str
    remind_at: datetime
    zone: str
    status: str
    sent_at: datetime | None
    snooze_count: int
    source: str
    created_at: datetime


def _item(row: Reminder) -> ReminderItem:
    return ReminderItem(row.id, row.message, row.remind_at, row.zone, row.status, row.sent_at,
                        row.snooze_count, row.source, row.created_at)


def list_reminders(hearth: Hearth, status: str | None = None) -> tuple[ReminderItem, ...]:
    """Reminders (of ``status``), soonest first."""
    return tuple(_item(row) for row in hearth.reminders.list(status))


def add(hearth: Hearth, message: str, remind_at: datetime | str,
        zone: str | None = None) -> Done[ReminderItem]:
    """A reminder at ``remind_at`` (aware, or ``YYYY-MM-DDTHH:MM`` in ``zone``, the
    user's when None)."""
    return Done(_item(hearth.reminders.create(message, remind_at, zone=zone)), REMINDERS)


def snooze(hearth: Hearth, reminder_id: int, *, minutes: int | None = None,
           until: datetime | str | None = None) -> Done[ReminderItem]:
    return Done(_item(hearth.reminders.snooze(reminder_id, minutes=minutes, until=until)),
                REMINDERS)


def edit(hearth: Hearth, reminder_id: int, *, message: str | None = None,
         until: datetime | str | None = None) -> Done[ReminderItem]:
    """Reword a reminder and/or move it to ``until`` (a move counts as a snooze), in one
    write."""
    return Done(_item(hearth.reminders.edit(reminder_id, message=message, until=until)),
                REMINDERS)


def cancel(hearth: Hearth, reminder_id: int) -> Done[ReminderItem]:
    return Done(_item(hearth.reminders.cancel(reminder_id)), REMINDERS)
