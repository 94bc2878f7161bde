"""Read later: saved articles with their URL (a link the user's browser opens; Hearth
itself never fetches it), the user's note, tags, status and the model's summary when there
is one. Filter by status, search, add by hand or by dropping a link or text on the view."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QLabel, QLineEdit, QPlainTextEdit, QPushButton, QWidget

from core.operations import read_later
from core.operations.changes import Domain
from core.operations.done import Done
from core.operations.read_later import ReadLaterEntry
from desktop.context import AppContext
from desktop.daily.editor import RecordEditor
from desktop.daily.list_page import ListEditorPage
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column

LATER_COLUMNS: tuple[Column[ReadLaterEntry], ...] = (
    Column("Status", lambda item: item.status),
    Column("Title", lambda item: item.title or item.url),
    Column("Tags", lambda item: ", ".join(item.tags)),
    Column("Saved", lambda item: local_time(item.created_at),
           lambda item: -time_key(item.created_at)),
)


def looks_like_url(text: str) -> bool:
    return text.strip().lower().startswith(("http://", "https://", "www."))


class ReadLaterEditor(RecordEditor):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.url = QLineEdit()
        self.url.setPlaceholderText("https://…")
        self.link = QLabel()
        self.link.setOpenExternalLinks(True)
        self.title = QLineEdit()
        self.title.setPlaceholderText("Optional")
        self.note = QLineEdit()
        self.note.setPlaceholderText("Why you saved it (optional)")
        self.text = QPlainTextEdit()
        self.text.setPlaceholderText("Paste the article's text here (optional): Hearth never "
                                     "fetches pages, so this is what it can read and tag.")
        self.tags = QLabel()
        self.tags.setWordWrap(True)
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.form.addRow("&URL:", self.url)
        self.form.addRow("", self.link)
        self.form.addRow("&Title:", self.title)
        self.form.addRow("Your &note:", self.note)
        self.form.addRow("Summary:", self.summary)
        self.form.addRow("Tags:", self.tags)
        self.form.addRow("Te&xt:", self.text)
        self.watch(self.url, self.title, self.note, self.text)

    def fill(self, record: ReadLaterEntry | None) -> None:
        self.url.setText("" if record is None else record.url)
        self.url.setReadOnly(record is not None)  # the link is what was saved
        self.title.setText("" if record is None else record.title)
        self.note.setText("" if record is None else record.note)
        self.text.setPlainText("" if record is None else record.text)
        self.link.setText("" if record is None else
                          f'<a href="{escape(record.url, quote=True)}">Open in your browser</a>')
        self.tags.setText("" if record is None else ", ".join(record.tags) or "none yet")
        self.summary.setText("" if record is None or not record.summary else record.summary)
        self.summary.setVisible(record is not None and bool(record.summary))
        label = self.form.labelForField(self.summary)
        if label is not None:
            label.setVisible(self.summary.isVisible())
        self.heading.setText("<b>Save an article</b> (or drop a link or text here)"
                             if record is None else
                             f"<b>{escape(record.status.capitalize())}</b> · saved "
                             f"{local_time(record.created_at)}")


class ReadLaterPage(ListEditorPage):
    key = "read_later"
    title = "Read later"
    icon_name = "later"
    about = "Articles you saved to read later, with your notes and tags."
    search_hint = "Search saved articles"
    noun = "article"
    sort_column = 3  # newest first
    empty_text = ("Nothing saved here. Add an article with Add… (Ctrl+N), or drop a link "
                  "or some text on this view.")
    filter_choices = (("Unread", "unread"), ("Read", "read"), ("Archived", "archived"),
                      ("All", None))
    domains = frozenset({Domain.READ_LATER})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.read_button = self.add_button("Mark &read", None, lambda: self.mark("read"))
        self.archive_button = self.add_button("&Archive", None, lambda: self.mark("archived"))
        self.unread_button = self.add_button("Mark &unread", None, lambda: self.mark("unread"))
        self.add_button("&Add…", "add", self.start_new, needs_selection=False,
                        tooltip="Save a new article (Ctrl+N)")
        self.setAcceptDrops(True)

    def make_editor(self) -> RecordEditor:
        return ReadLaterEditor()

    def columns(self) -> Sequence[Column[ReadLaterEntry]]:
        return LATER_COLUMNS

    def load_records(self, query: str, choice: str | None) -> Sequence[ReadLaterEntry]:
        hearth = self.ctx.hearth
        if not query:
            return read_later.list_items(hearth, choice)
        return [item for item in read_later.search(hearth, query)
                if choice is None or item.status == choice]

    def selection_allows(self, button: QPushButton, record: Any) -> bool:
        target = {self.read_button: "read", self.archive_button: "archived",
                  self.unread_button: "unread"}.get(button)
        return target is None or record.status != target

    def save_job(self, record: ReadLaterEntry | None) -> Callable[[], Done[ReadLaterEntry]]:
        editor = self.editor
        assert isinstance(editor, ReadLaterEditor)
        hearth = self.ctx.hearth
        title, note, text = editor.title.text(), editor.note.text(), editor.text.toPlainText()
        if record is None:
            url = editor.url.text()
            return lambda: read_later.add(hearth, url, title=title, note=note, text=text)
        item_id = record.id
        return lambda: read_later.edit(hearth, item_id, title=title, note=note, text=text)

    def delete_job(self, record: ReadLaterEntry) -> Callable[[], Done[ReadLaterEntry]]:
        hearth, item_id = self.ctx.hearth, record.id
        return lambda: read_later.delete(hearth, item_id)

    def describe(self, record: ReadLaterEntry) -> str:
        return f"“{record.title or record.url}”"

    def mark(self, status: str) -> None:
        record = self.selected()
        if record is None:
            return
        hearth, item_id = self.ctx.hearth, record.id
        self.change(f"Marking an article {status}",
                    lambda: read_later.mark(hearth, item_id, status),
                    lambda _: f"Marked {status}.")

    # --- dropping a link or text -------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 (Qt's name)
        if event.mimeData().hasUrls() or event.mimeData().hasText():
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 (Qt's name)
        """Start a new article from what was dropped: a link fills the URL, other text the
        article's text (a link written as text counts as a link)."""
        data = event.mimeData()
        urls = [url.toString() for url in data.urls() if not url.isLocalFile()]
        text = data.text().strip() if data.hasText() else ""
        self.prefill(urls[0] if urls else text if looks_like_url(text) else "",
                     "" if urls or looks_like_url(text) else text)
        event.acceptProposedAction()

    def prefill(self, url: str, text: str) -> None:
        editor = self.editor
        assert isinstance(editor, ReadLaterEditor)
        self.new_item()
        editor.url.setText(url)
        editor.text.setPlainText(text)
        (editor.title if url else editor.url).setFocus()
