"""Editing a task by hand: its title, its due day (a date picker, or none) and details."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import cast

from PySide6.QtCore import QDate
from PySide6.QtWidgets import QCheckBox, QDateEdit, QHBoxLayout, QLineEdit, QPlainTextEdit, QWidget

from core.operations import tasks
from core.operations.done import Done
from core.operations.tasks import TaskItem
from desktop.context import AppContext
from desktop.daily.form_dialog import FormDialog


class TaskDialog(FormDialog):
    def __init__(self, ctx: AppContext, task: TaskItem, parent: QWidget | None = None) -> None:
        super().__init__(ctx, "Edit task", parent)
        self.task = task
        self.title = QLineEdit(task.title)
        self.has_due = QCheckBox("&on")
        self.due = QDateEdit(QDate.fromString((task.due_date or date.today()).isoformat(),
                                        "yyyy-MM-dd"))
        self.due.setCalendarPopup(True)
        self.due.setDisplayFormat("ddd d MMM yyyy")
        self.has_due.toggled.connect(self.due.setEnabled)
        self.has_due.setChecked(task.due_date is not None)
        self.due.setEnabled(task.due_date is not None)
        self.details = QPlainTextEdit(task.details)
        self.details.setPlaceholderText("Anything that helps doing it")
        self.details.setTabChangesFocus(True)
        due_row = QHBoxLayout()
        due_row.addWidget(self.has_due)
        due_row.addWidget(self.due, 1)
        self.form.addRow("&Title:", self.title)
        self.form.addRow("Due:", due_row)
        self.form.addRow("De&tails:", self.details)
        self.finish()

    def job(self) -> Callable[[], Done[TaskItem]]:
        hearth, task_id = self.ctx.hearth, self.task.id
        title, details = self.title.text(), self.details.toPlainText()
        due = cast(date, self.due.date().toPython()) if self.has_due.isChecked() else None
        return lambda: tasks.edit(hearth, task_id, title=title, details=details, due_date=due)
