"""Moving a reminder to another date and time (core keeps it as a snooze: same reminder,
new time, counted)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import cast

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import QDateTimeEdit, QLabel, QWidget

from core.operations import reminders
from core.operations.done import Done
from core.operations.reminders import ReminderItem
from desktop.context import AppContext
from desktop.daily.form_dialog import FormDialog


class ReminderDialog(FormDialog):
    def __init__(self, ctx: AppContext, reminder: ReminderItem,
                 parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Change reminder time", parent)
        self.reminder = reminder
        self.when = QDateTimeEdit(QDateTime.fromMSecsSinceEpoch(
            int(reminder.remind_at.timestamp() * 1000)))
        self.when.setCalendarPopup(True)
        self.when.setDisplayFormat("ddd d MMM yyyy HH:mm")
        message = QLabel(reminder.message)
        message.setWordWrap(True)
        self.form.addRow("Reminder:", message)
        self.form.addRow("Remind me &at:", self.when)
        self.finish()

    def job(self) -> Callable[[], Done[ReminderItem]]:
        hearth, reminder_id = self.ctx.hearth, self.reminder.id
        until = cast(datetime, self.when.dateTime().toPython()).astimezone()
        return lambda: reminders.snooze(hearth, reminder_id, until=until)
