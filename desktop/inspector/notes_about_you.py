"""Notes about you: the structured notes the memory processor keeps (keys of its own
choosing), as a tree the user can correct: edit values, rename keys, change types, add and
remove entries.

Typing an entry goes key, Tab, value, Tab, type (``EntryTree``): Qt's tree view would move a
Tab back to the key of the same row and open it again, so what the user typed as the value
renamed the key.

Changes stay in the tree until Save, which stores the whole tree as a new version from the
user (``core.knowledge.notes_about_you.save_notes_about_you``); Revert drops them. While there
are unsaved changes a new version from the processor is not loaded over them: the view says
one arrived, and Revert shows it.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import (
    QAbstractItemModel,
    QModelIndex,
    QPersistentModelIndex,
    QRect,
    QSize,
    Qt,
)
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTreeView,
    QVBoxLayout,
    QWidget,
)

from core.operations import notes_about_you
from core.operations.changes import Domain
from core.operations.notes_about_you import NotesAboutYou
from desktop.context import AppContext
from desktop.icons import icon
from desktop import confirm
from desktop.inspector.base import InspectorPage
from desktop.inspector.formatting import local_time
from desktop.inspector.json_tree import (
    KEY,
    TYPE,
    TYPE_WORDS,
    TYPES,
    VALUE,
    JsonTreeModel,
    Refused,
)
from desktop.inspector.table import edit_row
from desktop.words import count, source_word

Index = QModelIndex | QPersistentModelIndex
EMPTY = ("No notes about you yet. Hearth writes them as it goes over your conversations "
         "(after a chat ends, and each night). Add an entry to start them yourself.")


class TypeDelegate(QStyledItemDelegate):
    """Picks an entry's type by its word ("yes/no"); the model receives the JSON kind.

    The column is never narrower than the open picker (``sizeHint``), and the picker never
    narrower than its words (``updateEditorGeometry``): sized to the cells' short words
    alone, it read "te▾". Choosing a type applies it at once."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._editor_size: QSize | None = None

    def createEditor(self, parent: QWidget, option: QStyleOptionViewItem,  # noqa: N802
                     index: Index) -> QWidget:
        editor = _type_picker(parent)
        editor.activated.connect(lambda _row: self._chosen(editor))
        return editor

    def setEditorData(self, editor: QWidget, index: Index) -> None:  # noqa: N802
        assert isinstance(editor, QComboBox)
        editor.setCurrentIndex(max(0, editor.findData(index.data(Qt.ItemDataRole.EditRole))))

    def setModelData(self, editor: QWidget, model: QAbstractItemModel,  # noqa: N802
                     index: Index) -> None:
        assert isinstance(editor, QComboBox)
        model.setData(index, editor.currentData(), Qt.ItemDataRole.EditRole)

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:  # noqa: N802
        if self._editor_size is None:
            self._editor_size = _type_picker(None).sizeHint()
        return super().sizeHint(option, index).expandedTo(self._editor_size)

    def updateEditorGeometry(self, editor: QWidget, option: QStyleOptionViewItem,  # noqa: N802
                             index: Index) -> None:
        rect = QRect(option.rect)
        rect.setWidth(max(rect.width(), editor.sizeHint().width()))
        editor.setGeometry(rect)

    def _chosen(self, editor: QComboBox) -> None:
        self.commitData.emit(editor)
        self.closeEditor.emit(editor, QStyledItemDelegate.EndEditHint.NoHint)


def _type_picker(parent: QWidget | None) -> QComboBox:
    picker = QComboBox(parent)
    for kind in TYPES:
        picker.addItem(TYPE_WORDS[kind], kind)
    return picker


class EntryTree(QTreeView):
    """The notes' tree, where Tab moves through a row's editable cells left to right (key,
    value, type) and then to the next row, and Shift+Tab back."""

    def moveCursor(self, action: QAbstractItemView.CursorAction,  # noqa: N802
                   modifiers: Qt.KeyboardModifier) -> QModelIndex:
        if action == QAbstractItemView.CursorAction.MoveNext:
            return self._next_editable(self.currentIndex(), forward=True)
        if action == QAbstractItemView.CursorAction.MovePrevious:
            return self._next_editable(self.currentIndex(), forward=False)
        return super().moveCursor(action, modifiers)

    def _next_editable(self, current: QModelIndex, *, forward: bool) -> QModelIndex:
        """The nearest editable cell after (or before) ``current`` in reading order; the
        current cell when there is none (Tab at the very end stays put)."""
        if not current.isValid():
            return current
        columns = (KEY, VALUE, TYPE) if forward else (TYPE, VALUE, KEY)
        row, column = current.siblingAtColumn(KEY), current.column()
        start = columns.index(column) + 1
        while row.isValid():
            for candidate in columns[start:]:
                cell = row.siblingAtColumn(candidate)
                if cell.flags() & Qt.ItemFlag.ItemIsEditable:
                    return cell
            row = self.indexBelow(row) if forward else self.indexAbove(row)
            start = 0
        return current


class NotesAboutYouPage(InspectorPage):
    key = "notes_about_you"
    title = "Notes about you"
    icon_name = "notes_about_you"
    about = "Structured notes Hearth keeps about you, by topic; you can correct them."
    domains = frozenset({Domain.ABOUT_YOU})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.model = JsonTreeModel(self)
        self.tree = EntryTree()
        self.tree.setModel(self.model)
        self.tree.setAlternatingRowColors(True)
        self.tree.setUniformRowHeights(True)
        self.tree.setEditTriggers(QAbstractItemView.EditTrigger.DoubleClicked)
        types = TypeDelegate(self)
        self.tree.setItemDelegateForColumn(TYPE, types)
        header = self.tree.header()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(KEY, QHeaderView.ResizeMode.Interactive)
        header.setSectionResizeMode(VALUE, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(TYPE, QHeaderView.ResizeMode.ResizeToContents)
        header.resizeSection(KEY, 240)
        self.caption = QLabel()
        self.caption.setWordWrap(True)
        self.add_button = QPushButton(icon("add"), "&Add entry")
        self.add_button.setToolTip("Add an entry to the selected object or list (Insert)")
        self.remove_button = QPushButton(icon("delete"), "&Remove…")
        self.remove_button.setToolTip("Remove the selected entry (Delete)")
        self.save_button = QPushButton("&Save")
        self.save_button.setToolTip("Save the tree as a new version (Ctrl+S)")
        self.revert_button = QPushButton(icon("refresh"), "Re&vert")
        self.revert_button.setToolTip("Drop unsaved changes and show the current version")
        self._dirty = False
        self._build()
        self._set_dirty(False)
        self.model.modified.connect(self._edited)
        self.model.refused.connect(self.notice.show_error)
        self.add_button.clicked.connect(self.add_entry)
        self.remove_button.clicked.connect(self.remove_selected)
        self.save_button.clicked.connect(self.save)
        self.revert_button.clicked.connect(self.revert)
        self.tree.selectionModel().currentChanged.connect(self._current_changed)
        self.watch_editors(self.tree.itemDelegate())
        self.watch_editors(types)
        shortcuts: tuple[tuple[QKeySequence, Callable[[], None]], ...] = (
            (QKeySequence(QKeySequence.StandardKey.Save), self.save),
            (QKeySequence(Qt.Key.Key_Insert), self.add_entry))
        for sequence, slot in shortcuts:
            QShortcut(sequence, self, slot, context=Qt.ShortcutContext.WidgetWithChildrenShortcut)
        QShortcut(QKeySequence.StandardKey.Delete, self.tree, self.remove_selected,
                  context=Qt.ShortcutContext.WidgetShortcut)
        QShortcut(QKeySequence(Qt.Key.Key_F2), self.tree, lambda: edit_row(self.tree),
                  context=Qt.ShortcutContext.WidgetShortcut)
        self._current_changed(QModelIndex())

    def _build(self) -> None:
        buttons = QHBoxLayout()
        for button in (self.add_button, self.remove_button):
            buttons.addWidget(button)
        buttons.addStretch()
        for button in (self.revert_button, self.save_button):
            buttons.addWidget(button)
        layout = QVBoxLayout(self)
        layout.addLayout(buttons)
        layout.addWidget(self.caption)
        layout.addWidget(self.notice)
        layout.addWidget(self.tree, 1)

    # --- loading -----------------------------------------------------------------------------

    def loader(self) -> Callable[[], NotesAboutYou | None]:
        hearth = self.ctx.hearth
        return lambda: notes_about_you.current_notes_about_you(hearth)

    def show_loaded(self, result: NotesAboutYou | None) -> None:
        if self.tree.state() == QAbstractItemView.State.EditingState:
            self.postpone()  # an entry is being typed
            return
        if self._dirty:  # never load over the user's unsaved edits
            self.caption.setText("A newer version was saved meanwhile. Save yours over it, "
                                 "or Revert to see it.")
            return
        self.model.set_data(dict(result.data) if result is not None else {})
        self.tree.expandToDepth(1)
        self.caption.setText(EMPTY if result is None or not result.data else
                             f"Version {result.id} · from {source_word(result.source)} · "
                             f"{local_time(result.created_at)} · "
                             f"{count(len(result.data), 'topic')}. F2 edits; Tab goes from a "
                             "key to its value; the Type column changes what a value is.")
        self._set_dirty(False)

    # --- editing -----------------------------------------------------------------------------

    def add_entry(self) -> None:
        """Add inside the selected object or list; beside the selected value otherwise."""
        index = self.tree.currentIndex().siblingAtColumn(KEY)
        if index.isValid() and self.model.node(index).kind not in ("object", "list"):
            index = index.parent()
        try:
            added = self.model.add_child(index)
        except Refused as exc:
            self.notice.show_error(str(exc))
            return
        self.tree.expand(index)
        self.tree.setCurrentIndex(added)
        self.tree.edit(added)

    def remove_selected(self) -> None:
        index = self.tree.currentIndex().siblingAtColumn(KEY)
        if not index.isValid():
            return
        name = str(index.data())
        node = self.model.node(index)
        inside = (f" and the {count(len(node.children), 'entry', 'entries')} inside it"
                  if node.children else "")
        if confirm.ask(self, "Remove entry", f"Remove “{name}”{inside}?\n\n"
                       "Nothing is stored until you press Save.", action="Remove"):
            self.model.remove(index)

    def save(self) -> None:
        if not self._dirty:
            return
        data, hearth = self.model.to_data(), self.ctx.hearth

        def saved(version: NotesAboutYou) -> str:
            self._set_dirty(False)
            return f"Notes about you saved as version {version.id}."

        self.change("Saving the notes about you",
                    lambda: notes_about_you.save_notes_about_you(hearth, data), saved)

    def revert(self) -> None:
        self._set_dirty(False)
        self.notice.clear()
        self.reload()

    def _edited(self) -> None:
        """An edit was applied to the tree (a bound slot, not a lambda: Qt drops the
        connection with the page, so an editor committed while the page closes is harmless)."""
        self._set_dirty(True)
        self.notice.clear()

    def _set_dirty(self, dirty: bool) -> None:
        self._dirty = dirty
        self.save_button.setEnabled(dirty)
        self.revert_button.setEnabled(dirty)

    def _current_changed(self, current: QModelIndex, _previous: QModelIndex | None = None
                         ) -> None:
        self.remove_button.setEnabled(current.isValid())
