"""Tasks, reminders, scheduled prompts and alert rules against the real database (both
backends), with time moved by ``core.clock`` instead of waited for."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from core import clock
from core.daily import when
from core.daily.alerts import AlertService, decide
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService, trigger
from core.daily.tasks import TaskService
from core.errors import InvalidInputError, NotFoundError
from core.storage.orm import AlertRule, Task

TODAY = date(2026, 11, 25)


@pytest.fixture
def tasks(storage) -> TaskService:
    return TaskService(storage)


@pytest.fixture
def reminders(storage) -> ReminderService:
    return ReminderService(storage)


# --- tasks -------------------------------------------------------------------------------


def test_tasks_are_listed_by_due_day_and_answered(tasks) -> None:
    later = tasks.create("Renew passport", due_date="2026-12-01")
    undated = tasks.create("  Read  the   manual ")
    soon = tasks.create("Call the dentist", due_date=TODAY, due_time="9:05",
                        details="Ask about Friday.")
    old = tasks.create("Pay the rent", due_date="2026-11-20", source="assistant")
    assert undated.title == "Read the manual" and soon.due_time == "09:05"
    assert [t.id for t in tasks.list()] == [old.id, soon.id, later.id, undated.id]
    assert [t.id for t in tasks.due_today(TODAY)] == [soon.id]
    assert [t.id for t in tasks.overdue(TODAY)] == [old.id]

    done = tasks.complete(old.id)
    assert done.status == "done" and done.done_at is not None
    assert tasks.overdue(TODAY) == [] and [t.id for t in tasks.list(status="done")] == [old.id]
    assert tasks.reopen(old.id).done_at is None

    changed = tasks.update(later.id, title="Renew passport and ID", due_date=None)
    assert (changed.title, changed.due_date) == ("Renew passport and ID", None)
    assert tasks.update(soon.id, details="").due_time == "09:05"  # kept when not named
    assert tasks.delete(undated.id).title == "Read the manual"
    with pytest.raises(NotFoundError, match="There is no task"):
        tasks.get(undated.id)


@pytest.mark.parametrize(("arguments", "message"), [
    ({"title": "   "}, "A task's title cannot be empty."),
    ({"title": "x" * 301}, "301 characters"),
    ({"title": "Pay", "due_date": "next friday"}, "is not a date"),
    ({"title": "Pay", "due_time": "09:00"}, "needs a due date"),
    ({"title": "Pay", "due_date": "2026-11-25", "due_time": "25:00"}, "not a time of day"),
    ({"title": "Pay", "source": "robot"}, "not a source"),
])
def test_a_bad_task_is_refused_in_a_sentence(tasks, arguments, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        tasks.create(**arguments)
    assert tasks.list() == []


# --- reminders ---------------------------------------------------------------------------


def test_reminders_come_due_once_sent_and_can_be_snoozed(reminders) -> None:
    now = clock.now()
    call = reminders.create("Call Ana", now + timedelta(minutes=10), zone="Europe/Lisbon")
    later = reminders.create("Water the plants", now + timedelta(hours=3))
    assert call.zone == "Europe/Lisbon" and later.zone == when.local_zone_name()
    assert reminders.due(now) == []
    with clock.shifted(timedelta(hours=8)):  # asleep past both: both due at wake
        assert [r.id for r in reminders.due()] == [call.id, later.id]
        sent = reminders.mark_sent(call.id)
        assert sent.status == "sent" and sent.sent_at is not None
        with pytest.raises(InvalidInputError, match="already sent"):
            reminders.mark_sent(call.id)  # never delivered twice
        assert [r.id for r in reminders.due()] == [later.id]
        snoozed = reminders.snooze(call.id, minutes=10)
        assert snoozed.status == "pending" and snoozed.snooze_count == 1
        assert clock.now() + timedelta(minutes=9) < snoozed.remind_at <= clock.now() + timedelta(
            minutes=10)
        assert [r.id for r in reminders.due()] == [later.id]
        cancelled = reminders.cancel(later.id)
        assert cancelled.status == "cancelled" and reminders.due() == []
        with pytest.raises(InvalidInputError, match="already cancelled"):
            reminders.cancel(later.id)
    assert [r.id for r in reminders.list("cancelled")] == [later.id]


def test_a_reminder_in_the_local_zone_is_stored_as_utc(reminders) -> None:
    year = clock.now().year + 1
    reminder = reminders.create("Dentist", f"{year}-07-01T09:00", zone="Europe/Lisbon")
    assert reminder.remind_at == datetime(year, 7, 1, 8, 0, tzinfo=timezone.utc)  # summer


@pytest.mark.parametrize(("remind_at", "zone", "message"), [
    ("2020-01-01T09:00", None, "has already passed"),
    ("tomorrow", None, "is not a date and time"),
    ("2099-01-01T09:00", "Mars/Olympus", "not a time zone"),
])
def test_a_bad_reminder_is_refused(reminders, remind_at, zone, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        reminders.create("Something", remind_at, zone=zone)
    assert reminders.list() == []


def test_a_snooze_needs_a_future_time(reminders) -> None:
    reminder = reminders.create("Stretch", clock.now() + timedelta(minutes=5))
    for bad in ({}, {"minutes": 0}, {"until": clock.now() - timedelta(minutes=1)},
                {"minutes": 5, "until": clock.now()}):
        with pytest.raises(InvalidInputError):
            reminders.snooze(reminder.id, **bad)
    assert reminders.get(reminder.id).snooze_count == 0


def test_a_reminder_is_reworded_and_moved_in_one_write(reminders) -> None:
    reminder = reminders.create("Call Ana", clock.now() + timedelta(minutes=5))
    reworded = reminders.edit(reminder.id, message="  Call Ana about the lease ")
    assert (reworded.message, reworded.remind_at, reworded.snooze_count) == (
        "Call Ana about the lease", reminder.remind_at, 0)  # the time stays
    later = clock.now() + timedelta(hours=2)
    moved = reminders.edit(reminder.id, message="Call Ana back", until=later)
    assert (moved.message, moved.remind_at, moved.snooze_count) == ("Call Ana back", later, 1)
    with pytest.raises(InvalidInputError, match="must end in the future"):
        reminders.edit(reminder.id, message="lost?", until=clock.now() - timedelta(hours=1))
    assert reminders.get(reminder.id).message == "Call Ana back"  # the refusal wrote nothing
    for bad, says in (({"message": "  "}, "cannot be empty"), ({}, "Nothing to change"),
                      ({"message": "x" * 501}, "501 characters long")):
        with pytest.raises(InvalidInputError, match=says):
            reminders.edit(reminder.id, **bad)
    with clock.shifted(timedelta(hours=3)):  # delivered; its words can still be put right
        [sent] = reminders.claim_due()
        assert reminders.edit(sent.id, message="Called Ana?").status == "sent"
    reminders.create("Stretch", clock.now() + timedelta(minutes=5))
    cancelled = reminders.cancel(reminders.list("pending")[0].id)
    with pytest.raises(InvalidInputError, match="was cancelled"):
        reminders.edit(cancelled.id, message="Stretch more")


# --- scheduled prompts -------------------------------------------------------------------


def test_day_of_week_is_read_as_standard_cron() -> None:
    sunday = datetime(2026, 11, 22, tzinfo=timezone.utc)
    weekdays = trigger("0 9 * * 1-5", "UTC")
    fired = weekdays.get_next_fire_time(None, sunday)
    assert fired is not None and fired.strftime("%A %H:%M") == "Monday 09:00"
    for expression, day in (("0 9 * * 0", "Sunday"), ("0 9 * * 7", "Sunday"),
                            ("0 9 * * sat", "Saturday")):
        fired = trigger(expression, "UTC").get_next_fire_time(None, sunday + timedelta(hours=10))
        assert fired is not None and fired.strftime("%A") == day


def test_scheduled_prompts_are_due_once_after_a_missed_run(storage) -> None:
    prompts = ScheduledPromptService(storage)
    daily = prompts.create("Morning plan", "Plan my day.", "0 9 * * *", zone="UTC")
    prompts.create("Paused", "Never.", "* * * * *", enabled=False)
    with pytest.raises(InvalidInputError, match="already a scheduled prompt named"):
        prompts.create("Morning plan", "Again.", "0 9 * * *")
    with clock.shifted(timedelta(days=3)):  # three mornings missed while asleep
        assert [p.id for p in prompts.due()] == [daily.id]
        prompts.mark_run(daily.id)
        assert prompts.due() == []
    with pytest.raises(InvalidInputError, match="already a scheduled prompt named"):
        prompts.update(daily.id, name="Paused")
    updated = prompts.update(daily.id, cron="30 7 * * 1-5", enabled=False)
    assert (updated.cron, updated.enabled) == ("30 7 * * 1-5", False)
    assert prompts.delete(daily.id).name == "Morning plan"
    assert [p.name for p in prompts.list()] == ["Paused"]


@pytest.mark.parametrize(("cron", "message"), [
    ("0 9 * *", "not a 5-field cron schedule"),
    ("61 9 * * *", "is not a cron schedule"),
    ("0 9 * * 8", "is not a cron schedule"),
])
def test_a_bad_cron_is_refused(storage, cron, message) -> None:
    with pytest.raises(InvalidInputError, match=message):
        ScheduledPromptService(storage).create("x", "Do it.", cron)


# --- alerts ------------------------------------------------------------------------------


def test_the_two_default_rules_fire_per_task_within_their_cooldown(storage, tasks) -> None:
    alerts = AlertService(storage)
    assert [(r.kind, r.enabled, r.cooldown_minutes) for r in alerts.rules()] == [
        ("task_due_today", True, 1440), ("task_overdue", True, 1440)]
    today = tasks.create("Call the dentist", due_date=TODAY)
    late = tasks.create("Pay the rent", due_date=TODAY - timedelta(days=2))
    later = tasks.create("Later", due_date=TODAY + timedelta(days=1))
    tasks.complete(tasks.create("Done already", due_date=TODAY).id)
    now = clock.now()
    fired = alerts.firing(TODAY, now)
    assert {(a.kind, a.task_id) for a in fired} == {("task_due_today", today.id),
                                                    ("task_overdue", late.id)}
    alerts.record(fired, now)
    assert alerts.firing(TODAY, now + timedelta(hours=23)) == []
    again = alerts.firing(TODAY, now + timedelta(hours=24))
    assert {a.task_id for a in again} == {today.id, late.id}
    assert all(rule.last_fired_at == now for rule in alerts.rules())
    # the next day yesterday's task is overdue (another rule: not held back by the first's
    # cooldown), the later one is due, and the rent's overdue alert is still cooling down
    tomorrow = alerts.firing(TODAY + timedelta(days=1), now + timedelta(hours=1))
    assert {(a.kind, a.task_id) for a in tomorrow} == {("task_overdue", today.id),
                                                       ("task_due_today", later.id)}

    alerts.set_rule("task_overdue", enabled=False)
    assert [a.kind for a in alerts.firing(TODAY + timedelta(days=1),
                                          now + timedelta(hours=1))] == ["task_due_today"]
    with pytest.raises(InvalidInputError, match="out of range"):
        alerts.set_rule("task_due_today", cooldown_minutes=0)


def test_the_decision_alone_needs_no_database() -> None:
    now = datetime(2026, 11, 25, 8, tzinfo=timezone.utc)
    rule = AlertRule(kind="task_due_today", enabled=True, cooldown_minutes=60)
    fresh = Task(id=1, title="A", status="todo", due_date="2026-11-25")
    told = Task(id=2, title="B", status="todo", due_date="2026-11-25",
                notified_kind="task_due_today", notified_at=now - timedelta(minutes=30))
    assert [a.task_id for a in decide([rule], [fresh, told], TODAY, now)] == [1]
    assert [a.task_id for a in decide([rule], [fresh, told], TODAY,
                                      now + timedelta(minutes=30))] == [1, 2]
