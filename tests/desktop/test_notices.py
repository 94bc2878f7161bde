"""Delivered notifications in the window (offscreen): the schedule delivers, a card with
buttons appears in the window's one notification area (not a pop-up window of its own), Done
completes the task, Snooze moves the reminder, and the tray's "Recent reminders" menu offers
the same answers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from PySide6.QtWidgets import QLabel
from support.moments import at, day

from core.daily.when import today
from core.scheduling import DELIVERY
from desktop.main_window import MainWindow
from desktop.notification_area import NoticeCard
from desktop.tray import Tray


@pytest.fixture
def window(qtbot, ctx) -> MainWindow:
    shown = MainWindow(ctx)
    qtbot.addWidget(shown)
    shown.show()
    ctx.start_scheduler()
    qtbot.waitUntil(lambda: ctx.scheduler is not None, timeout=30_000)
    yield shown
    shown.notices.close_all()


def delivered_notice(qtbot, window: MainWindow, body: str):
    ctx = window.ctx
    ctx.scheduler.run_job(DELIVERY)
    qtbot.waitUntil(lambda: any(n.notification.body == body for n in window.notices.open))
    (notice,) = [n for n in window.notices.open if n.notification.body == body]
    return notice


def test_done_on_a_task_alert_completes_the_task(qtbot, window) -> None:
    ctx = window.ctx
    task = ctx.hearth.tasks.create("Renew passport", due_date=today())
    notice = delivered_notice(qtbot, window, "Renew passport")
    assert notice.isVisible() and notice.title.text() == "Due today"
    assert not notice.isWindow() and window.isAncestorOf(notice)
    assert list(notice.buttons) == ["done", "tomorrow"]
    assert notice.buttons["done"].text() == "Done"
    notice.buttons["done"].click()
    qtbot.waitUntil(lambda: ctx.hearth.tasks.get(task.id).status == "done", timeout=10_000)
    qtbot.waitUntil(lambda: not window.notices.recent)
    assert window.notices.open == []
    assert ctx.scheduler.run_job(DELIVERY) == "nothing due"


def test_snooze_from_the_tray_menu_moves_the_reminder(qtbot, window) -> None:
    ctx = window.ctx
    tray = Tray(ctx, window)
    assert not tray.recent_menu.isEnabled()
    with at(day(8)):
        reminder = ctx.hearth.reminders.create("Call the dentist", day(9), zone="UTC")
    with at(day(9, 0, 30)):
        notice = delivered_notice(qtbot, window, "Call the dentist")
        notice.close_button.click()
        qtbot.waitUntil(lambda: not window.notification_area.isVisible())
        assert tray.recent_menu.isEnabled()
        (entry,) = [action.menu() for action in tray.recent_menu.actions()]
        assert entry.title() == "Reminder: Call the dentist"
        labels = {action.text(): action for action in entry.actions()}
        assert list(labels) == ["Done", "Snooze 10 min", "Snooze 1 h", "Tomorrow", "Show"]
        labels["Snooze 10 min"].trigger()
        qtbot.waitUntil(lambda: ctx.hearth.reminders.get(reminder.id).status == "pending",
                        timeout=10_000)
    moved = ctx.hearth.reminders.get(reminder.id).remind_at
    assert abs(moved - day(9, 10, 30)) < timedelta(seconds=5)
    qtbot.waitUntil(lambda: not tray.recent_menu.isEnabled())
    tray.icon.hide()


def test_several_due_at_once_wait_in_one_area_under_the_view(qtbot, window) -> None:
    """Three tasks due at once: one card in front, "1 of 3" to page through the others,
    no window of their own over the status bar, and the focus stays where it was."""
    ctx = window.ctx
    window.activateWindow()
    qtbot.waitActive(window)
    typing = window.show_page("chat").composer.edit
    typing.setFocus()
    assert typing.hasFocus()
    for title in ("Renew passport", "Pay rent", "Water plants"):
        ctx.hearth.tasks.create(title, due_date=today())
    ctx.scheduler.run_job(DELIVERY)
    area = window.notification_area
    qtbot.waitUntil(lambda: len(window.notices.open) == 3)
    assert area.isVisible() and area.position.text() == "1 of 3"
    assert area.geometry().bottom() < window.statusBar().geometry().top()
    assert [card for card in area.cards if card.isVisible()] == [area.current]
    area.next.click()
    assert area.position.text() == "2 of 3" and area.current is area.cards[1]
    assert typing.hasFocus()
    area.current.buttons["done"].click()
    qtbot.waitUntil(lambda: len(window.notices.open) == 2)
    assert area.position.text() in ("1 of 2", "2 of 2")


def test_the_area_is_as_tall_as_the_card_in_front(qtbot, window) -> None:
    """A tall card gone (a program's request answered), the strip shrinks to the card left
    in front rather than keeping its height with empty space."""
    area = window.notification_area
    small = NoticeCard("Due today", "Renew passport", [("done", "Done")])
    tall = NoticeCard("A program asks", "Allow it?", [("read", "Allow read")],
                      extra=QLabel("\n".join(f"line {n}" for n in range(8))))
    area.add(small)
    area.add(tall)
    tall_height = tall.sizeHint().height()
    qtbot.waitUntil(lambda: area.height() >= tall_height)
    area.remove(tall)
    qtbot.waitUntil(lambda: area.height() < tall_height - 60, timeout=3_000)
    assert area.height() <= small.sizeHint().height() + 20
