"""What Notes, Journal and Read later share: a searchable list with an editor beside it.

The list is an inspector table (search in core, Ctrl+F, Delete asks first); the editor
(``desktop.daily.editor``) shows the selected record and writes it back. Writes run on the
window's write queue; a refusal (``InvalidInputError``) stays written under the editor's
fields, and the text typed is kept."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from core.operations.done import Done
from desktop.context import AppContext
from desktop.daily.editor import RecordEditor
from desktop import confirm
from desktop.inspector.table_page import TablePage


class ListEditorPage(TablePage):
    """Subclasses give ``make_editor``, ``save_job``, ``delete_job`` and ``describe``."""

    search_in_core = True
    noun: ClassVar[str] = "item"
    empty_text: ClassVar[str] = ""
    """What to do when there is nothing yet (shown above the list while it is empty)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        self.editor = self.make_editor()
        super().__init__(ctx, parent)
        self.editor.save_requested.connect(self.save_editor)
        self.editor.new_requested.connect(self.start_new)
        self.editor.delete_requested.connect(self.delete_selected)
        self.editor.load(None)
        self.empty = QLabel()
        self.empty.setWordWrap(True)
        self.empty.setObjectName("empty-state")
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty.hide()
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(1, self.empty)

    # --- for subclasses ----------------------------------------------------------------------

    def make_editor(self) -> RecordEditor:
        raise NotImplementedError

    def save_job(self, record: Any | None) -> Callable[[], Done[Any]]:
        """Read the editor (UI thread) and return the add (``record`` None) or edit."""
        raise NotImplementedError

    def delete_job(self, record: Any) -> Callable[[], Done[Any]]:
        raise NotImplementedError

    def describe(self, record: Any) -> str:
        """The record in a few words, for the question before deleting it."""
        raise NotImplementedError

    # --- the table's detail pane -------------------------------------------------------------

    def detail_widget(self) -> QWidget:
        return self.editor

    def show_detail(self, record: Any | None) -> None:
        """Show the selected record, unless that would drop unsaved typing: a reload keeps
        the editor as it is, and choosing another record asks first (no: back to it)."""
        if self.editor.keeps(record):
            return
        if self.editor.dirty and not confirm.ask(
                self, "Unsaved changes", f"Discard what you changed in this {self.noun}?",
                action="Discard"):
            shown = self.editor.record
            QTimer.singleShot(0, self.view.clearSelection if shown is None
                              else lambda: self.select(shown.id))
            return
        self.editor.load(record)

    def show_loaded(self, result: Sequence[Any]) -> None:
        super().show_loaded(result)
        query = self.search.text().strip()
        self.empty.setText(f"Nothing matches “{query}”." if query else self.empty_text)
        self.empty.setVisible(not result)

    def new_item(self) -> bool:
        """Ctrl+N, or New: empty fields for a new record."""
        if self.editor.dirty and not confirm.ask(
                self, "Unsaved changes", f"Discard what you changed in this {self.noun}?",
                action="Discard"):
            return True
        self.view.clearSelection()
        self.editor.load(None)
        self.editor.focus_first()
        return True

    def start_new(self) -> None:
        self.new_item()

    # --- writing -----------------------------------------------------------------------------

    def save_editor(self) -> None:
        record = self.editor.record
        self.write(f"Saving the {self.noun}", self.save_job(record), reveal=True,
                   said="Saved.")

    def delete_selected(self) -> None:
        record = self.editor.record
        if record is None:
            return
        if confirm.ask(self, f"Delete {self.noun}",
                       f"Delete {self.describe(record)}?\n\nIt cannot be brought back."):
            self.write(f"Deleting a {self.noun}", self.delete_job(record), reveal=False,
                       said="Deleted.")

    def write(self, name: str, job: Callable[[], Done[Any]], *, reveal: bool,
              said: str) -> None:
        """Run ``job``; on success show what was stored (selected, if ``reveal``; the other
        views follow the change feed); on failure say why under the editor."""

        def succeeded(done: Done[Any]) -> None:
            if reveal:
                self.editor.load(done.value)
                self.reveal(done.value.id)
            else:
                self.editor.load(None)
            self.ctx.hub.status_message.emit(said)

        def failed(message: str, hint: str) -> None:
            self.editor.notice.show_error(message, hint)
            self.show_error(message, hint)

        self.ctx.workers.start(name, lambda _task: job(), on_done=succeeded, on_failed=failed,
                               owner=self, writes=True)

    def keep_order(self) -> None:
        """Show rows in the order core gave (best match, pinned first) until a header click."""
        self.view.sortByColumn(-1, Qt.SortOrder.AscendingOrder)
