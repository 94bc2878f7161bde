"""The "why" of a reply: the facts, memories and summaries the model was given for it.

The first screen says in plain words what was used and lists it; the precise internals
(retrieval scores, token counts, where each item came from) are one click away behind
"Details". For a fact, memory, note or summary the user can see whether it mattered:
"Answer again without this" asks the model once more with that item left out (the page
runs it; nothing is saved or learned) and the other answer appears under the list, with
"Fix or forget…" beside it. The items come from ``core.views.reply_context`` (read in the
background by the page); an item deleted or edited since the reply says so, because the
panel shows it as it is now."""

from __future__ import annotations

import re

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QPalette, QStandardItem, QStandardItemModel
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTextBrowser,
    QToolButton,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from core.operations.chats import LEAVABLE, UsedItem, group_title, kinds_in
from desktop.chat.markdown import render_markdown
from desktop.chat.transcript import RENDER_INTERVAL_MS
from desktop.words import count, listing, spaced, spoken

ITEM_ROLE = Qt.ItemDataRole.UserRole
COLUMNS = ("Item", "Score", "Tokens")
DETAIL_COLUMNS = (1, 2)
PREVIEW_CHARS = 90
NOUNS: dict[str, tuple[str, str]] = {
    "fact": ("fact", "facts"),
    "memory": ("memory", "memories"),
    "summary": ("summary of an earlier chat", "summaries of earlier chats"),
    "note": ("note", "notes"),
    "about_you": ("what it knows about you", "what it knows about you"),
    "working_memory": ("what is on your mind lately", "what is on your mind lately"),
    "notes_about_you": ("its notes about you", "its notes about you"),
    "habit": ("habit it keeps with you", "habits it keeps with you"),
    "compaction_summary": ("the summary of this chat", "the summary of this chat"),
    "history": ("earlier message", "earlier messages"),
}
"""How the plain summary names what a reply used, by kind (singular, plural)."""


HEADING_MARKS = re.compile(r"^#+[ \t]*", re.MULTILINE)
FIX_VIEWS = {"fact": "facts", "memory": "memories"}
"""The view that corrects or forgets an item, by kind; "Fix or forget…" opens it with the
item selected."""
FIX_TIP = "Open this item, selected, in the view where it can be corrected or forgotten"
FIX_ELSEWHERE = {
    "summary": "A summary of an earlier chat goes when that chat is deleted (in the list "
               "of chats); no view edits it on its own",
    "note": "Notes have no view of their own to correct them in yet",
}
"""Why "Fix or forget…" is grey for kinds no view lists."""


def used_sentence(items: list[UsedItem]) -> str:
    """``This reply used 1 fact, 2 memories and 3 earlier messages.``"""
    parts = []
    for kind in kinds_in(items):
        number = sum(1 for item in items if item.kind == kind)
        one, many = NOUNS.get(kind, (kind, kind))
        parts.append(count(number, one, many) if one != many else one)
    return f"This reply used {listing(parts)}."


def _plain(item: UsedItem, text: str) -> str:
    """An item's text in the window's words: a fact's key as in Facts ("home_city: Porto"
    reads "home city: Porto"), an imported turn with who said it ("You said: …"), About
    you without its Markdown heading marks ("## Personal")."""
    if item.kind == "fact":
        key, colon, value = text.partition(": ")
        return f"{spaced(key)}{colon}{value}"
    if item.kind == "about_you":
        return HEADING_MARKS.sub("", text)
    return spoken(text, item.speaker)


def _summary_line(item: UsedItem) -> str:
    if not item.exists:
        return "(deleted since)"
    flat = " ".join(_plain(item, item.passage or item.text).split())
    shown = flat if len(flat) <= PREVIEW_CHARS else flat[:PREVIEW_CHARS].rstrip() + "…"
    return f"… {shown}" if item.passage else shown


def _cell(text: str, *, right: bool = False) -> QStandardItem:
    cell = QStandardItem(text)
    cell.setEditable(False)
    if right:
        cell.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
    return cell


class WhyPanel(QWidget):
    """A tree of what a reply used (grouped by kind) over a detail pane for the selection.

    ``without_requested(item)`` asks for the reply again without one item;
    ``fix_requested(item)`` asks to open where that item can be edited or forgotten."""

    closed = Signal()
    without_requested = Signal(object)
    fix_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("why-panel")
        self.model = QStandardItemModel(0, len(COLUMNS), self)
        self.model.setHorizontalHeaderLabels(list(COLUMNS))
        self.tree = QTreeView()
        self.tree.setModel(self.model)
        self.tree.setUniformRowHeights(True)
        self.tree.setAlternatingRowColors(True)
        self.tree.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        for column in (1, 2):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.selectionModel().currentRowChanged.connect(self._show_detail)
        self.title = QLabel("<b>Why this reply</b>")
        self.summary = QLabel()
        self.summary.setWordWrap(True)
        self.summary.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.close_button = close = QToolButton()
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Close this panel")
        close.clicked.connect(self._close)
        self.detail = QLabel()
        self.detail.setWordWrap(True)
        self.detail.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setMargin(6)
        self.details_button = QToolButton()
        self.details_button.setText("Details")
        self.details_button.setCheckable(True)
        self.details_button.setArrowType(Qt.ArrowType.RightArrow)
        self.details_button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.details_button.setAutoRaise(True)
        self.details_button.setToolTip("Show scores, sizes and where each item came from")
        self.details_button.toggled.connect(self._show_details)
        self.without_button = QPushButton("Answer again without this")
        self.without_button.setToolTip("See what the reply would say if the assistant had "
                                       "not been given this item (nothing is saved)")
        self.without_button.clicked.connect(self._ask_without)
        self.fix_button = QPushButton("Fix or forget…")
        self.fix_button.setToolTip(FIX_TIP)
        self.fix_button.clicked.connect(self._ask_fix)
        actions = QHBoxLayout()
        actions.addWidget(self.without_button)
        actions.addWidget(self.fix_button)
        actions.addStretch(1)
        self.alternative_title = QLabel()
        self.alternative_title.setWordWrap(True)
        self.alternative = QTextBrowser()
        self.alternative.setOpenExternalLinks(True)
        for widget in (self.alternative_title, self.alternative):
            widget.setVisible(False)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.detail)
        lower_layout.addLayout(actions)
        lower_layout.addWidget(self.alternative_title)
        lower_layout.addWidget(self.alternative, 1)
        top = QHBoxLayout()
        top.addWidget(self.title, 1)
        top.addWidget(self.details_button)
        top.addWidget(close)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.tree)
        split.addWidget(lower)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 2)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(8, 8, 8, 8)
        layout.addLayout(top)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        self.items: list[UsedItem] = []
        self._alternative_text = ""
        self._render_timer = QTimer(self, singleShot=True, interval=RENDER_INTERVAL_MS)
        self._render_timer.timeout.connect(self._render_alternative)
        self._logged = True  # False: the reply has no record of what it was given
        self._show_details(False)
        self._select(None)

    @property
    def details_shown(self) -> bool:
        return self.details_button.isChecked()

    def _show_details(self, shown: bool) -> None:
        self.details_button.setArrowType(Qt.ArrowType.DownArrow if shown
                                         else Qt.ArrowType.RightArrow)
        for column in DETAIL_COLUMNS:
            self.tree.setColumnHidden(column, not shown)
        self.tree.setHeaderHidden(not shown)
        self._show_summary()
        self._select(self.selected)

    @property
    def selected(self) -> UsedItem | None:
        item = self.tree.currentIndex().siblingAtColumn(0).data(ITEM_ROLE)
        return item if isinstance(item, UsedItem) else None

    def show_loading(self) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self.items = []
        self._logged = True
        self.summary.setText("Reading what this reply was given…")
        self.clear_alternative()
        self._select(None)

    def show_items(self, items: list[UsedItem] | None) -> None:
        """Fill the tree; None means the reply has no record of its context."""
        self.clear_alternative()
        self._fill(items)

    def update_items(self, items: list[UsedItem] | None) -> None:
        """The same reply's items read again after memory changed (an item deleted or
        edited since says so now): the selection and an answer without an item stay."""
        chosen = self.selected
        self._fill(items)
        if chosen is not None:
            self._reselect((chosen.kind, chosen.id))

    def _reselect(self, identity: tuple[str, int | None]) -> None:
        for group in range(self.model.rowCount()):
            parent = self.model.index(group, 0)
            for row in range(self.model.rowCount(parent)):
                index = self.model.index(row, 0, parent)
                item = index.data(ITEM_ROLE)
                if isinstance(item, UsedItem) and (item.kind, item.id) == identity:
                    self.tree.setCurrentIndex(index)
                    return

    def _fill(self, items: list[UsedItem] | None) -> None:
        self.model.removeRows(0, self.model.rowCount())
        self.items = list(items or [])
        self._logged = items is not None
        self._select(None)
        self._show_summary()
        if items is None:
            return
        for kind in kinds_in(self.items):
            group = [item for item in self.items if item.kind == kind]
            parent = _cell(f"{group_title(kind)} ({len(group)})")
            for item in group:
                score = "" if item.score is None else f"{item.score:.3f}"
                first = _cell(_summary_line(item))
                first.setData(item, ITEM_ROLE)
                first.setToolTip(_plain(item, item.text))
                parent.appendRow([first, _cell(score, right=True),
                                  _cell(str(item.tokens), right=True)])
            self.model.appendRow([parent, _cell(""), _cell("")])
        self.tree.expandAll()

    def _show_summary(self) -> None:
        if not self._logged:
            self.summary.setText("No record of what this reply was given: the model was not "
                                 "asked (a request held for your Confirm), or the turn failed "
                                 "before its prompt was built.")
        elif not self.items:
            self.summary.setText("This reply was given nothing from memory.")
        else:
            tokens = sum(item.tokens for item in self.items)
            more = (f" About {tokens:,} tokens of the prompt." if self.details_shown
                    else " Select one to see it, or to see the answer without it.")
            self.summary.setText(used_sentence(self.items) + more)

    def _show_detail(self, current: QModelIndex, _previous: QModelIndex) -> None:
        item = current.siblingAtColumn(0).data(ITEM_ROLE)
        self._select(item if isinstance(item, UsedItem) else None)

    def _select(self, item: UsedItem | None) -> None:
        """Show the selected item; its buttons are enabled when they can act on it."""
        leavable = item is not None and item.exists and item.kind in LEAVABLE
        self.without_button.setEnabled(leavable and item is not None and item.id is not None)
        self.fix_button.setEnabled(leavable and item is not None and item.kind in FIX_VIEWS
                                   and item.id is not None)
        self.fix_button.setToolTip(FIX_ELSEWHERE.get(item.kind, FIX_TIP) if item else FIX_TIP)
        if item is None:
            self.detail.clear()
            return
        self.detail.setText(self._describe(item))

    def _describe(self, item: UsedItem) -> str:
        notes = [item.provenance]
        if item.changed:
            notes.append("Edited since this reply: the model saw an earlier version.")
        if item.score is not None:
            notes.append(f"Retrieval score {item.score:.3f}; {item.tokens} tokens.")
        else:
            notes.append(f"Always included; {item.tokens} tokens.")
        said = _plain(item, item.text)
        shown = [said or "(deleted since this reply)"]
        if item.passage is not None:  # what the model saw first: a long text is cut below
            cut = item.passage.endswith("…")  # already marked as cut short
            shown = [f"The model was given the part that matched:\n… {item.passage}"
                     f"{'' if cut else ' …'}",
                     f"From:\n{said}"]
        if not self.details_shown:  # the internals wait behind "Details"
            notes = notes[1:2] if item.changed else []
        return "\n\n".join([*shown, *notes])

    # --- the answer without an item ----------------------------------------------------------

    def _ask_without(self) -> None:
        item = self.selected
        if item is not None:
            self.without_requested.emit(item)

    def _ask_fix(self) -> None:
        item = self.selected
        if item is not None:
            self.fix_requested.emit(item)

    def start_alternative(self, item: UsedItem) -> None:
        """The answer without ``item`` is on its way: it streams in under the list."""
        self._alternative_text = ""
        self.alternative.clear()
        self.alternative_title.setText(f"<b>Without “{_summary_line(item)}”</b>, the reply "
                                       "would be (not saved):")
        self.alternative_title.setTextFormat(Qt.TextFormat.RichText)
        self.alternative_title.setVisible(True)
        self.alternative.setVisible(True)
        self.alternative.setPlaceholderText("Answering…")

    def add_alternative(self, text: str) -> None:
        """Add a streamed piece; the view catches up within ``RENDER_INTERVAL_MS`` (one
        Markdown pass per interval, as a reply in the chat, not one per token)."""
        self._alternative_text += text
        if not self._render_timer.isActive():
            self._render_timer.start()

    def _render_alternative(self) -> None:
        render_markdown(self.alternative.document(), self._alternative_text, self.palette())

    def end_alternative(self, note: str = "") -> None:
        """The answer is complete; ``note`` says why it is not (stopped, failed)."""
        self.alternative.setPlaceholderText(note or "The model gave an empty answer.")
        if note and self._alternative_text:
            self._alternative_text += f"\n\n*({note})*"
        self._render_timer.stop()
        self._render_alternative()

    def clear_alternative(self) -> None:
        self._render_timer.stop()
        self._alternative_text = ""
        self.alternative.clear()
        self.alternative_title.setVisible(False)
        self.alternative.setVisible(False)

    def _close(self) -> None:
        self.hide()
        self.closed.emit()
