"""The window's one notification area: a strip under the view in front, above the status
bar, where every notification waits for its answer (a reminder's Done or Snooze, a new
agent's Allow read or Deny).

Notifications used to open as pop-up windows of their own in the screen's corner: several
due at once stacked over each other and over the window's status bar, each took a place in
the task bar, and one closed by mistake was gone. Here they are cards in one place: the
newest is shown, "‹ 2 of 3 ›" pages through the others, and the strip is as tall as one
card (or less: a tall card scrolls when the view in front needs the room), so a morning's
worth of reminders never pushes the view off a small screen. A card
never takes the keyboard focus from what the user is typing; Tab reaches its buttons.
"""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QStackedWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop.scrolling import ShrinkingScrollArea


class NoticeCard(QFrame):
    """One notification: a bold title, a sentence, an optional widget with choices, its
    buttons (``answered(key)`` says which was pressed) and ✕ (``dismissed``)."""

    answered = Signal(str)
    dismissed = Signal()

    def __init__(self, title: str, body: str, actions: Sequence[tuple[str, str]],
                 extra: QWidget | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notice")
        self.title = QLabel(title)
        self.title.setTextFormat(Qt.TextFormat.PlainText)  # a reminder's text is the user's
        self.title.setWordWrap(True)  # beside the buttons on a narrow window
        bold = self.title.font()
        bold.setBold(True)
        self.title.setFont(bold)
        self.body = QLabel(body)
        self.body.setTextFormat(Qt.TextFormat.PlainText)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        # The answers are on the title's line: when a small window leaves the area less
        # room than a tall card needs, what scrolls is the explanation, not the buttons.
        top = QHBoxLayout()
        top.setContentsMargins(0, 0, 0, 0)
        top.addWidget(self.title, 1)
        self.buttons: dict[str, QPushButton] = {}
        for key, label in actions:
            button = QPushButton(label)
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the focus be
            button.clicked.connect(lambda _=False, key=key: self._press(key))
            self.buttons[key] = button
            top.addWidget(button, 0, Qt.AlignmentFlag.AlignTop)
        self.close_button = QToolButton()
        self.close_button.setText("✕")
        self.close_button.setAutoRaise(True)
        self.close_button.setToolTip("Close this notification")
        self.close_button.clicked.connect(self.dismissed)
        top.addWidget(self.close_button, 0, Qt.AlignmentFlag.AlignTop)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 6, 6)
        layout.setSpacing(4)
        layout.addLayout(top)
        layout.addWidget(self.body)
        if extra is not None:
            layout.addWidget(extra)

    def _press(self, key: str) -> None:
        for button in self.buttons.values():
            button.setEnabled(False)  # one answer per notification
        self.answered.emit(key)


class NotificationArea(QFrame):
    """The cards waiting for an answer, newest in front; hidden while there are none."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("notification-area")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setAutoFillBackground(True)
        self.setBackgroundRole(QPalette.ColorRole.AlternateBase)
        self._stack = QStackedWidget()
        self.previous = QToolButton()
        self.previous.setText("‹")
        self.previous.setToolTip("The newer notification")
        self.previous.clicked.connect(lambda: self._turn(-1))
        self.position = QLabel()
        self.position.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self.next = QToolButton()
        self.next.setText("›")
        self.next.setToolTip("The older notification")
        self.next.clicked.connect(lambda: self._turn(1))
        pager = QHBoxLayout()
        pager.setContentsMargins(0, 0, 0, 0)
        for widget in (self.previous, self.position, self.next):
            pager.addWidget(widget)
        self._pager = QWidget()
        self._pager.setLayout(pager)
        # A tall card (a program asking for access, with its choices) scrolls on a small
        # screen rather than taking the room the view in front needs.
        self._scroll = scroll = ShrinkingScrollArea(self._stack)
        scroll.viewport().setAutoFillBackground(False)
        self._stack.setAutoFillBackground(False)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(4, 2, 4, 2)
        layout.addWidget(scroll, 1)
        layout.addWidget(self._pager, 0, Qt.AlignmentFlag.AlignTop)
        self._update()

    @property
    def cards(self) -> list[NoticeCard]:
        """The cards, newest first."""
        return [card for index in range(self._stack.count())
                if isinstance(card := self._stack.widget(index), NoticeCard)]

    @property
    def current(self) -> NoticeCard | None:
        card = self._stack.currentWidget()
        return card if isinstance(card, NoticeCard) else None

    def add(self, card: NoticeCard) -> None:
        """Put ``card`` in front; ✕ takes it away."""
        card.dismissed.connect(lambda card=card: self.remove(card))
        self._stack.insertWidget(0, card)
        self._stack.setCurrentIndex(0)
        self._update()

    def remove(self, card: NoticeCard) -> None:
        if self._stack.indexOf(card) < 0:
            return
        self._stack.removeWidget(card)
        card.deleteLater()
        self._update()

    def clear(self) -> None:
        for card in self.cards:
            self.remove(card)

    def _turn(self, step: int) -> None:
        index = self._stack.currentIndex() + step
        if 0 <= index < self._stack.count():
            self._stack.setCurrentIndex(index)
            self._update()

    def _update(self) -> None:
        total, index = self._stack.count(), self._stack.currentIndex()
        self.setVisible(total > 0)
        self._pager.setVisible(total > 1)
        self.position.setText(f"{index + 1} of {total}")
        self.previous.setEnabled(index > 0)
        self.next.setEnabled(index < total - 1)
        # a card's size does not reach the window's layout through the scroll area by
        # itself: without this the strip kept the height of a tall card gone before
        self._scroll.updateGeometry()
        self.changed.emit()
