"""Editing a reminder: its message and its date and time. Only what changed is sent; a new
time is kept by core as a snooze (same reminder, new time, counted), and both go in one
write, so a refused time leaves the message as it was too."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import cast

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import QDateTimeEdit, QLineEdit, QWidget

from core.operations import reminders
from core.operations.changes import NOTHING
from core.operations.done import Done
from core.operations.reminders import ReminderItem
from desktop.context import AppContext
from desktop.daily.form_dialog import FormDialog


class ReminderDialog(FormDialog):
    def __init__(self, ctx: AppContext, reminder: ReminderItem,
                 parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Edit reminder", parent)
        self.reminder = reminder
        self.shown_at = QDateTime.fromMSecsSinceEpoch(int(reminder.remind_at.timestamp()
                                                           * 1000))
        self.when = QDateTimeEdit(self.shown_at)
        self.when.setCalendarPopup(True)
        self.when.setDisplayFormat("ddd d MMM yyyy HH:mm")
        self.message = QLineEdit(reminder.message)
        self.form.addRow("&Reminder:", self.message)
        self.form.addRow("Remind me &at:", self.when)
        self.finish()

    def job(self) -> Callable[[], Done[ReminderItem]]:
        hearth, reminder_id = self.ctx.hearth, self.reminder.id
        text = self.message.text()
        message = text if text != self.reminder.message else None
        until = (cast(datetime, self.when.dateTime().toPython()).astimezone()
                 if self.when.dateTime() != self.shown_at else None)
        if message is None and until is None:
            unchanged = Done(self.reminder, NOTHING)
            return lambda: unchanged
        return lambda: reminders.edit(hearth, reminder_id, message=message, until=until)
