"""The pane beside a daily list where one record is read and edited by hand (a note, a
journal entry, a saved article), with Save, New and Delete.

Why it tracks ``dirty``: the list reloads whenever its domain changes (the chat's tools, the
nightly reflection), and a reload re-selects the row; what the user is typing must not be
replaced by the stored text while they type it."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop.icons import icon
from desktop.inspector.notice import Notice


class RecordEditor(QWidget):
    """Subclasses add fields to ``form`` (``watch`` them) and implement ``fill``.
    ``record`` is the one shown (None: a new one is being written)."""

    save_requested = Signal()
    delete_requested = Signal()
    new_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.record: Any = None
        self.dirty = False
        self._filling = False
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        self.form = QFormLayout()
        self.notice = Notice(self)
        self.save = QPushButton(icon("add"), "&Save")
        self.save.setToolTip("Save what is written here (Ctrl+S)")
        self.save.setShortcut("Ctrl+S")
        self.new = QPushButton("&New")
        self.delete = QPushButton(icon("delete"), "&Delete…")
        self.buttons = QHBoxLayout()
        self.buttons.addWidget(self.save)
        self.buttons.addWidget(self.new)
        self.buttons.addStretch(1)
        self.buttons.addWidget(self.delete)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addLayout(self.form, 1)
        layout.addWidget(self.notice)
        layout.addLayout(self.buttons)
        self.save.clicked.connect(lambda _checked=False: self.save_requested.emit())
        self.new.clicked.connect(lambda _checked=False: self.new_requested.emit())
        self.delete.clicked.connect(lambda _checked=False: self.delete_requested.emit())

    def watch(self, *fields: QLineEdit | QPlainTextEdit) -> None:
        for field in fields:
            field.textChanged.connect(self._edited)

    def keeps(self, record: Any | None) -> bool:
        """Whether showing ``record`` must wait: unsaved typing on the record shown (or on
        a new one), and the list merely reloaded the same selection or lost it."""
        if not self.dirty:
            return False
        return record is None or (self.record is not None and record.id == self.record.id)

    def load(self, record: Any | None) -> None:
        """Show ``record`` (None: empty fields for a new one), as stored."""
        self.record = record
        self._filling = True
        self.fill(record)
        self._filling = False
        self.dirty = False
        self.notice.clear()
        self.delete.setEnabled(record is not None)
        self._update_save()

    def fill(self, record: Any | None) -> None:
        raise NotImplementedError

    def _edited(self) -> None:
        if not self._filling:
            self.dirty = True
            self._update_save()

    def _update_save(self) -> None:
        self.save.setEnabled(self.dirty)

    def focus_first(self) -> None:
        """Put the cursor in the first field (a new record is being written)."""
        for row in range(self.form.rowCount()):
            item = self.form.itemAt(row, QFormLayout.ItemRole.FieldRole)
            widget = item.widget() if item is not None else None
            if isinstance(widget, (QLineEdit, QPlainTextEdit)) and not widget.isReadOnly():
                widget.setFocus()
                return
