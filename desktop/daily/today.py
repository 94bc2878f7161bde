"""The Today view: what is overdue, due today, the reminders coming up, the follow-ups that
are due, undated tasks (folded) and what was done today, with a quick-add line on top.

Quick add reads the line as the chat's explicit requests are read ("renew passport by
Friday" is a task due Friday, "remind me at 5pm to call mum" a reminder) and says what it
understood before Enter adds it.

Keyboard: Ctrl+N quick add (the window's Ctrl+N asks the view in front first), Space ticks
the selected task done or not, Delete deletes (asks first), F2 edits, Ctrl+F filters the
rows, Ctrl+Z reopens the task last ticked. Tasks change from the chat's tools and the
scheduler too: the view reloads on any change to tasks, reminders or follow-ups."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from datetime import datetime, timedelta
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QAction, QFont, QKeySequence, QPalette, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.operations import follow_ups, quick_add, reminders, tasks, today
from core.operations.changes import Domain
from core.operations.quick_add import QuickAdd
from core.operations.reminders import ReminderItem
from core.operations.tasks import TaskItem
from core.operations.today import Today
from desktop.context import AppContext
from desktop.daily.check_outline import CheckOutlineDelegate
from desktop.daily.reminder_dialog import ReminderDialog
from desktop.daily.task_dialog import TaskDialog
from desktop.daily.today_rows import (
    SECTIONS,
    details_of,
    kind_of,
    section_records,
    title_of,
    when_of,
)
from desktop.icons import icon
from desktop import confirm
from desktop.inspector.base import InspectorPage
from desktop.inspector.snooze import local_now, snooze_choices

RECORD = Qt.ItemDataRole.UserRole
HINT_DELAY_MS = 200
REFRESH_MS = 5 * 60_000
"""While shown, the view reads itself again this often: "later today" and "overdue" move
with the clock even when nothing is written."""
EMPTY = ("Nothing for today. Type a task or a reminder in the line above and press Enter: "
         "“renew passport by Friday”, “remind me at 5pm to call mum”.")


class TodayPage(InspectorPage):
    key = "today"
    title = "Today"
    icon_name = "today"
    about = "Your tasks, reminders and follow-ups for today, with quick add."
    domains = frozenset({Domain.TASKS, Domain.REMINDERS, Domain.FOLLOW_UPS})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self._loaded: Today | None = None
        self._expanded: dict[str, bool] = {}
        self._filling = False
        self._last_done: int | None = None
        self._hint_generation = 0

        self.quick = QLineEdit()
        self.quick.setObjectName("quick-add")
        self.quick.setPlaceholderText("Add a task or a reminder: “renew passport by Friday”, "
                                      "“remind me at 5pm to call mum” (Ctrl+N)")
        self.quick.setClearButtonEnabled(True)
        self.hint = QLabel()
        self.hint.setObjectName("quick-add-hint")
        self.hint.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Filter (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.search.setMaximumWidth(240)
        self.edit_button = self._button("&Edit…", "rename", self.edit_selected,
                                        "Edit the selected task or reminder time (F2)")
        self.snooze_button = self._button("&Snooze", None, self._show_snooze_menu,
                                          "Later: the reminder or follow-up comes back")
        self.done_button = self._button("&Done", None, self.done_selected,
                                        "Tick the task done, or the follow-up (Space)")
        self.delete_button = self._button("De&lete…", "delete", self.delete_selected,
                                          "Delete the task, cancel the reminder, or dismiss "
                                          "the follow-up (Delete)")
        self.snooze_menu = QMenu(self)
        self.snooze_menu.aboutToShow.connect(self._fill_snooze_menu)
        self.tree = QTreeWidget()
        self.tree.setObjectName("today-tree")
        self.tree.setColumnCount(3)
        self.tree.setHeaderLabels(["What", "When", "Details"])
        self.tree.setUniformRowHeights(True)
        self.tree.setItemDelegate(CheckOutlineDelegate(self.tree))
        self.tree.setAlternatingRowColors(False)
        self.tree.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.tree.header()
        header.setStretchLastSection(True)
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 380)
        header.resizeSection(1, 190)
        self.empty = QLabel(EMPTY)
        self.empty.setWordWrap(True)
        self.empty.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.empty.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.empty.hide()

        actions = QHBoxLayout()
        for button in (self.done_button, self.edit_button, self.snooze_button,
                       self.delete_button):
            actions.addWidget(button)
        actions.addStretch(1)
        actions.addWidget(self.search)
        layout = QVBoxLayout(self)
        layout.addWidget(self.quick)
        layout.addWidget(self.hint)
        layout.addWidget(self.notice)
        layout.addLayout(actions)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.empty, 1)

        self._hint_timer = QTimer(self, singleShot=True, interval=HINT_DELAY_MS)
        self._hint_timer.timeout.connect(self._read_quick)
        self._clock = QTimer(self, interval=REFRESH_MS)
        self._clock.timeout.connect(self.refresh)
        self._clock.start()
        self.quick.textChanged.connect(self._quick_changed)
        self.quick.returnPressed.connect(self.add_quick)
        self.search.textChanged.connect(lambda _text: self._apply_filter())
        self.tree.itemChanged.connect(self._item_changed)
        self.tree.itemExpanded.connect(lambda item: self._remember(item, True))
        self.tree.itemCollapsed.connect(lambda item: self._remember(item, False))
        self.tree.itemSelectionChanged.connect(self._selection_changed)
        self.tree.itemDoubleClicked.connect(lambda _item, _column: self.edit_selected())
        shortcuts: list[tuple[QKeySequence | QKeySequence.StandardKey, QWidget,
                              Callable[[], None]]] = [
            (QKeySequence.StandardKey.Delete, self.tree, self.delete_selected),
            (QKeySequence(Qt.Key.Key_F2), self.tree, self.edit_selected),
            (QKeySequence(Qt.Key.Key_Escape), self.search, self.search.clear),
        ]
        for keys, widget, slot in shortcuts:
            QShortcut(keys, widget, slot, context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence.StandardKey.Find, self, self._focus_search,
                  context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.StandardKey.Undo, self.tree, self.undo_done,
                  context=Qt.ShortcutContext.WidgetShortcut)
        self._selection_changed()

    def _button(self, text: str, icon_name: str | None, slot: Callable[[], None],
                tooltip: str) -> QPushButton:
        button = QPushButton(text)
        if icon_name:
            button.setIcon(icon(icon_name))
        button.setToolTip(tooltip)
        button.clicked.connect(lambda _checked=False: slot())
        return button

    # --- the window's Ctrl+N ---------------------------------------------------------------

    def new_item(self) -> bool:
        self.quick.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.quick.selectAll()
        return True

    # --- loading -----------------------------------------------------------------------------

    def activate(self) -> None:
        self.refresh()  # the day may have turned since it was last shown

    def loader(self) -> Callable[[], Today]:
        hearth = self.ctx.hearth
        return lambda: today.load(hearth)

    def show_loaded(self, result: Today) -> None:
        keep = self.selected_identity()
        self._loaded = result
        self._filling = True
        self.tree.clear()
        records = section_records(result)
        bold = QFont(self.tree.font())
        bold.setBold(True)
        for section in SECTIONS:
            rows = records[section.key]
            if not rows and not section.always:
                continue
            head = QTreeWidgetItem([f"{section.title} ({len(rows)})" if rows
                                    else section.title])
            head.setData(0, RECORD, section.key)
            head.setFont(0, bold)
            head.setFlags(Qt.ItemFlag.ItemIsEnabled)
            head.setFirstColumnSpanned(True)
            self.tree.addTopLevelItem(head)
            if not rows:
                nothing = QTreeWidgetItem(["Nothing due today."])
                nothing.setFlags(Qt.ItemFlag.NoItemFlags)
                head.addChild(nothing)
            for record in rows:
                head.addChild(self._row(record, result))
            head.setExpanded(self._expanded.get(section.key, not section.collapsed))
        self._filling = False
        empty = not any(records.values())
        self.tree.setVisible(not empty)
        self.empty.setVisible(empty)
        self._apply_filter()
        if keep is not None:
            self.select_record(keep)
        self._selection_changed()

    def _row(self, record: Any, loaded: Today) -> QTreeWidgetItem:
        item = QTreeWidgetItem([title_of(record), when_of(record, loaded.day),
                                details_of(record)])
        item.setData(0, RECORD, record)
        item.setToolTip(0, title_of(record))
        flags = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
        if isinstance(record, TaskItem):
            item.setFlags(flags | Qt.ItemFlag.ItemIsUserCheckable)
            done = record.status == "done"
            item.setCheckState(0, Qt.CheckState.Checked if done else Qt.CheckState.Unchecked)
            if done:
                font = QFont(self.tree.font())
                font.setStrikeOut(True)
                for column in range(3):
                    item.setFont(column, font)
                    item.setForeground(column, self.palette().color(
                        QPalette.ColorRole.PlaceholderText))
        else:
            item.setFlags(flags)
        return item

    def _remember(self, item: QTreeWidgetItem, expanded: bool) -> None:
        key = item.data(0, RECORD)
        if not self._filling and isinstance(key, str):
            self._expanded[key] = expanded

    # --- the selection -----------------------------------------------------------------------

    def selected(self) -> Any | None:
        items = self.tree.selectedItems()
        record = items[0].data(0, RECORD) if items else None
        return None if record is None or isinstance(record, str) else record

    def selected_identity(self) -> Hashable | None:
        record = self.selected()
        return None if record is None else (kind_of(record), record.id)

    def select_record(self, identity: Hashable) -> None:
        for item in self._rows():
            record = item.data(0, RECORD)
            if (kind_of(record), record.id) == identity:
                self.tree.setCurrentItem(item)
                self.tree.scrollToItem(item)
                return

    def _rows(self) -> list[QTreeWidgetItem]:
        rows = []
        for index in range(self.tree.topLevelItemCount()):
            head = self.tree.topLevelItem(index)
            children = [] if head is None else [head.child(n) for n in range(head.childCount())]
            rows += [item for item in children
                     if item is not None and item.data(0, RECORD) is not None]
        return rows

    def _selection_changed(self) -> None:
        record = self.selected()
        kind = None if record is None else kind_of(record)
        self.done_button.setEnabled(kind == "follow_up" or (
            isinstance(record, TaskItem) and record.status == "todo"))
        self.edit_button.setEnabled(kind in ("task", "reminder"))
        self.snooze_button.setEnabled(kind in ("reminder", "follow_up"))
        self.delete_button.setEnabled(kind is not None)
        self.delete_button.setText({"reminder": "Cance&l reminder…",
                                    "follow_up": "Dis&miss…"}.get(kind or "", "De&lete…"))

    def _apply_filter(self) -> None:
        words = self.search.text().strip().lower()
        for item in self._rows():
            text = " ".join(item.text(column) for column in range(3)).lower()
            item.setHidden(bool(words) and words not in text)

    def _focus_search(self) -> None:
        self.search.setFocus(Qt.FocusReason.ShortcutFocusReason)
        self.search.selectAll()

    # --- quick add -------------------------------------------------------------------------

    def _quick_changed(self, text: str) -> None:
        self.notice.clear()
        if text.strip():
            self._hint_timer.start()
        else:
            self._hint_timer.stop()
            self.hint.clear()

    def _read_quick(self) -> None:
        """Read the line on a worker (the date reader loads its languages the first time)."""
        self._hint_generation += 1
        generation, text = self._hint_generation, self.quick.text()

        def shown(read: QuickAdd | None) -> None:
            if generation == self._hint_generation:
                self.hint.setText("" if read is None else read.hint + "  ·  Enter adds it")

        self.run("Reading the quick-add line", lambda _task: quick_add.parse(text), shown)

    def add_quick(self) -> None:
        text = self.quick.text()
        if not text.strip():
            return
        hearth = self.ctx.hearth
        reads: list[QuickAdd] = []

        def job() -> Any:
            read = quick_add.parse(text)
            assert read is not None  # the line is not blank
            reads.append(read)
            return quick_add.add(hearth, read)

        def added(value: TaskItem | ReminderItem) -> str:
            if self.quick.text() == text:
                self.quick.clear()
                self.hint.setText(f"Added. {reads[0].hint}")
            self.reveal((kind_of(value), value.id))
            return f"Added “{title_of(value)}”."

        self.change("Adding from the quick-add line", job, added)

    # --- changes -----------------------------------------------------------------------------

    def _item_changed(self, item: QTreeWidgetItem, column: int) -> None:
        record = item.data(0, RECORD)
        if self._filling or column != 0 or not isinstance(record, TaskItem):
            return
        ticked = item.checkState(0) == Qt.CheckState.Checked
        if ticked == (record.status == "done"):
            return
        self._set_done(record, ticked)

    def _set_done(self, task: TaskItem, done: bool) -> None:
        hearth, task_id = self.ctx.hearth, task.id
        if done:
            self._last_done = task_id
            self.change("Ticking a task done", lambda: tasks.complete(hearth, task_id),
                        lambda _: f"Done: “{task.title}”. Untick it, or Ctrl+Z, to reopen.")
        else:
            self.change("Reopening a task", lambda: tasks.reopen(hearth, task_id),
                        lambda _: f"Reopened “{task.title}”.")

    def undo_done(self) -> None:
        """Ctrl+Z: reopen the task last ticked here."""
        if self._last_done is None:
            return
        task_id, hearth, self._last_done = self._last_done, self.ctx.hearth, None
        self.change("Reopening a task", lambda: tasks.reopen(hearth, task_id),
                    lambda task: f"Reopened “{task.title}”.")

    def done_selected(self) -> None:
        record = self.selected()
        if isinstance(record, TaskItem):
            if record.status == "todo":
                self._set_done(record, True)
        elif record is not None and kind_of(record) == "follow_up":
            hearth, item_id = self.ctx.hearth, record.id
            self.change("Marking a follow-up done", lambda: follow_ups.resolve(hearth, item_id),
                        lambda _: "Follow-up marked done.")

    def edit_selected(self) -> None:
        record = self.selected()
        if isinstance(record, TaskItem):
            TaskDialog(self.ctx, record, self).exec()
        elif isinstance(record, ReminderItem):
            ReminderDialog(self.ctx, record, self).exec()

    def delete_selected(self) -> None:
        record = self.selected()
        if record is None:
            return
        hearth, item_id, title = self.ctx.hearth, record.id, title_of(record)
        kind = kind_of(record)
        if kind == "task":
            if confirm.ask(self, "Delete task", f"Delete the task “{title}”?\n\nIt cannot be "
                           "brought back."):
                self.change("Deleting a task", lambda: tasks.delete(hearth, item_id),
                            lambda _: f"Deleted “{title}”.")
        elif kind == "reminder":
            if confirm.ask(self, "Cancel reminder", f"Cancel the reminder “{title}”?",
                           action="Cancel reminder"):
                self.change("Cancelling a reminder", lambda: reminders.cancel(hearth, item_id),
                            lambda _: f"Reminder “{title}” cancelled.")
        elif confirm.ask(self, "Dismiss follow-up", f"Dismiss “{title}”?\n\nHearth will not "
                         "bring it up again.", action="Dismiss"):
            self.change("Dismissing a follow-up", lambda: follow_ups.dismiss(hearth, item_id),
                        lambda _: "Follow-up dismissed.")

    # --- snoozing ----------------------------------------------------------------------------

    def _show_snooze_menu(self) -> None:
        button = self.snooze_button
        self.snooze_menu.popup(button.mapToGlobal(button.rect().bottomLeft()))

    def _fill_snooze_menu(self) -> None:
        """Built as it opens, so "in 10 minutes" means from now."""
        self.snooze_menu.clear()
        record = self.selected()
        now = local_now()
        choices = snooze_choices(now)
        if isinstance(record, ReminderItem):
            choices = [("In 10 minutes", now + timedelta(minutes=10)),
                       ("In an hour", now + timedelta(hours=1)), choices[1]]
        for label, until in choices:
            action = QAction(f"{label} ({until:%a %H:%M})", self.snooze_menu)
            action.triggered.connect(lambda _=False, moment=until: self.snooze_until(moment))
            self.snooze_menu.addAction(action)
        if isinstance(record, ReminderItem):
            self.snooze_menu.addSeparator()
            self.snooze_menu.addAction("Pick a date and time…", self.edit_selected)

    def snooze_until(self, until: datetime) -> None:
        record = self.selected()
        if record is None:
            return
        hearth, item_id = self.ctx.hearth, record.id
        if isinstance(record, ReminderItem):
            self.change("Snoozing a reminder",
                        lambda: reminders.snooze(hearth, item_id, until=until),
                        lambda _: f"Snoozed until {until:%a %H:%M}.")
        else:
            self.change("Snoozing a follow-up",
                        lambda: follow_ups.snooze(hearth, item_id, until),
                        lambda _: f"Snoozed until {until:%a %H:%M}.")
