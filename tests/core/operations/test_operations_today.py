"""The Today view's operations: quick add reads a line as the chat's explicit requests are
read, and ``today.load`` sorts tasks, reminders and follow-ups into the view's sections."""

from __future__ import annotations

from datetime import datetime, time, timedelta

from core import clock
from core.daily import when
from core.operations import quick_add, reminders, tasks, today


def test_quick_add_reads_tasks_reminders_and_plain_lines() -> None:
    zone = when.zone()
    now = clock.now()
    local_day = now.astimezone(zone).date()
    rent = quick_add.parse("pay rent tomorrow", now)
    assert rent is not None and rent.kind == "task"
    assert (rent.title, rent.due_date) == ("pay rent", local_day + timedelta(days=1))
    assert rent.hint == f"Task: pay rent — due {quick_add.day_words(rent.due_date)}"

    morning = datetime.combine(local_day, time(10), zone)
    mum = quick_add.parse("remind me at 5pm to call mum", morning)
    assert mum is not None and mum.kind == "reminder" and mum.title == "call mum"
    assert mum.remind_at == datetime.combine(local_day, time(17), zone)
    assert mum.hint.startswith("Reminder: call mum — ") and mum.hint.endswith("at 17:00")

    plain = quick_add.parse("  water   the plants ", now)
    assert plain is not None
    assert (plain.kind, plain.title, plain.due_date) == ("task", "water the plants", None)
    assert plain.hint == "Task: water the plants — no due date"
    asked = quick_add.parse("what is on today?", now)  # not a request: a task as typed
    assert asked is not None and asked.title == "what is on today?"
    assert quick_add.parse("   ", now) is None


def test_a_date_and_time_at_the_end_of_a_line_make_it_a_dated_task() -> None:
    """ "dentist next Tuesday 3pm" is the task "dentist" due on Tuesday at 15:00, not a task
    titled with the whole line; a date the rules read ("on Tuesday at 15:00") keeps its time."""
    zone = when.zone()
    wednesday = datetime(2026, 11, 25, 10, 0, tzinfo=zone)
    tuesday = wednesday.date() + timedelta(days=6)
    for line in ("dentist next Tuesday 3pm", "dentist next Tuesday at 3pm",
                 "dentist 3pm next tuesday", "dentist on Tuesday at 15:00"):
        read = quick_add.parse(line, wednesday)
        assert read is not None and read.kind == "task", line
        assert (read.title, read.due_date, read.due_time) == ("dentist", tuesday, time(15)), line
        assert read.hint == "Task: dentist — due Tue 1 Dec at 15:00"
    lunch = quick_add.parse("team lunch Friday noon", wednesday)
    assert lunch is not None and (lunch.title, lunch.due_time) == ("team lunch", time(12))
    rent = quick_add.parse("pay rent tomorrow", wednesday)
    assert rent is not None and (rent.title, rent.due_time) == ("pay rent", None)
    show = quick_add.parse("watch Friday Night Lights", wednesday)  # no date: a title
    assert show is not None and (show.title, show.due_date) == (
        "watch Friday Night Lights", None)


def test_quick_add_stores_what_it_read(hearth) -> None:
    read = quick_add.parse("remind me in 2 hours to stretch")
    assert read is not None
    done = quick_add.add(hearth, read)
    assert done.value.id == reminders.list_reminders(hearth, "pending")[0].id
    read = quick_add.parse("renew passport by the end of the month")
    assert read is not None and read.due_date is not None
    added = quick_add.add(hearth, read).value
    assert [t.id for t in tasks.list_tasks(hearth)] == [added.id]


def test_today_sorts_everything_into_its_section(hearth) -> None:
    day, now = when.today(), clock.now()
    late = tasks.add(hearth, "late", due_date=day - timedelta(days=1)).value
    due = tasks.add(hearth, "due", due_date=day).value
    coming = tasks.add(hearth, "coming", due_date=day + timedelta(days=3)).value
    undated = tasks.add(hearth, "undated").value
    ticked = tasks.add(hearth, "ticked", due_date=day).value
    tasks.complete(hearth, ticked.id)
    soon = reminders.add(hearth, "soon", now + timedelta(hours=2)).value
    reminders.add(hearth, "far", now + timedelta(hours=30))
    due_follow_up, _new = hearth.follow_ups.add("call the dentist", context="",
                                          follow_up_at=now - timedelta(minutes=5))
    hearth.follow_ups.add("later", context="", follow_up_at=now + timedelta(days=3))

    shown = today.load(hearth)
    assert shown.day == day
    assert [t.id for t in shown.overdue] == [late.id]
    assert [t.id for t in shown.due_today] == [due.id]
    assert [t.id for t in shown.coming] == [coming.id]
    assert [t.id for t in shown.undated] == [undated.id]
    assert [t.id for t in shown.done_today] == [ticked.id]
    assert [r.id for r in shown.reminders] == [soon.id]
    assert [f.id for f in shown.follow_ups] == [due_follow_up.id]
