"""Edit on the approval card: a task or a reminder the assistant prepared opens in its own
form (the fields the Today view edits), filled with what was asked, and Save adds it as
edited (``core.operations.pending.confirm`` with the revised arguments, checked as a new
request is). Edit used to cancel the request and ask for the whole message again, to fix a
title or move a time by an hour.

Requests without a form here (a note, a scheduled prompt, a change to an existing row) keep
the old way: Edit cancels them and puts the message back in the box (``PendingAnswers``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

from PySide6.QtWidgets import QDialogButtonBox, QWidget

from core.operations import pending
from core.operations.done import Done
from core.operations.pending import PendingItem
from desktop.context import AppContext
from desktop.daily.form_dialog import FormDialog
from desktop.daily.reminder_dialog import ReminderFields
from desktop.daily.task_dialog import TaskFields


class HeldTaskDialog(FormDialog):
    """The task the assistant prepared, in the task's own fields; Save adds it."""

    def __init__(self, ctx: AppContext, item: PendingItem, parent: QWidget | None = None
                 ) -> None:
        super().__init__(ctx, "Change the task, then add it", parent)
        self.item = item
        asked = item.arguments
        due = asked.get("due_date")
        self.fields = TaskFields(self.form, str(asked.get("title", "")),
                                 str(asked.get("details") or ""),
                                 date.fromisoformat(due) if due else None,
                                 asked.get("due_time"))
        _save_says(self, "&Add the task")
        self.finish()

    def job(self) -> Callable[[], Done[PendingItem]]:
        fields, hearth, action_id = self.fields, self.ctx.hearth, self.item.id
        due, at = fields.due_date, fields.due_time
        revised = {"title": fields.title.text(), "details": fields.details.toPlainText(),
                   "due_date": due.isoformat() if due else "",
                   "due_time": f"{at:%H:%M}" if at else ""}
        return lambda: pending.confirm(hearth, action_id, revised)


class HeldReminderDialog(FormDialog):
    """The reminder the assistant prepared, in the reminder's own fields; Save sets it."""

    def __init__(self, ctx: AppContext, item: PendingItem, parent: QWidget | None = None
                 ) -> None:
        super().__init__(ctx, "Change the reminder, then set it", parent)
        self.item = item
        self.fields = ReminderFields(self.form, str(item.arguments.get("message", "")),
                                     datetime.fromisoformat(str(item.arguments["remind_at"])))
        _save_says(self, "&Set the reminder")
        self.finish()

    def job(self) -> Callable[[], Done[PendingItem]]:
        hearth, action_id = self.ctx.hearth, self.item.id
        revised = {"message": self.fields.message.text(),
                   "remind_at": self.fields.moment.isoformat()}
        return lambda: pending.confirm(hearth, action_id, revised)


def _save_says(dialog: FormDialog, text: str) -> None:
    button = dialog.buttons.button(QDialogButtonBox.StandardButton.Save)
    if button is not None:
        button.setText(text)


FORMS: dict[str, type[HeldTaskDialog] | type[HeldReminderDialog]] = {
    "task.create": HeldTaskDialog, "reminder.create": HeldReminderDialog}


def held_form(ctx: AppContext, item: PendingItem, parent: QWidget | None = None
              ) -> FormDialog | None:
    """The form that edits ``item``, or None when its action has none."""
    form = FORMS.get(item.action)
    return None if form is None else form(ctx, item, parent)
