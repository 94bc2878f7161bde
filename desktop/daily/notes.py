"""Notes: the user's notes and the assistant's (chat summaries, marked), pinned first, with
search over title and content, an editor, pin/unpin and delete (with Undo, for a while);
and, under "Imported notes", the notes brought in from a notes folder (File → Import…),
read as words and not edited here: they live in the notes app they came from, and
importing the folder again brings their changes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from html import escape
from typing import Any

from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QPushButton, QWidget

from core.operations import notes
from core.operations.changes import Domain
from core.operations.done import Done
from core.operations.deleted import DeletedItem
from core.operations.notes import ImportedNote, NoteItem
from desktop.context import AppContext
from desktop.daily.editor import RecordEditor
from desktop.daily.list_page import ListEditorPage
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column

PINNED = "★"


IMPORTED = "imported"
"""The filter's value for the notes imported from a notes folder."""


def author(note: NoteItem | ImportedNote) -> str:
    if isinstance(note, ImportedNote):
        return "Your notes folder"
    return "Assistant" if note.session_id is not None else "You"


def pinned(note: NoteItem | ImportedNote) -> bool:
    return isinstance(note, NoteItem) and note.pinned


def changed(note: NoteItem | ImportedNote) -> datetime:
    return note.created_at if isinstance(note, ImportedNote) else note.updated_at


NOTE_COLUMNS: tuple[Column[NoteItem | ImportedNote], ...] = (
    Column("", lambda note: PINNED if pinned(note) else "", lambda note: not pinned(note)),
    Column("Title", lambda note: note.title),
    Column("By", author),
    Column("Changed", lambda note: local_time(changed(note)),
           lambda note: -time_key(changed(note))),
)


class NoteEditor(RecordEditor):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLineEdit()
        self.title.setPlaceholderText("Title")
        self.content = QPlainTextEdit()
        self.content.setPlaceholderText("Write the note here.")
        self.form.addRow("&Title:", self.title)
        self.form.addRow("&Content:", self.content)
        self.watch(self.title, self.content)

    def fill(self, record: NoteItem | ImportedNote | None) -> None:
        imported = isinstance(record, ImportedNote)
        for field in (self.title, self.content):
            field.setReadOnly(imported)
        for button in (self.save, self.delete):
            button.setVisible(not imported)
        self.title.setText("" if record is None else record.title)
        if isinstance(record, ImportedNote):
            self.content.setPlainText(record.text)
            self.heading.setText(
                f"Imported from your notes folder ({escape(record.path)}). Change it in "
                "the app you write your notes in: importing the folder again (File → "
                "Import…) brings the change.")
            return
        self.content.setPlainText("" if record is None else record.content)
        if record is None:
            self.heading.setText("<b>New note</b>")
        elif record.session_id is not None:
            made = ("a summary of a chat" if record.title.startswith("Summary:")
                    else "saved in a chat")
            self.heading.setText(f"Written by the assistant: {made}. Edit it like any note.")
        else:
            self.heading.setText(f"Your note, last changed {local_time(record.updated_at)}.")


class NotesPage(ListEditorPage):
    key = "notes"
    title = "Notes"
    icon_name = "notes"
    about = "Your notes, and the assistant's summaries of chats; pinned ones first."
    search_hint = "Search notes"
    noun = "note"
    empty_text = ("No notes yet. Write one on the right and press Save (Ctrl+S); notes the "
                  "assistant makes in a chat appear here too, and those imported from a "
                  "notes folder under “Imported notes”.")
    domains = frozenset({Domain.NOTES, Domain.MEMORIES})  # imported notes are memories
    filter_choices = (("Your notes and Hearth's", None), ("Imported notes", IMPORTED))

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.pin_button: QPushButton = self.add_button("&Pin", None, self.toggle_pin,
                                                       tooltip="Keep it at the top")
        self.add_button("&New note", "add", self.start_new, needs_selection=False,
                        tooltip="Write a new note (Ctrl+N)")
        self.editor.delete.setText("&Delete")  # no question first: it can be undone
        self.keep_order()

    def make_editor(self) -> RecordEditor:
        return NoteEditor()

    def columns(self) -> Sequence[Column[NoteItem | ImportedNote]]:
        return NOTE_COLUMNS

    def load_records(self, query: str, choice: str | None
                     ) -> Sequence[NoteItem] | Sequence[ImportedNote]:
        hearth = self.ctx.hearth
        if choice == IMPORTED:
            return notes.imported(hearth, query)
        return notes.search(hearth, query) if query else notes.list_notes(hearth)

    def show_detail(self, record: Any | None) -> None:
        super().show_detail(record)
        self.pin_button.setText("Un&pin" if record is not None and pinned(record)
                                else "&Pin")

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        return not (button is self.pin_button and isinstance(record, ImportedNote))

    def save_job(self, record: NoteItem | None) -> Callable[[], Done[NoteItem]]:
        assert isinstance(self.editor, NoteEditor)
        hearth = self.ctx.hearth
        title, content = self.editor.title.text(), self.editor.content.toPlainText()
        if record is None:
            return lambda: notes.add(hearth, title, content)
        note_id = record.id
        return lambda: notes.edit(hearth, note_id, title=title, content=content)

    def delete_selected(self) -> None:
        """Delete the note on show, asking nothing: the bar above the list offers Undo."""
        record = self.editor.record
        if record is None:
            return
        hearth, note_id = self.ctx.hearth, record.id

        def deleted(item: DeletedItem) -> str:
            self.editor.load(None)
            return self.offer_undo(item)

        self.change("Deleting a note", lambda: notes.delete(hearth, note_id), deleted)

    def describe(self, record: NoteItem) -> str:
        return f"the note “{record.title}”"

    def toggle_pin(self) -> None:
        record = self.selected()
        if record is None:
            return
        hearth, note_id, pinned = self.ctx.hearth, record.id, not record.pinned
        self.change("Pinning a note", lambda: notes.pin(hearth, note_id, pinned),
                    lambda _: "Pinned." if pinned else "Unpinned.")
