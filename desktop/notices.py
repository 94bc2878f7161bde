"""Delivered notifications in the window: a card with buttons for each in the window's
notification area, and the recent ones kept for the tray's "Recent reminders" menu.

The schedule hands over a ``Notification`` (``ctx.hub.delivered``, from its thread). A tray
balloon (``QSystemTrayIcon.showMessage``) has no buttons, so each notification is also a
card in the window's one notification area (``desktop.notification_area``), with the
notification's buttons (Done, Snooze 10 min, Snooze 1 h, Tomorrow, Not wanted) and ✕. A
button runs ``core.operations.delivery.act`` in a worker, tells the views what changed and
takes the card away. The tray's "Recent reminders" menu offers the same buttons for the
last ``RECENT`` notifications, for when a card was closed unanswered. The same path works
offscreen (tests) and on every platform; no notification daemon is needed.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from core.operations import delivery
from core.operations.delivery import Notification
from core.operations.done import Done
from desktop.context import AppContext
from desktop.notification_area import NoticeCard, NotificationArea

RECENT = 8
"""Notifications the tray's "Recent reminders" menu keeps."""


class DeliveredNotice(NoticeCard):
    """The card of one delivered notification, with its answers as buttons."""

    def __init__(self, notification: Notification) -> None:
        super().__init__(notification.title, notification.body, delivery.labels(notification))
        self.notification = notification


class Notices(QObject):
    """Shows each delivered notification and carries out the user's answers."""

    recent_changed = Signal()
    answered = Signal(str)  # what was done, in a sentence (also in the status bar)

    def __init__(self, ctx: AppContext, area: NotificationArea,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.area = area
        self.recent: list[Notification] = []
        ctx.hub.delivered.connect(self.show)

    @property
    def open(self) -> list[DeliveredNotice]:
        """The delivered notifications shown in the area, newest first."""
        return [card for card in self.area.cards if isinstance(card, DeliveredNotice)]

    def show(self, notification: Notification) -> DeliveredNotice:
        """Show ``notification`` in front (once: shown again, its card comes forward) and
        keep it among the recent ones."""
        self.recent = [notification, *[n for n in self.recent if n.key != notification.key]
                       ][:RECENT]
        self.recent_changed.emit()
        for card in self.open:
            if card.notification.key == notification.key:
                self.area.remove(card)
        card = DeliveredNotice(notification)
        card.answered.connect(lambda key, card=card: self._press(card, key))
        self.area.add(card)
        return card

    def _press(self, card: DeliveredNotice, key: str) -> None:
        self.answer(card.notification, key)
        self.area.remove(card)

    def answer(self, notification: Notification, action: str) -> None:
        """Carry out ``action`` in a worker; it leaves the recent list once answered."""

        def done(result: Done[str]) -> None:
            self.recent = [n for n in self.recent if n.key != notification.key]
            self.recent_changed.emit()
            for card in self.open:
                if card.notification.key == notification.key:  # answered from the tray
                    self.area.remove(card)
            self.ctx.hub.status_message.emit(result.value)
            self.answered.emit(result.value)

        def failed(message: str, hint: str) -> None:
            self.ctx.hub.status_message.emit(f"{message} {hint}".strip())

        self.ctx.workers.start(f"Answering “{notification.title}”",
                               lambda _task: delivery.act(self.ctx.hearth, notification,
                                                          action),
                               on_done=done, on_failed=failed, writes=True)

    def close_all(self) -> None:
        for card in self.open:
            self.area.remove(card)
