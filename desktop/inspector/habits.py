"""Habits I keep (the `habits` table): the rules Hearth drew about working with this
user, candidates and active.

Active rules ("in use") go into every system prompt; a candidate ("not in use yet") becomes
active when a later reflection sees it again. The user can skip the wait (Use now: promote),
take a rule out of the prompt (Stop using: demote; it must then be seen again) or delete it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtWidgets import QPushButton, QWidget

from core.operations import habits
from core.operations.changes import Domain
from core.operations.habits import Habit
from desktop.context import AppContext
from desktop import confirm
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column
from desktop.inspector.table_page import TablePage
from desktop.words import spaced

STATUS_WORDS = {"active": "in use", "candidate": "not in use yet"}
"""A habit's status as the view says it (``core.knowledge.habits`` stores the left side)."""


def status_text(status: str) -> str:
    return STATUS_WORDS.get(status, status)


HABIT_COLUMNS: tuple[Column[Habit], ...] = (
    Column("Status", lambda item: status_text(item.status)),
    Column("Habit", lambda item: item.rule),
    Column("Category", lambda item: spaced(item.category)),
    Column("Seen", lambda item: f"{item.recurrence_count}×", lambda item: item.recurrence_count),
    Column("First seen", lambda item: local_time(item.first_seen),
           lambda item: time_key(item.first_seen)),
    Column("Last seen", lambda item: local_time(item.last_seen),
           lambda item: time_key(item.last_seen)),
)


class HabitsPage(TablePage):
    key = "habits"
    title = "Habits I keep"
    icon_name = "habits"
    about = ("Rules Hearth drew about how to work with you, such as “keep answers short”; "
             "those in use shape every reply.")
    search_hint = "Search habits"
    filter_choices = (("All habits", None), ("In use (shape every reply)", "active"),
                      ("Not in use yet", "candidate"))
    domains = frozenset({Domain.HABITS})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.promote = self.add_button(
            "&Use now", None, lambda: self._set_status("promote"),
            tooltip="Follow this habit from the next reply on, without waiting for Hearth "
                    "to notice it again (promote)")
        self.demote = self.add_button(
            "&Stop using", None, lambda: self._set_status("demote"),
            tooltip="Stop following this habit until Hearth notices it again (demote)")
        self.add_button("&Delete…", "delete", self.delete_selected,
                        tooltip="Delete the selected habit (Delete)")

    def columns(self) -> Sequence[Column[Habit]]:
        return HABIT_COLUMNS

    def load_records(self, query: str, choice: str | None) -> Sequence[Habit]:
        return habits.list_habits(self.ctx.hearth, choice)

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        if button is self.promote:
            return record.status != "active"
        if button is self.demote:
            return record.status == "active"
        return True

    def delete_selected(self) -> None:
        habit = self.selected()
        if habit is None:
            return
        if not confirm.ask(self, "Delete habit",
                           f"Delete the habit “{habit.rule}”?\n\nHearth stops following it "
                           "and forgets how often it saw it; it may notice it again later."):
            return
        habit_id, hearth = habit.id, self.ctx.hearth
        self.change("Deleting a habit", lambda: habits.delete(hearth, habit_id),
                    lambda _: "Habit deleted.")

    def _set_status(self, action: str) -> None:
        habit = self.selected()
        if habit is None:
            return
        habit_id, hearth = habit.id, self.ctx.hearth
        apply = habits.promote if action == "promote" else habits.demote
        self.change(f"{action.capitalize()} a habit", lambda: apply(hearth, habit_id),
                    lambda changed: f"Habit now {status_text(changed.status)}.")
