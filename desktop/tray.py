"""The tray icon: Open, Reflect now, Run dream cycle now, Pause learning, Recent reminders,
Quit; a tooltip with the next scheduled dream and the last result; a balloon for each
delivered notification (reminders, task alerts, follow-ups, scheduled prompts).

A balloon has no buttons: the answers (Done, Snooze 10 min / 1 h, Tomorrow, …) are on the
notification's card in the window's notification area (``desktop.notices``) and, for the
last few notifications, under "Recent reminders" in this menu.

Where the desktop has no tray, the window's Memory menu carries the same actions and the
schedule runs all the same (the window then quits when closed)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from PySide6.QtCore import QObject, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from core.clock import now
from core.operations import delivery
from core.operations.changes import Changes, Domain
from core.operations.delivery import Notification
from desktop.context import AppContext
from desktop.icons import icon
from desktop.main_window import MainWindow

TOOLTIP_REFRESH_MS = 30_000


class Tray(QObject):
    def __init__(self, ctx: AppContext, window: MainWindow) -> None:
        super().__init__(window)
        self.ctx, self.window = ctx, window
        self.icon = QSystemTrayIcon(icon("hearth"), self)
        self.menu = QMenu(window)  # a tray icon is no widget: the window owns its menu
        self.open_action = self._add("Open Hearth", self.show_window)
        self.menu.addSeparator()
        self.reflect_action = self._add("Reflect now", window.runs.reflect_now)
        self.dream_action = self._add("Run dream cycle now", window.runs.dream_now)
        self.pause_action = self._add("Pause learning", window.pause_action.trigger)
        self.pause_action.setCheckable(True)
        self.pause_action.setChecked(ctx.settings.learning_paused)
        self.recent_menu = self.menu.addMenu("Recent reminders")
        self.menu.addSeparator()
        self.quit_action = self._add("Quit Hearth", window.quit_requested.emit)
        self.icon.setContextMenu(self.menu)
        self.icon.activated.connect(self._activated)
        self._last_here: tuple[datetime, str] | None = None
        ctx.hub.changed.connect(self._changed)
        ctx.hub.notify.connect(self.notify)
        ctx.hub.delivered.connect(self._delivered)
        window.notices.recent_changed.connect(self.refresh_recent)
        self.refresh_recent()
        ctx.hub.run_finished.connect(self._remember_result)
        self._timer = QTimer(self)
        self._timer.timeout.connect(self.refresh_tooltip)
        self._timer.start(TOOLTIP_REFRESH_MS)
        QTimer.singleShot(0, self.refresh_tooltip)
        self.icon.show()

    def _add(self, text: str, slot: Callable[[], object]) -> QAction:
        action = QAction(text, self.menu)
        action.triggered.connect(lambda _=False: slot())
        self.menu.addAction(action)
        return action

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason == QSystemTrayIcon.ActivationReason.Trigger:
            self.show_window()

    def show_window(self) -> None:
        self.window.showNormal()
        self.window.raise_()
        self.window.activateWindow()

    def notify(self, title: str, text: str) -> None:
        self.icon.showMessage(title, text, icon("hearth"), 8_000)

    def _delivered(self, notification: Notification) -> None:
        self.notify(notification.title, notification.body)

    def refresh_recent(self) -> None:
        """One submenu per recent notification, with its answers as items."""
        self.recent_menu.clear()
        recent = self.window.notices.recent
        self.recent_menu.setEnabled(bool(recent))
        for notification in recent:
            entry = self.recent_menu.addMenu(f"{notification.title}: {notification.body}"[:80])
            for key, label in delivery.labels(notification):
                action = entry.addAction(label)
                action.triggered.connect(
                    lambda _=False, n=notification, key=key: self.window.notices.answer(n, key))
            entry.addAction("Show").triggered.connect(
                lambda _=False, n=notification: self._show_notice(n))

    def _show_notice(self, notification: Notification) -> None:
        """Bring the window up with the notification in front in its notification area."""
        self.window.notices.show(notification)
        self.show_window()

    def _changed(self, changes: Changes) -> None:
        if changes.touches(Domain.SETTINGS):
            self.pause_action.setChecked(self.ctx.settings.learning_paused)
        if changes.touches(Domain.SCHEDULE):
            self.refresh_tooltip()

    def _remember_result(self, _kind: str, outcome: object) -> None:
        from desktop.run_summary import summary

        title, line = summary(outcome)  # type: ignore[arg-type]
        self._last_here = (now(), f"{title}: {line}")
        self.refresh_tooltip()

    def last_result(self) -> str:
        """The newest of: a run started from this window, a job the schedule ran."""
        results = [self._last_here] if self._last_here else []
        scheduled = self.ctx.scheduler.last_result if self.ctx.scheduler else None
        if scheduled is not None:
            results.append((scheduled.finished_at, f"{scheduled.job_id}: {scheduled.summary}"))
        return max(results)[1] if results else "no run yet"

    def tooltip_text(self) -> str:
        scheduler = self.ctx.scheduler
        upcoming = scheduler.next_dream() if scheduler is not None else None
        if scheduler is None:
            next_line = f"Schedule: {self.ctx.schedule_state}"
        elif upcoming is None:
            next_line = "Next dream: not scheduled"
        else:
            next_line = f"Next dream: {upcoming.strftime('%a %d %b, %H:%M')}"
        return f"Hearth\n{next_line}\nLast: {self.last_result()}"

    def refresh_tooltip(self) -> None:
        self.icon.setToolTip(self.tooltip_text())
