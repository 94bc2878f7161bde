"""About you: the narrative the assistant keeps about the user,
its versions, and what each changed.

The left side lists every version (newest first; the first is current). The right side
shows the selected version rendered as Markdown, and under *Changes* what it changed from the
version before it, as paragraphs with the added and removed words marked (the unified diff
is one tick away, for those who read diffs); select two versions (Ctrl+click) to compare
those two instead. *Edit* opens the current text; saving adds a version from the user.
*Restore* makes the selected version current again by copying it (nothing in the history is
lost, so a restore can itself be undone). With no version yet, the page says how one comes
about, in a wrapped label (a text box's placeholder does not wrap, and was cut off).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QStackedWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from core.app import Hearth
from core.operations import about_you
from core.operations.changes import Domain
from core.operations.about_you import (
    MAX_ABOUT_YOU_WORDS,
    AboutYouText,
    AboutYouVersionInfo,
    word_count,
)
from desktop.context import AppContext
from desktop.icons import icon
from desktop import confirm
from desktop.inspector.base import InspectorPage
from desktop.inspector.changes_view import ChangesView
from desktop.diff_view import DiffView
from desktop.inspector.formatting import local_time
from desktop.inspector.table import Column, RowModel, make_table_view
from desktop.inspector.text_changes import Paragraph, compare
from desktop.words import count, source_word

VERSION_COLUMNS: tuple[Column[AboutYouVersionInfo], ...] = (
    Column("Version", lambda v: f"v{v.id}"),
    Column("Source", lambda v: source_word(v.source)),
    Column("Words", lambda v: f"{v.words:,}"),
    Column("Saved", lambda v: local_time(v.created_at)),
)
EMPTY = ("Nothing here yet. Hearth writes a short portrait of you after your conversations "
         "(or now: Memory ▸ Reflect now), or write it yourself with Edit.")


@dataclass(frozen=True)
class Shown:
    """What the right side shows for a selection: one version's text, what changed (as
    paragraphs, and as core's unified diff), and what to say when nothing did."""

    version_id: int
    content: str
    changes: list[Paragraph]
    diff: str
    no_diff: str


def _read_selection(hearth: Hearth, chosen: list[int], older: int | None) -> Shown:
    """The newest chosen version's text, and what changed from the other chosen version
    (or from the version before it). Runs on a worker."""
    newest = max(chosen)
    base = min(chosen) if len(chosen) > 1 else older
    content = about_you.about_you_version(hearth, newest).content
    if base is None:
        return Shown(newest, content, [], "",
                     f"v{newest} is the first version: nothing before it.")
    return Shown(newest, content,
                 compare(about_you.about_you_version(hearth, base).content, content),
                 about_you.about_you_diff(hearth, base, newest),
                 f"v{base} and v{newest} have the same text.")


class AboutYouPage(InspectorPage):
    key = "about_you"
    title = "About you"
    about = ("A short portrait of you that Hearth writes from your conversations, with "
             "every earlier version.")
    icon_name = "about_you"
    domains = frozenset({Domain.ABOUT_YOU})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.versions: RowModel[AboutYouVersionInfo] = RowModel(VERSION_COLUMNS, lambda v: v.id,
                                                               self)
        self.table = make_table_view(self.versions, 1)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        self.table.setToolTip("Select two versions (Ctrl+click) to compare them.")
        self.edit_button = QPushButton(icon("about_you"), "&Edit")
        self.edit_button.setToolTip("Edit the current portrait of you (F2)")
        self.restore_button = QPushButton(icon("refresh"), "&Restore…")
        self.restore_button.setToolTip("Make the selected version the current one again")
        self.restore_button.setEnabled(False)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.viewer = QTextBrowser()
        self.viewer.setOpenExternalLinks(False)
        self.empty = QLabel(EMPTY)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.empty.setContentsMargins(8, 8, 8, 8)
        self.empty.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        self.empty.hide()
        self.editor = QPlainTextEdit()
        self.editor.setTabChangesFocus(True)
        self.words = QLabel()
        self.save_button = QPushButton("&Save")
        self.save_button.setToolTip("Save as a new version (Ctrl+S)")
        self.cancel_button = QPushButton("Cancel")
        self.changes = ChangesView()
        self.diff = DiffView()
        self.diff.hide()
        self.as_diff = QCheckBox("Show as a line-by-line &diff")
        self.as_diff.setToolTip("The same changes in unified diff form (+ added, - removed "
                                "lines), as `hearth reflect` prints them.")
        self.tabs = QTabWidget()
        self.stack = QStackedWidget()
        self._build()
        self._editing = False
        self.table.selectionModel().selectionChanged.connect(self._selection_changed)
        self.as_diff.toggled.connect(self._show_as_diff)
        self.edit_button.clicked.connect(self.start_editing)
        self.restore_button.clicked.connect(self.restore_selected)
        self.save_button.clicked.connect(self.save_edit)
        self.cancel_button.clicked.connect(self.stop_editing)
        self.editor.textChanged.connect(self._count_words)
        QShortcut(QKeySequence(Qt.Key.Key_F2), self, self.start_editing,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.StandardKey.Save, self.editor, self.save_edit,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_Escape), self.editor, self.stop_editing,
                  context=Qt.ShortcutContext.WidgetShortcut)

    def _build(self) -> None:
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        buttons = QHBoxLayout()
        buttons.addWidget(self.edit_button)
        buttons.addWidget(self.restore_button)
        buttons.addStretch()
        left_layout.addLayout(buttons)
        left_layout.addWidget(self.table, 1)

        editing = QWidget()
        editing_layout = QVBoxLayout(editing)
        editing_layout.setContentsMargins(0, 0, 0, 0)
        editing_layout.addWidget(self.editor, 1)
        bar = QHBoxLayout()
        bar.addWidget(self.words, 1)
        bar.addWidget(self.save_button)
        bar.addWidget(self.cancel_button)
        editing_layout.addLayout(bar)
        self.stack.addWidget(self.viewer)
        self.stack.addWidget(editing)
        changes = QWidget()
        changes_layout = QVBoxLayout(changes)
        changes_layout.setContentsMargins(0, 0, 0, 0)
        changes_layout.addWidget(self.changes, 1)
        changes_layout.addWidget(self.diff, 1)
        changes_layout.addWidget(self.as_diff)
        self.tabs.addTab(self.stack, "&Text")
        self.tabs.addTab(changes, "C&hanges")

        right = QWidget()
        right_layout = QVBoxLayout(right)
        right_layout.setContentsMargins(0, 0, 0, 0)
        right_layout.addWidget(self.caption)
        right_layout.addWidget(self.empty)
        right_layout.addWidget(self.tabs, 1)
        splitter = QSplitter(Qt.Orientation.Horizontal)
        splitter.setChildrenCollapsible(False)
        splitter.addWidget(left)
        splitter.addWidget(right)
        splitter.setSizes([340, 660])
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(splitter, 1)

    # --- loading -----------------------------------------------------------------------------

    def loader(self) -> Callable[[], tuple[AboutYouVersionInfo, ...]]:
        hearth = self.ctx.hearth
        return lambda: about_you.about_you_versions(hearth)

    def show_loaded(self, result: tuple[AboutYouVersionInfo, ...]) -> None:
        chosen = self.chosen_ids()
        old_current = self.versions.record(0).id if self.versions.rowCount() else None
        if chosen == [old_current]:  # reading the current one: follow it to the new current
            chosen = []
        self.versions.set_rows(result)
        self._show_empty(not result and not self._editing)
        if not result:
            self.viewer.clear()
            self.changes.show_message("No versions to compare yet.")
            self.diff.show_diff("", "No versions to compare yet.")
            self.caption.setText("")
            return
        # keep the choice if those versions still exist, else show the current one
        self.select_versions([vid for vid in chosen if self.versions.row_of(vid) is not None]
                             or [result[0].id])

    # --- the selection -----------------------------------------------------------------------

    def chosen_ids(self) -> list[int]:
        rows = sorted(index.row() for index in self.table.selectionModel().selectedRows())
        return [self.versions.record(row).id for row in rows]

    def select_versions(self, ids: list[int]) -> None:
        selection = self.table.selectionModel()
        selection.clearSelection()
        for vid in ids:
            row = self.versions.row_of(vid)
            if row is not None:
                selection.select(self.versions.index(row, 0),
                                 selection.SelectionFlag.Select | selection.SelectionFlag.Rows)

    def _selection_changed(self, *_args: object) -> None:
        chosen = self.chosen_ids()
        current = self.versions.records()[0].id if self.versions.rowCount() else None
        self.restore_button.setEnabled(len(chosen) == 1 and chosen[0] != current)
        if not chosen:
            return
        if len(chosen) > 2:
            self.caption.setText("Select one version to read it, or two to compare them.")
            return
        newest_row = self.versions.row_of(max(chosen))
        older = (self.versions.record(newest_row + 1).id
                 if newest_row is not None and newest_row + 1 < self.versions.rowCount()
                 else None)
        hearth = self.ctx.hearth

        def shown(result: Shown) -> None:
            if sorted(self.chosen_ids()) == sorted(chosen):
                self._show(result, current)

        self.run("Loading a version of About you",
                 lambda _task: _read_selection(hearth, chosen, older), shown)

    def _show(self, shown: Shown, current: int | None) -> None:
        info = self.versions.record(self.versions.row_of(shown.version_id) or 0)
        state = "current" if shown.version_id == current else "older version"
        self.caption.setText(f"v{info.id} · {state} · from {source_word(info.source)} · "
                             f"{count(info.words, 'word')} · {local_time(info.created_at)}")
        self.viewer.setMarkdown(shown.content)
        self.changes.show_changes(shown.changes, shown.no_diff)
        self.diff.show_diff(shown.diff, shown.no_diff)

    def _show_as_diff(self, as_diff: bool) -> None:
        self.diff.setVisible(as_diff)
        self.changes.setVisible(not as_diff)

    def _show_empty(self, empty: bool) -> None:
        """No version yet: the explanation takes the tabs' place (they would be blank)."""
        self.empty.setVisible(empty)
        self.tabs.setVisible(not empty)

    # --- editing -----------------------------------------------------------------------------

    def start_editing(self) -> None:
        """Edit the current profile (whatever version is being read)."""
        if self._editing:
            return
        hearth = self.ctx.hearth

        def opened(current: AboutYouText | None) -> None:
            self._editing = True
            self._show_empty(False)
            self.editor.setPlainText(current.content if current is not None else "")
            self.stack.setCurrentIndex(1)
            self.tabs.setCurrentIndex(0)
            self.edit_button.setEnabled(False)
            self.editor.setFocus()

        self.run("Opening the profile", lambda _task: about_you.current_about_you(hearth), opened)

    def stop_editing(self) -> None:
        self._editing = False
        self.stack.setCurrentIndex(0)
        self.edit_button.setEnabled(True)
        self._show_empty(self.versions.rowCount() == 0)

    def save_edit(self) -> None:
        text, hearth = self.editor.toPlainText(), self.ctx.hearth

        def saved(version: AboutYouText) -> str:
            self.stop_editing()
            return f"Profile saved as v{version.id}."

        self.change("Saving the profile", lambda: about_you.save_about_you(hearth, text), saved)

    def restore_selected(self) -> None:
        chosen = self.chosen_ids()
        if len(chosen) != 1:
            return
        version_id = chosen[0]
        if not confirm.ask(self, "Restore a version of About you",
                           f"Make v{version_id} the current profile again?\n\nIt is copied "
                           "into a new version; the versions after it stay in the history.",
                           action="Restore"):
            return
        hearth = self.ctx.hearth
        self.change("Restoring a profile version",
                    lambda: about_you.restore_about_you(hearth, version_id),
                    lambda version: f"v{version_id} restored as v{version.id}.")

    def _count_words(self) -> None:
        words = word_count(self.editor.toPlainText())
        over = (f" (over the {MAX_ABOUT_YOU_WORDS} a reflection keeps: it will shorten it)"
                if words > MAX_ABOUT_YOU_WORDS else "")
        self.words.setText(f"{count(words, 'word')}{over}. Markdown: # headings, - lists, "
                           "**bold**.")
