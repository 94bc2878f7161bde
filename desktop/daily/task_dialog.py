"""Editing a task by hand: its title, its due day (a date picker, or none), the time on that
day (or none) and details. The same fields edit a task the assistant prepared and that
waits for the user's Confirm (``desktop.chat.held_forms``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, time
from typing import cast

from PySide6.QtCore import QDate, QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QDateEdit,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QTimeEdit,
    QWidget,
)

from core.operations import tasks
from core.operations.done import Done
from core.operations.tasks import TaskItem
from desktop.context import AppContext
from desktop.daily.form_dialog import FormDialog


class TaskFields:
    """A task's fields, added as rows of ``form``; ``due_time`` is "HH:MM" or None."""

    def __init__(self, form: QFormLayout, title: str, details: str, due_date: date | None,
                 due_time: str | None) -> None:
        self.title = QLineEdit(title)
        self.has_due = QCheckBox("&on")
        self.due = QDateEdit(QDate.fromString((due_date or date.today()).isoformat(),
                                              "yyyy-MM-dd"))
        self.due.setCalendarPopup(True)
        self.due.setDisplayFormat("ddd d MMM yyyy")
        self.has_time = QCheckBox("a&t")
        self.time = QTimeEdit(QTime.fromString(due_time or "09:00", "HH:mm"))
        self.time.setDisplayFormat("HH:mm")
        self.has_due.toggled.connect(self._enable)
        self.has_time.toggled.connect(self._enable)
        self.has_due.setChecked(due_date is not None)
        self.has_time.setChecked(due_time is not None)
        self.details = QPlainTextEdit(details)
        self.details.setPlaceholderText("Anything that helps doing it")
        self.details.setTabChangesFocus(True)
        due_row = QHBoxLayout()
        for widget in (self.has_due, self.due, self.has_time, self.time):
            due_row.addWidget(widget)
        due_row.addStretch(1)
        form.addRow("&Title:", self.title)
        form.addRow("Due:", due_row)
        form.addRow("De&tails:", self.details)
        self._enable()

    def _enable(self) -> None:
        self.due.setEnabled(self.has_due.isChecked())
        self.has_time.setEnabled(self.has_due.isChecked())
        self.time.setEnabled(self.has_due.isChecked() and self.has_time.isChecked())

    @property
    def due_date(self) -> date | None:
        return cast(date, self.due.date().toPython()) if self.has_due.isChecked() else None

    @property
    def due_time(self) -> time | None:
        if self.due_date is None or not self.has_time.isChecked():
            return None
        return cast(time, self.time.time().toPython())


class TaskDialog(FormDialog):
    def __init__(self, ctx: AppContext, task: TaskItem, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Edit task", parent)
        self.task = task
        self.fields = TaskFields(self.form, task.title, task.details, task.due_date,
                                 task.due_time)
        self.finish()

    def job(self) -> Callable[[], Done[TaskItem]]:
        hearth, task_id, fields = self.ctx.hearth, self.task.id, self.fields
        title, details = fields.title.text(), fields.details.toPlainText()
        due, at = fields.due_date, fields.due_time
        return lambda: tasks.edit(hearth, task_id, title=title, details=details, due_date=due,
                                  due_time=at)
