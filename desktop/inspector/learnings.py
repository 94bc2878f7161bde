"""Learnings: the rules Hearth drew about working with this user, candidates and active.

Active rules go into every system prompt; a candidate becomes active when a later reflection
sees it again. The user can skip the wait (promote), take a rule out of the prompt (demote:
it must then be seen again) or delete it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtWidgets import QPushButton, QWidget

from core.storage.orm import AgentLearning
from desktop.context import AppContext
from desktop.inspector import confirm
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column
from desktop.inspector.table_page import TablePage

LEARNING_COLUMNS: tuple[Column[AgentLearning], ...] = (
    Column("Status", lambda item: item.status),
    Column("Rule", lambda item: item.rule),
    Column("Category", lambda item: item.category),
    Column("Seen", lambda item: f"{item.recurrence_count}×", lambda item: item.recurrence_count),
    Column("First seen", lambda item: local_time(item.first_seen),
           lambda item: time_key(item.first_seen)),
    Column("Last seen", lambda item: local_time(item.last_seen),
           lambda item: time_key(item.last_seen)),
)


class LearningsPage(TablePage):
    key = "learnings"
    title = "Learnings"
    icon_name = "learnings"
    search_hint = "Search rules"
    filter_choices = (("Candidates and active", None), ("Active (in the prompt)", "active"),
                      ("Candidates", "candidate"))

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.promote = self.add_button(
            "&Promote", None, lambda: self._set_status("promote"),
            tooltip="Make the rule active now: it goes into the system prompt")
        self.demote = self.add_button(
            "D&emote", None, lambda: self._set_status("demote"),
            tooltip="Take the rule out of the system prompt until it is seen again")
        self.add_button("&Delete…", "delete", self.delete_selected,
                        tooltip="Delete the selected rule (Delete)")

    def columns(self) -> Sequence[Column[AgentLearning]]:
        return LEARNING_COLUMNS

    def load_records(self, query: str, choice: str | None) -> list[AgentLearning]:
        return self.ctx.hearth.learnings.list(choice)

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        if button is self.promote:
            return record.status != "active"
        if button is self.demote:
            return record.status == "active"
        return True

    def delete_selected(self) -> None:
        learning = self.selected()
        if learning is None:
            return
        if not confirm.ask(self, "Delete learning",
                           f"Delete the rule “{learning.rule}”?\n\nIt leaves the system prompt "
                           "and its count is lost; a reflection may propose it again."):
            return
        learning_id, learnings = learning.id, self.ctx.hearth.learnings
        self.change("Deleting a learning", lambda: learnings.delete(learning_id),
                    lambda _: "Learning deleted.")

    def _set_status(self, action: str) -> None:
        learning = self.selected()
        if learning is None:
            return
        learning_id, learnings = learning.id, self.ctx.hearth.learnings
        apply = learnings.promote if action == "promote" else learnings.demote
        self.change(f"{action.capitalize()} a learning", lambda: apply(learning_id),
                    lambda changed: f"Learning is now {changed.status}.")
