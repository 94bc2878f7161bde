"""Follow-ups: what the user meant to do ("call the dentist"), when
Hearth will bring each up, and the user's answers: done (resolve), snooze (later), dismiss
(not wanted). Nothing is deleted: done and dismissed ones stay listable under the filter."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QPushButton, QWidget

from core.operations import follow_ups
from core.operations.changes import Domain
from core.operations.follow_ups import FollowUp
from desktop.context import AppContext
from desktop import confirm
from desktop.inspector.formatting import NEVER, local_time, time_key
from desktop.inspector.snooze import SnoozeDialog, local_now, snooze_choices
from desktop.inspector.table import Column
from desktop.inspector.table_page import TablePage


def due_text(item: FollowUp) -> str:
    """The follow-up time, marked when an open follow-up's time has come."""
    if item.follow_up_at is None:
        return NEVER
    overdue = item.status == "open" and item.follow_up_at <= local_now()
    return local_time(item.follow_up_at) + (" · due" if overdue else "")


STATUS_WORDS = {"open": "open", "resolved": "done", "dismissed": "dismissed"}
"""a follow-up's status as the view says it (``core.knowledge.follow_ups`` stores the left
side)."""

FOLLOW_UP_COLUMNS: tuple[Column[FollowUp], ...] = (
    Column("Status", lambda item: STATUS_WORDS.get(item.status, item.status)),
    Column("What you meant to do", lambda item: item.text),
    Column("Details", lambda item: " ".join(item.context.split())),
    Column("Bring up", due_text, lambda item: time_key(item.follow_up_at)),
    Column("Noted", lambda item: local_time(item.created_at),
           lambda item: time_key(item.created_at)),
)


class FollowUpsPage(TablePage):
    key = "follow_ups"
    title = "Follow-ups"
    icon_name = "follow_ups"
    about = "Things you said you meant to do; Hearth brings each one up when it is due."
    search_hint = "Search follow-ups"
    sort_column = 3  # soonest follow-up first
    filter_choices = (("Open", "open"), ("Done", "resolved"), ("Dismissed", "dismissed"),
                      ("All", None))
    domains = frozenset({Domain.FOLLOW_UPS})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.resolve = self.add_button("&Done", None, self._resolve,
                                       tooltip="Done: it will not be brought up again")
        self.snooze = self.add_button("&Snooze", None, self._show_snooze_menu,
                                      tooltip="Bring it up again later")
        self.snooze_menu = QMenu(self)
        self.snooze_menu.aboutToShow.connect(self._fill_snooze_menu)
        self.dismiss = self.add_button("Dis&miss…", "delete", self.delete_selected,
                                       tooltip="Not wanted: never bring it up (Delete)")

    def columns(self) -> Sequence[Column[FollowUp]]:
        return FOLLOW_UP_COLUMNS

    def load_records(self, query: str, choice: str | None) -> Sequence[FollowUp]:
        return follow_ups.list_follow_ups(self.ctx.hearth, choice)

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        return record.status == "open"  # every answer is for open follow-ups only

    # --- answers ---------------------------------------------------------------------------

    def delete_selected(self) -> None:
        """Delete (the key) dismisses: the follow-up leaves the open list, kept as dismissed."""
        item = self.selected()
        if item is None or item.status != "open":
            return
        if not confirm.ask(self, "Dismiss follow-up",
                           f"Dismiss “{item.text}”?\n\nHearth will not bring it up again. "
                           "It stays listed under Dismissed.", action="Dismiss"):
            return
        item_id, hearth = item.id, self.ctx.hearth
        self.change("Dismissing a follow-up", lambda: follow_ups.dismiss(hearth, item_id),
                    lambda _: "Follow-up dismissed.")

    def snooze_until(self, until: datetime) -> None:
        item = self.selected()
        if item is None:
            return
        item_id, hearth = item.id, self.ctx.hearth
        self.change("Snoozing a follow-up", lambda: follow_ups.snooze(hearth, item_id, until),
                    lambda changed: f"Snoozed until {local_time(changed.follow_up_at)}.")

    def _resolve(self) -> None:
        item = self.selected()
        if item is None:
            return
        item_id, hearth = item.id, self.ctx.hearth
        self.change("Marking a follow-up done", lambda: follow_ups.resolve(hearth, item_id),
                    lambda _: "Follow-up marked done.")

    def _show_snooze_menu(self) -> None:
        self.snooze_menu.popup(self.snooze.mapToGlobal(self.snooze.rect().bottomLeft()))

    def _fill_snooze_menu(self) -> None:
        """Built as it opens, so "in an hour" means an hour from now."""
        self.snooze_menu.clear()
        for label, until in snooze_choices(local_now()):
            action = QAction(f"{label} ({local_time(until)})", self.snooze_menu)
            action.triggered.connect(lambda _=False, when=until: self.snooze_until(when))
            self.snooze_menu.addAction(action)
        self.snooze_menu.addSeparator()
        self.snooze_menu.addAction("Pick a date and time…", self._pick_snooze)

    def _pick_snooze(self) -> None:
        item = self.selected()
        start = snooze_choices(local_now())[1][1]
        if item is not None and item.follow_up_at is not None:
            start = max(start, item.follow_up_at.astimezone())
        dialog = SnoozeDialog(start, self)
        if dialog.exec() == SnoozeDialog.DialogCode.Accepted:
            self.snooze_until(dialog.until())
