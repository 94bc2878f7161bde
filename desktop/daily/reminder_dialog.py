"""Editing a reminder: its message and its date and time. Only what changed is sent; a new
time is kept by core as a snooze (same reminder, new time, counted), and both go in one
write, so a refused time leaves the message as it was too. The same fields edit a reminder
the assistant prepared and that waits for the user's Confirm (``desktop.chat.held_forms``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import cast

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import QDateTimeEdit, QFormLayout, QLineEdit, QWidget

from core.operations import reminders
from core.operations.changes import NOTHING
from core.operations.done import Done
from core.operations.reminders import ReminderItem
from desktop.context import AppContext
from desktop.daily.form_dialog import FormDialog


class ReminderFields:
    """A reminder's message and moment, added as rows of ``form``."""

    def __init__(self, form: QFormLayout, message: str, moment: datetime) -> None:
        self.shown_at = QDateTime.fromMSecsSinceEpoch(int(moment.timestamp() * 1000))
        self.when = QDateTimeEdit(self.shown_at)
        self.when.setCalendarPopup(True)
        self.when.setDisplayFormat("ddd d MMM yyyy HH:mm")
        self.message = QLineEdit(message)
        form.addRow("&Reminder:", self.message)
        form.addRow("Remind me &at:", self.when)

    @property
    def moment(self) -> datetime:
        """The chosen time, aware (the computer's zone, as the field shows it)."""
        return cast(datetime, self.when.dateTime().toPython()).astimezone()

    @property
    def moved(self) -> bool:
        return self.when.dateTime() != self.shown_at


class ReminderDialog(FormDialog):
    def __init__(self, ctx: AppContext, reminder: ReminderItem,
                 parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Edit reminder", parent)
        self.reminder = reminder
        self.fields = ReminderFields(self.form, reminder.message, reminder.remind_at)
        self.finish()

    def job(self) -> Callable[[], Done[ReminderItem]]:
        hearth, reminder_id = self.ctx.hearth, self.reminder.id
        text = self.fields.message.text()
        message = text if text != self.reminder.message else None
        until = self.fields.moment if self.fields.moved else None
        if message is None and until is None:
            unchanged = Done(self.reminder, NOTHING)
            return lambda: unchanged
        return lambda: reminders.edit(hearth, reminder_id, message=message, until=until)
