"""Delivered notifications and the user's answers to them: Done, Snooze 10 min / 1 h,
Tomorrow, Not wanted.

The schedule hands the front end a ``Notification`` (``core.daily.delivery``, re-exported
here for the window); ``act`` carries out the button the user pressed with the same core
services as the Today view: a reminder snoozed, a task completed or moved to tomorrow, a
follow-up resolved, put off to tomorrow or dismissed. "Done" on a reminder only
acknowledges it (it was marked sent when it was shown)."""

from __future__ import annotations

from datetime import timedelta

from core import clock
from core.app import Hearth
from core.daily import delivery, when
from core.daily.delivery import (
    ACTION_LABELS, ACTIONS, DISMISS, DONE, FOLLOW_UP, REMINDER, SNOOZE_10, SNOOZE_60, TASK,
    TOMORROW, Notification,
)
from core.errors import InvalidInputError
from core.operations.changes import Changes, Domain
from core.operations.done import Done

__all__ = ["ACTION_LABELS", "Notification", "act", "labels"]

SNOOZE_MINUTES = {SNOOZE_10: 10, SNOOZE_60: 60}


def labels(notification: Notification) -> tuple[tuple[str, str], ...]:
    """The notification's actions as (key, button text), in order."""
    return tuple((key, ACTION_LABELS[key]) for key in notification.actions)


def act(hearth: Hearth, notification: Notification, action: str) -> Done[str]:
    """Do ``action`` for ``notification``; the value says what happened, in a sentence."""
    if action not in ACTIONS.get(notification.kind, ()):
        raise InvalidInputError(f"{action!r} is not an answer to this notification.",
                                "Use one of its buttons.")
    item = notification.item_id
    if notification.kind == REMINDER:
        return _reminder(hearth, item, action)
    if notification.kind == TASK:
        if action == DONE:
            hearth.tasks.complete(item)
            return Done("Task done.", Changes.of(Domain.TASKS))
        hearth.tasks.update(item, due_date=when.today() + timedelta(days=1))
        return Done("Task moved to tomorrow.", Changes.of(Domain.TASKS))
    if notification.kind == FOLLOW_UP:
        if action == DONE:
            hearth.follow_ups.resolve(item)
            return Done("Follow-up done.", Changes.of(Domain.FOLLOW_UPS))
        if action == DISMISS:
            hearth.follow_ups.dismiss(item)
            return Done("Follow-up dismissed.", Changes.of(Domain.FOLLOW_UPS))
        hearth.follow_ups.snooze(item, delivery.tomorrow_morning(clock.now()))
        return Done("Follow-up put off to tomorrow.", Changes.of(Domain.FOLLOW_UPS))
    raise InvalidInputError(f"A {notification.kind} notification takes no answer.",
                            "Close it.")


def _reminder(hearth: Hearth, reminder_id: int, action: str) -> Done[str]:
    changes = Changes.of(Domain.REMINDERS)
    if action == DONE:
        return Done("Reminder done.", changes)
    if action == TOMORROW:
        row = hearth.reminders.get(reminder_id)
        until = delivery.tomorrow_morning(clock.now(), row.zone)
        hearth.reminders.snooze(reminder_id, until=until)
        shown = until.astimezone(when.zone(row.zone)).strftime("%a %H:%M")
        return Done(f"Reminder snoozed until {shown}.", changes)
    minutes = SNOOZE_MINUTES[action]
    hearth.reminders.snooze(reminder_id, minutes=minutes)
    return Done(f"Reminder snoozed for {minutes} minutes.", changes)
