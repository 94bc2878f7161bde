"""The journal: entries by day, newest first, with search, a new-entry editor, edit and
delete; each says whether the nightly reflection has read it. "This week" shows the last
seven days' entries together (the weekly digest)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QWidget

from core.operations import journal
from core.operations.changes import Domain
from core.operations.done import Done
from core.operations.journal import JournalItem, WeekDigest
from desktop.context import AppContext
from desktop.daily.editor import RecordEditor
from desktop.daily.list_page import ListEditorPage
from desktop.daily.week_dialog import WeekDialog
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column
from desktop.workers import Task


def day_text(entry: JournalItem) -> str:
    local = entry.created_at.astimezone()
    return f"{local:%a} {local.day} {local:%b %Y, %H:%M}"


def headline(entry: JournalItem) -> str:
    """The model's title, or the entry's first line until it has one."""
    first = entry.content.strip().splitlines()[0] if entry.content.strip() else ""
    return entry.title or first


def reflected_text(entry: JournalItem) -> str:
    return ("not yet" if entry.reflected_at is None
            else f"yes, {entry.reflected_at.astimezone():%a %d %b}")


JOURNAL_COLUMNS: tuple[Column[JournalItem], ...] = (
    Column("Day", day_text, lambda entry: -time_key(entry.created_at)),
    Column("Entry", headline),
    Column("Reflected on", reflected_text),
)


class JournalEditor(RecordEditor):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLineEdit()
        self.title.setPlaceholderText("Optional: the assistant titles entries by itself")
        self.content = QPlainTextEdit()
        self.content.setPlaceholderText("What happened today, how it felt, what you think "
                                        "about it. Private: it is never sent anywhere.")
        self.form.addRow("&Entry:", self.content)
        self.form.addRow("&Title:", self.title)
        self.watch(self.title, self.content)

    def fill(self, record: JournalItem | None) -> None:
        self.title.setText("" if record is None else record.title or "")
        self.content.setPlainText("" if record is None else record.content)
        if record is None:
            self.heading.setText("<b>New entry</b>")
        else:
            read = ("Not read by a reflection yet." if record.reflected_at is None else
                    f"Included in the reflection of {local_time(record.reflected_at)}.")
            self.heading.setText(f"<b>{day_text(record)}</b> · {read}")


class JournalPage(ListEditorPage):
    key = "journal"
    title = "Journal"
    icon_name = "journal"
    about = "Your private journal; the nightly reflection reads new entries."
    search_hint = "Search the journal"
    noun = "entry"
    empty_text = ("No journal entries yet. Write how your day went on the right and press "
                  "Save (Ctrl+S); the nightly reflection reads new entries.")
    domains = frozenset({Domain.JOURNAL})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.add_button("&New entry", "add", self.start_new, needs_selection=False,
                        tooltip="Write a new entry (Ctrl+N)")
        self.add_button("This &week…", None, self.show_week, needs_selection=False,
                        tooltip="The last seven days' entries together, with the model's "
                        "short summary when one is running")

    def make_editor(self) -> RecordEditor:
        return JournalEditor()

    def columns(self) -> Sequence[Column[JournalItem]]:
        return JOURNAL_COLUMNS

    def load_records(self, query: str, choice: str | None) -> Sequence[JournalItem]:
        hearth = self.ctx.hearth
        return journal.search(hearth, query) if query else journal.list_entries(hearth)

    def save_job(self, record: JournalItem | None) -> Callable[[], Done[JournalItem]]:
        assert isinstance(self.editor, JournalEditor)
        hearth = self.ctx.hearth
        content, title = self.editor.content.toPlainText(), self.editor.title.text().strip()
        if record is None:
            return lambda: journal.add(hearth, content, title=title or None)
        entry_id = record.id
        return lambda: journal.edit(hearth, entry_id, content=content, title=title or None)

    def delete_job(self, record: JournalItem) -> Callable[[], Done[JournalItem]]:
        hearth, entry_id = self.ctx.hearth, record.id
        return lambda: journal.delete(hearth, entry_id)

    def describe(self, record: JournalItem) -> str:
        return f"the entry of {day_text(record)}"

    def show_week(self) -> None:
        """The weekly digest: the entries, with the model's summary when it gives one (a
        model call, so on a worker; the entries come whatever the model does)."""
        hearth, make_provider = self.ctx.hearth, self.ctx.provider

        def read(_task: Task) -> WeekDigest:
            provider = make_provider()
            try:
                return journal.digest(hearth, provider)
            finally:
                provider.close()

        self.run("Summing up the week's journal", read,
                 lambda digest: WeekDialog(digest, self).open())
