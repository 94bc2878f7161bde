"""Facts: every permanent fact in a table the user can correct.

Value and category are edited in place (F2 or a double click); the save goes through
``core.operations.facts.remember`` (saved as the user's), so the old value lands in the
fact's history and the next system prompt, which is rebuilt from the facts on every turn,
already says the new one. The pane beside the table shows the selected fact and its earlier
values.

Two different acts, named so they cannot be confused:

* **Delete** (the Delete key) removes the fact alone, with its earlier values: nothing else
  changes, no question is asked, and the bar above the table offers Undo until the entry's
  undo ends (``core.operations.facts.delete``);
* **Erase everywhere…** first lists, in the background, every place the fact's values are
  kept, with the words around them (``EraseDialog``); the person unticks what to keep
  (another fact is never rewritten unless ticked), and the erase (``core.forgetting``) then
  runs in the background (``core.operations.facts.forget``); ``ForgetResultDialog`` says
  what it removed and what it left, and offers to remove it from the backups that still
  hold it. It cannot be undone, and both dialogs say so."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.operations import facts
from core.operations.changes import Domain
from core.operations.facts import (
    CATEGORIES,
    DeletedItem,
    EarlierValue,
    Fact,
    FactChange,
    Forgotten,
    ForgetPreview,
)
from desktop.context import AppContext
from desktop.inspector.erase_dialog import EraseDialog, places_headline
from desktop.inspector.fact_dialog import FactDialog
from desktop.inspector.forget_dialog import ForgetResultDialog
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import ChoiceDelegate, Column, RowModel, make_table_view
from desktop.inspector.table_page import TablePage
from desktop.words import source_word, spaced

FACT_COLUMNS: tuple[Column[Fact], ...] = (
    Column("Key", lambda f: spaced(f.key)),  # "home city"; stored as home_city
    Column("Value", lambda f: f.value, field="value"),
    Column("Category", lambda f: f.category, field="category"),
    Column("Source", lambda f: source_word(f.source)),
    Column("Updated", lambda f: local_time(f.updated_at), lambda f: time_key(f.updated_at)),
)
CATEGORY_COLUMN = 2

HISTORY_COLUMNS: tuple[Column[EarlierValue], ...] = (
    Column("Earlier value", lambda h: h.value),
    Column("Source", lambda h: source_word(h.source)),
    Column("Replaced", lambda h: local_time(h.replaced_at)),
)


def _said(change: FactChange) -> str:
    if change.action == "unchanged":
        return f"“{spaced(change.key)}” already says that."
    return f"Fact “{spaced(change.key)}” {change.action}."


NOTHING_SELECTED = ("No fact selected",
                    "Select a fact to see it in full and the values it had before.")
NO_MATCH = ("No fact matches", "No fact matches the search or the category chosen.")
NO_FACTS = ("No facts yet", "Hearth learns facts as you chat (“I live in Porto”); you can "
            "also add one with Add… (Ctrl+Shift+A).")


class FactDetail(QWidget):
    """The selected fact in full, and the values it had before."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.heading = QLabel()
        font = self.heading.font()
        font.setBold(True)
        font.setPointSizeF(font.pointSizeF() * 1.15)
        self.heading.setFont(font)
        self.value = QLabel()
        self.value.setWordWrap(True)
        self.meta = QLabel()
        self.meta.setWordWrap(True)
        for label in (self.heading, self.value, self.meta):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.history: RowModel[EarlierValue] = RowModel(HISTORY_COLUMNS, lambda h: h.id, self)
        self.history_view = make_table_view(self.history, 0)
        self.history_caption = QLabel()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 0, 0, 0)
        for widget in (self.heading, self.value, self.meta, self.history_caption):
            layout.addWidget(widget)
        layout.addWidget(self.history_view, 1)
        layout.addStretch()  # takes the room while there is no history to list
        self.show_fact(None)

    def show_fact(self, fact: Fact | None, *, listed: int = 1, searched: bool = False
                  ) -> None:
        """Show ``fact``; with none, what to do, told by how many facts the list shows
        (``listed``) and whether a search or filter narrowed it (``searched``)."""
        self.history.set_rows([])
        self.history_view.hide()
        if fact is None:
            heading, hint = (NOTHING_SELECTED if listed else NO_MATCH if searched
                             else NO_FACTS)
            self.heading.setText(heading)
            self.value.setText(hint)
            self.meta.clear()
            self.history_caption.clear()
            return
        self.heading.setText(spaced(fact.key))
        self.heading.setToolTip(f"Stored as {fact.key} (the name `hearth facts` uses)")
        self.value.setText(fact.value)
        self.meta.setText(f"{fact.category} · from {source_word(fact.source)} · "
                          f"confidence {fact.confidence:.0%}\n"
                          f"first stored {local_time(fact.created_at)}, "
                          f"last changed {local_time(fact.updated_at)}")
        self.history_caption.setText("Loading earlier values…")

    def show_history(self, entries: Sequence[EarlierValue]) -> None:
        self.history.set_rows(list(reversed(entries)))  # newest first, under the current
        self.history_caption.setText(f"Earlier values ({len(entries)}), newest first:"
                                     if entries else "No earlier values: it has not changed.")
        self.history_view.setVisible(bool(entries))


class FactsPage(TablePage):
    key = "facts"
    title = "Facts"
    about = ("What Hearth knows about you for certain (your city, your work…); correct, "
             "delete or erase any of them.")
    icon_name = "facts"
    domains = frozenset({Domain.FACTS})
    search_in_core = True
    search_hint = "Search keys and values"
    filter_choices = (("All categories", None), *((c.capitalize(), c) for c in CATEGORIES))

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        self.detail = FactDetail()
        self.forget_result: ForgetResultDialog | None = None
        """The last erase's outcome, while it is shown (it holds the values until closed)."""
        self.erase_dialog: EraseDialog | None = None
        """The last choice of places to erase from (kept for tests to read)."""
        super().__init__(ctx, parent)
        categories = ChoiceDelegate(CATEGORIES, self)
        self.view.setItemDelegateForColumn(CATEGORY_COLUMN, categories)
        self.watch_editors(categories)
        self.add_button("&Add…", "add", self.add_fact, needs_selection=False,
                        tooltip="Add a fact (Ctrl+Shift+A)").setShortcut("Ctrl+Shift+A")
        self.add_button("&Delete", "delete", self.delete_selected,
                        tooltip="Delete the selected fact and its earlier values; nothing "
                                "else changes, and you can undo it (Delete)")
        self.add_button("&Erase everywhere…", None, self.erase_selected,
                        tooltip="Replace the fact's words in your chats, notes and memories "
                                "too, for good")
        self.model.edit_requested.connect(self._edited)

    # --- TablePage -------------------------------------------------------------------------

    def columns(self) -> Sequence[Column[Fact]]:
        return FACT_COLUMNS

    def load_records(self, query: str, choice: str | None) -> Sequence[Fact]:
        return facts.list_facts(self.ctx.hearth, query, choice)

    def detail_widget(self) -> QWidget:
        return self.detail

    def show_detail(self, record: Any | None) -> None:
        self.detail.show_fact(record, listed=self.proxy.rowCount(),
                              searched=bool(self.search.text().strip())
                              or self.filter.currentIndex() > 0)
        if record is None:
            return
        key, hearth = record.key, self.ctx.hearth

        def shown(entries: tuple[EarlierValue, ...]) -> None:
            current = self.selected()
            if current is not None and current.key == key:  # still the fact on show
                self.detail.show_history(entries)

        self.run(f"Loading the history of {key}", lambda _task: facts.fact_history(hearth, key),
                 shown)

    # --- actions ---------------------------------------------------------------------------

    def add_fact(self) -> None:
        dialog = FactDialog([f.key for f in self.model.records()], self)
        if dialog.exec() != FactDialog.DialogCode.Accepted:
            return
        key, value, category = dialog.values()
        hearth = self.ctx.hearth
        self.change("Adding a fact", lambda: facts.remember(hearth, key, value, category), _said)

    def delete_selected(self) -> None:
        """Delete the selected fact alone, with an undo (nothing asked: it can be undone)."""
        fact = self.selected()
        if fact is None:
            return
        key, hearth = fact.key, self.ctx.hearth

        def deleted(item: DeletedItem) -> str:
            return self.offer_undo(item, erase=lambda _item: self.erase(key))

        self.change(f"Deleting {spaced(key)}", lambda: facts.delete(hearth, key), deleted)

    def erase_selected(self) -> None:
        fact = self.selected()
        if fact is not None:
            self.erase(fact.key)

    def erase(self, key: str) -> None:
        """Erase the fact ``key`` everywhere, after listing each place its values are kept
        (also for a fact just deleted, until its undo ends)."""
        hearth = self.ctx.hearth
        self.run(f"Looking for {spaced(key)} everywhere",
                 lambda _task: facts.preview_forget(hearth, key), self._choose_places)

    def _choose_places(self, preview: ForgetPreview) -> None:
        dialog = EraseDialog(
            "Erase everywhere",
            places_headline(f"The value of “{spaced(preview.key)}” is", preview.found,
                            "the fact itself"), preview.found, self)
        self.erase_dialog = dialog
        key, hearth = preview.key, self.ctx.hearth

        def chosen() -> None:
            skip, include = dialog.choice()
            self.undo_bar.dismiss()  # an erased fact cannot come back
            self.change("Erasing a fact", lambda: facts.forget(hearth, key, skip, include),
                        self._forgotten)

        dialog.accepted.connect(chosen)
        dialog.open()

    def _forgotten(self, forgotten: Forgotten) -> str:
        """Show what was removed and what was left, with the offer to remove it from
        backups too (the chats that held the value reload through the erase's ``Changes``)."""
        self.forget_result = ForgetResultDialog.forgotten(forgotten, self.ctx.workers, self)
        self.forget_result.open()
        return f"Erased “{spaced(forgotten.report.key)}”; it cannot be brought back."

    def _edited(self, fact: Fact, field: str, text: str) -> None:
        """An inline edit: a new value (saved as the user's, the old one into history) or
        another category (the value stays as it is)."""
        key, hearth = fact.key, self.ctx.hearth
        if field == "category":
            self.change(f"Moving {key}", lambda: facts.recategorise(hearth, key, text), _said)
            return
        self.change(f"Saving {key}",
                    lambda: facts.remember(hearth, key, text, fact.category), _said)
