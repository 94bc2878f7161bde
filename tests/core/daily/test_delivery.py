"""Delivery against the real database (both backends), time moved by ``core.clock``: a
reminder comes once at its time, missed ones come once at wake with their time, snoozes
come back once, task alerts respect their cooldown, racing passes share the work without
handing anything out twice, and the user's answers (Done, Snooze, Tomorrow) do their work."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
from support.moments import at, day

from core.config import Settings
from core.daily import delivery
from core.daily.alerts import AlertService
from core.daily.delivery import (
    DONE, FOLLOW_UP, REMINDER, SNOOZE_10, TASK, TOMORROW, claim_due, late_note,
)
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.knowledge.follow_ups import FollowUpService
from core.operations import delivery as delivery_ops

UTC = timezone.utc


@pytest.fixture
def daily(storage) -> SimpleNamespace:
    """The services ``claim_due`` uses, on the test's database (what ``Hearth`` holds)."""
    return SimpleNamespace(reminders=ReminderService(storage), tasks=TaskService(storage),
                           alerts=AlertService(storage),
                           follow_ups=FollowUpService(storage, Settings()),
                           scheduled_prompts=ScheduledPromptService(storage))


def delivered(daily: SimpleNamespace, moment: datetime) -> list[str]:
    with at(moment):
        due = claim_due(daily, moment)
    return [f"{n.kind}:{n.body}" for n in due.notifications]


def test_a_reminder_is_delivered_once_at_its_time(daily) -> None:
    daily.reminders.create("Call the dentist", day(9), zone="UTC")
    assert delivered(daily, day(8, 59, 30)) == []
    with at(day(9, 0, 30)):
        (notification,) = claim_due(daily, day(9, 0, 30)).notifications
    assert (notification.kind, notification.title, notification.body) == (
        REMINDER, "Reminder", "Call the dentist")
    assert notification.actions == (DONE, SNOOZE_10, delivery.SNOOZE_60, TOMORROW)
    assert notification.due_at == day(9)
    assert delivered(daily, day(9, 1, 30)) == []
    (row,) = daily.reminders.list()
    assert (row.status, row.sent_at) == ("sent", day(9, 0, 30))


def test_reminders_missed_while_asleep_come_once_at_wake_with_their_time(daily) -> None:
    with at(day(8)):
        daily.reminders.create("Call the dentist", day(9), zone="UTC")
        daily.reminders.create("Lunch with Ana", day(12), zone="UTC")
        daily.reminders.create("Evening walk", day(18), zone="UTC")
    # the machine sleeps from 08:00 to 14:00: no pass runs in between
    assert delivered(daily, day(14)) == [
        "reminder:Call the dentist (due 09:00)", "reminder:Lunch with Ana (due 12:00)"]
    assert delivered(daily, day(14, 1)) == []
    assert delivered(daily, day(18, 0, 30)) == ["reminder:Evening walk"]


def test_the_late_note_names_the_day_when_it_is_not_today() -> None:
    assert late_note(day(9), day(9, 2)) == ""
    assert late_note(day(9), day(9, 3), "UTC") == " (due 09:00)"
    assert late_note(day(23), day(7, days=1), "UTC") == (
        f" (due {day(23).strftime('%a %d %b')} 23:00)")


def test_a_snoozed_reminder_comes_back_once_ten_minutes_later(daily) -> None:
    daily.reminders.create("Take the pills", day(9), zone="UTC")
    with at(day(9, 0, 30)):
        (notification,) = claim_due(daily, day(9, 0, 30)).notifications
    with at(day(9, 1)):
        done = delivery_ops.act(daily, notification, SNOOZE_10)
    assert done.value == "Reminder snoozed for 10 minutes."
    (row,) = daily.reminders.list()
    assert row.status == "pending" and abs(row.remind_at - day(9, 11)) < timedelta(seconds=5)
    assert delivered(daily, day(9, 10, 30)) == []
    assert delivered(daily, day(9, 11, 30)) == ["reminder:Take the pills"]
    assert delivered(daily, day(9, 12, 30)) == []


def test_tomorrow_moves_a_reminder_to_nine_the_next_morning(daily) -> None:
    daily.reminders.create("Water the plants", day(17), zone="UTC")
    with at(day(17, 0, 30)):
        (notification,) = claim_due(daily, day(17, 0, 30)).notifications
        assert delivery_ops.act(daily, notification, TOMORROW).value.startswith(
            "Reminder snoozed until")
    assert daily.reminders.list()[0].remind_at == day(9, days=1)
    assert delivered(daily, day(8, 59, days=1)) == []
    assert delivered(daily, day(9, 0, 30, days=1)) == ["reminder:Water the plants"]


def test_a_task_alert_fires_once_per_cooldown_and_done_completes_the_task(daily) -> None:
    today = datetime.now().astimezone().date() + timedelta(days=3)
    moment = datetime.combine(today, datetime.min.time()).astimezone() + timedelta(hours=9)
    task = daily.tasks.create("Renew passport", due_date=today)
    old = daily.tasks.create("Pay the rent", due_date=today - timedelta(days=2))
    daily.alerts.set_rule("task_due_today", cooldown_minutes=60)
    daily.alerts.set_rule("task_overdue", cooldown_minutes=60)
    first = delivered(daily, moment)
    assert first == ["task:Renew passport", "task:Pay the rent (was due "
                     + (today - timedelta(days=2)).isoformat() + ")"]
    assert delivered(daily, moment + timedelta(minutes=1)) == []
    assert delivered(daily, moment + timedelta(minutes=59)) == []
    with at(moment + timedelta(minutes=61)):
        due = claim_due(daily, moment + timedelta(minutes=61)).notifications
    assert sorted(n.item_id for n in due) == sorted([task.id, old.id])
    assert {n.kind for n in due} == {TASK}
    (renew,) = [n for n in due if n.item_id == task.id]
    assert renew.actions == (DONE, TOMORROW)
    assert delivery_ops.act(daily, renew, DONE).value == "Task done."
    assert daily.tasks.get(task.id).status == "done"
    assert [n.item_id for n in claim_due(daily, moment + timedelta(hours=3)).notifications
            ] == [old.id]


def test_follow_ups_are_delivered_and_answered(daily) -> None:
    moment = day(10)
    follow_up, _new = daily.follow_ups.add("Call the plumber", follow_up_at=day(9))
    with at(moment):
        (notification,) = claim_due(daily, moment).notifications
        assert (notification.kind, notification.body) == (FOLLOW_UP, "Call the plumber")
        assert claim_due(daily, moment + timedelta(minutes=1)).empty
        assert delivery_ops.act(daily, notification, TOMORROW).value == (
            "Follow-up put off to tomorrow.")
    assert daily.follow_ups.list("open")[0].follow_up_at == delivery.tomorrow_morning(moment)
    assert delivery_ops.act(daily, notification, delivery.DISMISS).value == (
        "Follow-up dismissed.")
    assert daily.follow_ups.list("dismissed")[0].id == follow_up.id


def test_an_answer_a_notification_does_not_offer_is_refused(daily) -> None:
    daily.reminders.create("Call the dentist", day(9), zone="UTC")
    with at(day(9, 0, 30)):
        (notification,) = claim_due(daily, day(9, 0, 30)).notifications
    with pytest.raises(Exception, match="is not an answer to this notification"):
        delivery_ops.act(daily, notification, delivery.DISMISS)


def test_racing_passes_deliver_each_item_exactly_once(daily) -> None:
    """Two delivery passes at once (the tray and a second process, or two devices on one
    PostgreSQL database), many times over: every item is handed out, none twice."""
    with at(day(8)):
        for minute in range(30):
            daily.reminders.create(f"reminder {minute}", day(9, minute), zone="UTC")
        prompt = daily.scheduled_prompts.create("Morning plan", "Plan my day", "5 9 * * *",
                                                zone="UTC")
    today = day(9).astimezone().date()
    for number in range(5):
        daily.tasks.create(f"task {number}", due_date=today)
    seen: list[str] = []
    lock = threading.Lock()
    start = threading.Barrier(2)
    failures: list[BaseException] = []

    def passes() -> None:
        try:
            start.wait()
            for minute in range(0, 40, 2):
                due = claim_due(daily, day(9, minute, 30))
                with lock:
                    seen.extend(n.key for n in due.notifications)
                    seen.extend(f"prompt:{p.id}" for p in due.prompts)
        except BaseException as error:  # the assertion below names it
            failures.append(error)

    with at(day(8, 30)):
        threads = [threading.Thread(target=passes) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert failures == []
    assert [key for key in set(seen) if seen.count(key) > 1] == []
    assert len(seen) == 30 + 5 + 1
    assert f"prompt:{prompt.id}" in seen
    assert {row.status for row in daily.reminders.list()} == {"sent"}


CHILD = Path(__file__).parents[2] / "support" / "delivery_child.py"


def test_racing_processes_deliver_each_item_exactly_once(daily, storage, request,
                                                         tmp_path: Path) -> None:
    """The same race between two processes on one database file (or one PostgreSQL
    database, as two devices would share it)."""
    with at(day(8)):
        for minute in range(30):
            daily.reminders.create(f"reminder {minute}", day(9, minute), zone="UTC")
    backend = request.node.callspec.params["storage"]
    target = (request.getfixturevalue("postgres_url") if backend == "postgresql"
              else str(storage.path))
    go = tmp_path / "go"
    moments = [day(9, minute, 30).isoformat() for minute in range(0, 32, 2)]
    children = [subprocess.Popen([sys.executable, str(CHILD), backend, target, str(go),
                                  *moments], stdout=subprocess.PIPE, text=True)
                for _ in range(2)]
    try:
        for child in children:
            assert child.stdout is not None and child.stdout.readline().strip() == "READY"
        go.touch()
        outputs = [child.communicate(timeout=120)[0] for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    assert [child.returncode for child in children] == [0, 0]
    handed = [json.loads(output) for output in outputs]
    every = handed[0] + handed[1]
    assert [key for key in set(every) if every.count(key) > 1] == []
    assert sorted(every) == sorted(f"reminder:{row.id}" for row in daily.reminders.list())
