"""The line that says what was just deleted, with Undo: "Deleted the fact “priya: Lisbon”.
Nothing else changed. Undo · Erase everywhere…".

A delete of one entry (a fact, memories, a note) is a click, so it asks nothing and can be
undone instead (``core.operations.deleted``); the bar stays above the view until the entry's
undo ends or another delete takes its place, so the way back is where the person just
acted. Its second button leads to the other act, erasing the words everywhere, which a
person who meant that must find from the same place."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QWidget

from core.clock import now
from core.operations.deleted import DeletedItem


def named(item: DeletedItem) -> str:
    """What was deleted, as the sentences say it."""
    if item.kind == "fact":
        return f"the fact “{item.title}”"
    if item.kind == "note":
        return f"the note “{item.title}”"
    return f"the memory “{item.title}”" if item.count == 1 else item.title


class UndoBar(QFrame):
    """See the module docstring. ``undo`` and ``erase`` are called with the item shown."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.item: DeletedItem | None = None
        self._undo: Callable[[DeletedItem], None] | None = None
        self._erase: Callable[[DeletedItem], None] | None = None
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.undo_button = QPushButton("&Undo")
        self.undo_button.setToolTip("Bring it back as it was")
        self.erase_button = QPushButton("Erase everywhere…")
        self.erase_button.setToolTip("Replace its words in your chats, notes and memories "
                                     "too, for good")
        self.close_button = QPushButton("Close")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 8, 4)
        layout.addWidget(self.label, 1)
        for button in (self.undo_button, self.erase_button, self.close_button):
            layout.addWidget(button)
        self._expiry = QTimer(self, singleShot=True)
        self._expiry.timeout.connect(self.dismiss)
        self.undo_button.clicked.connect(self._undo_pressed)
        self.erase_button.clicked.connect(self._erase_pressed)
        self.close_button.clicked.connect(self.dismiss)
        self.hide()

    def offer(self, item: DeletedItem, undo: Callable[[DeletedItem], None], *,
              erase: Callable[[DeletedItem], None] | None = None, said: str = "") -> None:
        """Show ``item`` with Undo (and Erase everywhere… when ``erase`` is given);
        ``said`` adds what the person should know (where the words still are)."""
        self.item, self._undo, self._erase = item, undo, erase
        until = item.purge_after.astimezone().strftime("%H:%M")
        self.label.setText(" ".join(part for part in (
            f"Deleted {named(item)}. Nothing else changed.", said,
            f"You can undo this until {until}.") if part))
        self.erase_button.setVisible(erase is not None)
        self.undo_button.setEnabled(True)
        left_ms = int((item.purge_after - now()).total_seconds() * 1000)
        self._expiry.start(max(0, left_ms))
        self.show()

    def dismiss(self) -> None:
        self._expiry.stop()
        self.item = None
        self.hide()

    def _undo_pressed(self) -> None:
        if self.item is not None and self._undo is not None:
            self.undo_button.setEnabled(False)  # once: the bar goes when it is back
            self._undo(self.item)

    def _erase_pressed(self) -> None:
        if self.item is not None and self._erase is not None:
            self._erase(self.item)
