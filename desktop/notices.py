"""Delivered notifications in the window: a small notice with buttons for each, and the
recent ones kept for the tray's "Recent reminders" menu.

The schedule hands over a ``Notification`` (``ctx.hub.delivered``, from its thread). A tray
balloon (``QSystemTrayIcon.showMessage``) has no buttons, so each notification also opens a
``NoticeWindow``: a small, non-modal tool window in the screen's corner that does not take
the focus from what the user is typing, with the notification's buttons (Done, Snooze
10 min, Snooze 1 h, Tomorrow, Not wanted) and Close. A button runs
``core.operations.delivery.act`` in a worker, tells the views what changed and closes the
notice. The tray's "Recent reminders" menu offers the same buttons for the last
``RECENT`` notifications, for when a notice was closed unanswered. The same path works
offscreen (tests) and on every platform; no notification daemon is needed.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from core.operations import delivery
from core.operations.delivery import Notification
from core.operations.done import Done
from desktop.context import AppContext

RECENT = 8
"""Notifications the tray's "Recent reminders" menu keeps."""
MARGIN = 16


class NoticeWindow(QWidget):
    """One notification with its buttons; see the module docstring."""

    def __init__(self, notification: Notification,
                 answer: Callable[[Notification, str], None]) -> None:
        super().__init__(None, Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint)
        self.notification = notification
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.setWindowTitle(notification.title)
        layout = QVBoxLayout(self)
        self.title = QLabel(f"<b>{_escaped(notification.title)}</b>")
        self.body = QLabel(notification.body)
        self.body.setWordWrap(True)
        self.body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.title)
        layout.addWidget(self.body)
        row = QHBoxLayout()
        self.buttons: dict[str, QPushButton] = {}
        for key, label in delivery.labels(notification):
            button = QPushButton(label)
            button.clicked.connect(lambda _=False, key=key: self._press(key, answer))
            self.buttons[key] = button
            row.addWidget(button)
        row.addStretch(1)
        self.close_button = QPushButton("Close")
        self.close_button.clicked.connect(self.close)
        row.addWidget(self.close_button)
        layout.addLayout(row)
        self.setMinimumWidth(320)

    def _press(self, key: str, answer: Callable[[Notification, str], None]) -> None:
        for button in self.buttons.values():
            button.setEnabled(False)  # one answer per notice
        answer(self.notification, key)
        self.close()

    def show_in_corner(self) -> None:
        self.adjustSize()
        area = self.screen().availableGeometry()
        self.move(area.right() - self.width() - MARGIN, area.bottom() - self.height() - MARGIN)
        self.show()


def _escaped(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Notices(QObject):
    """Shows each delivered notification and carries out the user's answers."""

    recent_changed = Signal()
    answered = Signal(str)  # what was done, in a sentence (also in the status bar)

    def __init__(self, ctx: AppContext, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.recent: list[Notification] = []
        self.open: list[NoticeWindow] = []
        ctx.hub.delivered.connect(self.show)

    def show(self, notification: Notification) -> NoticeWindow:
        """Open a notice for ``notification`` and keep it among the recent ones."""
        self.recent = [notification, *[n for n in self.recent if n.key != notification.key]
                       ][:RECENT]
        self.recent_changed.emit()
        notice = NoticeWindow(notification, self.answer)
        self.open.append(notice)
        notice.destroyed.connect(lambda _=None, notice=notice: self._closed(notice))
        notice.show_in_corner()
        return notice

    def answer(self, notification: Notification, action: str) -> None:
        """Carry out ``action`` in a worker; it leaves the recent list once answered."""

        def done(result: Done[str]) -> None:
            self.recent = [n for n in self.recent if n.key != notification.key]
            self.recent_changed.emit()
            self.ctx.hub.status_message.emit(result.value)
            self.answered.emit(result.value)

        def failed(message: str, hint: str) -> None:
            self.ctx.hub.status_message.emit(f"{message} {hint}".strip())

        self.ctx.workers.start(f"Answering “{notification.title}”",
                               lambda _task: delivery.act(self.ctx.hearth, notification,
                                                          action),
                               on_done=done, on_failed=failed, writes=True)

    def close_all(self) -> None:
        for notice in list(self.open):
            notice.close()

    def _closed(self, notice: NoticeWindow) -> None:
        if notice in self.open:
            self.open.remove(notice)
