"""Reminders: a message shown at a moment the user chose.

``remind_at`` is UTC; ``zone`` keeps the user's zone at creation, so the window can say
"at 9:00" as they meant it. Statuses: ``pending`` until delivered, then ``sent``; or
``cancelled``. A reminder is never set in the past. Delivery (``core.daily.delivery``) calls
``claim_due(now)``: the pending reminders with ``remind_at`` at or before now (which includes
the ones missed while the computer slept), marked ``sent`` in the same write transaction that
chose them (rows read ``FOR UPDATE SKIP LOCKED``) and only then shown: so one is never
delivered twice, even by two processes or two devices on one database. ``due`` and
``mark_sent`` remain for callers that look before they deliver; ``mark_sent`` refuses a
reminder that is no longer pending.
Snoozing (from ``pending`` or ``sent``) moves ``remind_at`` later, makes it pending again
and counts.
"""

from __future__ import annotations

import builtins
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from core.daily import checks, when
from core.errors import InvalidInputError
from core.storage.orm import DAILY_SOURCES, REMINDER_STATUSES, Reminder, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

MAX_MESSAGE = 500
MAX_SNOOZE = timedelta(days=366)


def create_in(session: Session, message: str, remind_at: datetime | str, *,
              zone: str | None = None, source: str = "user") -> Reminder:
    zone_name = zone.strip() if zone is not None else when.local_zone_name()
    when.zone(zone_name)
    at = when.moment(remind_at, zone_name)
    if at < clock.now():
        local = at.astimezone(when.zone(zone_name)).strftime("%Y-%m-%d %H:%M")
        raise InvalidInputError(f"{local} has already passed.",
                                "Choose a time in the future for the reminder.")
    reminder = Reminder(message=checks.line(message, "a reminder's message", MAX_MESSAGE),
                        remind_at=at, zone=zone_name,
                        source=checks.one_of(source, DAILY_SOURCES, "source"))
    session.add(reminder)
    session.flush()
    return reminder


def cancel_in(session: Session, reminder_id: int) -> Reminder:
    reminder = find(session, reminder_id)
    if reminder.status != "pending":
        raise InvalidInputError(f"Reminder {reminder_id} is already {reminder.status}.",
                                "Only a pending reminder can be cancelled.")
    reminder.status, reminder.updated_at = "cancelled", utcnow()
    session.flush()
    return reminder


def snooze_in(session: Session, reminder_id: int, *, minutes: int | None = None,
              until: datetime | str | None = None) -> Reminder:
    """Remind again ``minutes`` from now, or at ``until``; exactly one of them."""
    if (minutes is None) == (until is None):
        raise InvalidInputError("A snooze needs either minutes or a time.",
                                "Give one of them.")
    reminder = find(session, reminder_id)
    _move(reminder, until if until is not None else minutes or 0)
    session.flush()
    return reminder


def _move(reminder: Reminder, to: datetime | str | int) -> None:
    """Snooze ``reminder`` to a moment (aware, or ISO text in its zone) or a number of
    minutes from now: pending again at a future time within a year, counted."""
    now = clock.now()
    at = now + timedelta(minutes=to) if isinstance(to, int) else when.moment(to, reminder.zone)
    if at <= now or at - now > MAX_SNOOZE or (isinstance(to, int) and to < 1):
        raise InvalidInputError("A snooze must end in the future, within a year.",
                                "Choose a later time, or fewer minutes.")
    if reminder.status == "cancelled":
        raise InvalidInputError(f"Reminder {reminder.id} was cancelled.",
                                "Set a new reminder instead.")
    reminder.remind_at, reminder.status, reminder.sent_at = at, "pending", None
    reminder.snooze_count += 1
    reminder.updated_at = utcnow()


def find(session: Session, reminder_id: int) -> Reminder:
    return require(session, Reminder, reminder_id, f"There is no reminder {reminder_id}.",
                   "List them with `hearth reminders list`.")


class ReminderService:
    """Set, list, deliver, snooze and cancel reminders."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def create(self, message: str, remind_at: datetime | str, *, zone: str | None = None,
               source: str = "user") -> Reminder:
        """A pending reminder at ``remind_at`` (aware, or ISO text read in ``zone``)."""
        with self._storage.write() as session:
            return create_in(session, message, remind_at, zone=zone, source=source)

    def get(self, reminder_id: int) -> Reminder:
        with self._storage.read() as session:
            return find(session, reminder_id)

    def list(self, status: str | None = None) -> builtins.list[Reminder]:
        """Reminders (of ``status``), soonest first."""
        query = select(Reminder).order_by(Reminder.remind_at, Reminder.id)
        if status is not None:
            query = query.where(Reminder.status == checks.one_of(
                status, REMINDER_STATUSES, "reminder status"))
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))

    def due(self, now: datetime | None = None) -> builtins.list[Reminder]:
        """Pending reminders whose time has come (``remind_at`` ≤ now), oldest first."""
        query = select(Reminder).where(Reminder.status == "pending",
                                       Reminder.remind_at <= (now or clock.now())
                                       ).order_by(Reminder.remind_at, Reminder.id)
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))

    def claim_due(self, now: datetime | None = None) -> builtins.list[Reminder]:
        """The reminders ``due`` now, already marked sent at ``now`` (see the module
        docstring), oldest first."""
        now = now or clock.now()
        due = (Reminder.status == "pending", Reminder.remind_at <= now)
        with self._storage.read() as session:  # most minutes: none, and no write lock taken
            if session.scalar(select(Reminder.id).where(*due).limit(1)) is None:
                return []
        with self._storage.write() as session:
            rows = builtins.list(session.scalars(
                select(Reminder).where(*due)
                .order_by(Reminder.remind_at, Reminder.id).with_for_update(skip_locked=True)))
            for row in rows:
                row.status, row.sent_at, row.updated_at = "sent", now, utcnow()
        return rows

    def mark_sent(self, reminder_id: int, at: datetime | None = None) -> Reminder:
        """Record the delivery; refused for a reminder that is not pending (already sent,
        cancelled), so a caller that marks before showing shows it at most once."""
        with self._storage.write() as session:
            reminder = find(session, reminder_id)
            if reminder.status != "pending":
                raise InvalidInputError(f"Reminder {reminder_id} is already {reminder.status}.",
                                        "It is not delivered again.")
            reminder.status, reminder.sent_at = "sent", at or clock.now()
            reminder.updated_at = utcnow()
            return reminder

    def snooze(self, reminder_id: int, *, minutes: int | None = None,
               until: datetime | str | None = None) -> Reminder:
        """Remind again ``minutes`` from now, or at ``until``; exactly one of them."""
        with self._storage.write() as session:
            return snooze_in(session, reminder_id, minutes=minutes, until=until)

    def edit(self, reminder_id: int, *, message: str | None = None,
             until: datetime | str | None = None) -> Reminder:
        """Change what a reminder says (``message``) and, with ``until``, move it there
        (as a snooze: pending again, counted); one transaction, so a refused time leaves the
        message as it was too. A sent reminder's words may still be corrected; a cancelled
        one is refused (set a new one)."""
        if message is None and until is None:
            raise InvalidInputError("Nothing to change in the reminder.",
                                    "Give a new message or a new time.")
        with self._storage.write() as session:
            reminder = find(session, reminder_id)
            if reminder.status == "cancelled":
                raise InvalidInputError(f"Reminder {reminder_id} was cancelled.",
                                        "Set a new reminder instead.")
            if message is not None:
                reminder.message = checks.line(message, "a reminder's message", MAX_MESSAGE)
            if until is not None:
                _move(reminder, until)
            reminder.updated_at = utcnow()
            session.flush()
            return reminder

    def cancel(self, reminder_id: int) -> Reminder:
        with self._storage.write() as session:
            return cancel_in(session, reminder_id)
