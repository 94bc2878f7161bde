"""Choosing when a follow-up comes up again: a few usual answers (in an hour, tomorrow
morning, …) and a dialog for any date and time. Times are the user's local ones, handed to
core as aware datetimes."""

from __future__ import annotations

from datetime import datetime, time, timedelta
from typing import cast

from PySide6.QtCore import QDateTime
from PySide6.QtWidgets import QDateTimeEdit, QDialog, QDialogButtonBox, QFormLayout, QWidget

MORNING = time(9, 0)


def snooze_choices(now: datetime) -> list[tuple[str, datetime]]:
    """The usual snoozes from ``now`` (an aware local time): label and the time it means."""
    tomorrow = datetime.combine(now.date() + timedelta(days=1), MORNING, now.tzinfo)
    monday = datetime.combine(now.date() + timedelta(days=7 - now.weekday()), MORNING,
                              now.tzinfo)
    return [("In an hour", now + timedelta(hours=1)),
            ("Tomorrow morning", tomorrow),
            ("In three days", tomorrow + timedelta(days=2)),
            ("Next Monday", monday)]


def local_now() -> datetime:
    return datetime.now().astimezone()


class SnoozeDialog(QDialog):
    """Pick any later date and time; ``until()`` gives it as an aware datetime."""

    def __init__(self, start: datetime, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Snooze until")
        self.when = QDateTimeEdit(QDateTime.fromMSecsSinceEpoch(int(start.timestamp() * 1000)))
        self.when.setCalendarPopup(True)
        self.when.setMinimumDateTime(QDateTime.currentDateTime())
        self.when.setDisplayFormat("yyyy-MM-dd HH:mm")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form = QFormLayout(self)
        form.addRow("Bring it up again &at:", self.when)
        form.addRow(buttons)
        self.setMinimumWidth(340)

    def until(self) -> datetime:
        return cast(datetime, self.when.dateTime().toPython()).astimezone()
