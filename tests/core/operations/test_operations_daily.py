"""The window's operations for the daily tools: plain frozen data out, and the domains
each change names (so only the views showing them reload)."""

from __future__ import annotations

from dataclasses import FrozenInstanceError
from datetime import date, timedelta

import pytest

from core import clock
from core.operations import journal, notes, pending, read_later, reminders, tasks
from core.operations.changes import Changes, Domain


def test_task_and_reminder_operations_hand_back_plain_data(hearth) -> None:
    added = tasks.add(hearth, "Renew passport", due_date="2026-11-28", due_time="09:00")
    assert added.changes == Changes.of(Domain.TASKS)
    item = added.value
    assert (item.title, item.due_date, item.due_time) == ("Renew passport", date(2026, 11, 28),
                                                          "09:00")
    with pytest.raises(FrozenInstanceError):
        item.title = "x"  # type: ignore[misc]
    assert tasks.due_today(hearth, date(2026, 11, 28)) == (item,)
    assert tasks.overdue(hearth, date(2026, 11, 29))[0].id == item.id
    assert tasks.edit(hearth, item.id, due_date=None).value.due_date is None
    assert tasks.complete(hearth, item.id).value.status == "done"
    assert tasks.reopen(hearth, item.id).value.done_at is None
    assert tasks.delete(hearth, item.id).value.id == item.id and tasks.list_tasks(hearth) == ()

    reminder = reminders.add(hearth, "Call Ana", clock.now() + timedelta(hours=1)).value
    assert reminders.snooze(hearth, reminder.id, minutes=30).value.snooze_count == 1
    done = reminders.cancel(hearth, reminder.id)
    assert done.changes == Changes.of(Domain.REMINDERS) and done.value.status == "cancelled"


def test_note_journal_and_later_operations(hearth) -> None:
    note = notes.add(hearth, "Bike", "Oil the chain.").value
    assert notes.edit(hearth, note.id, content="Oil the chain and brakes.").value.edited_at
    assert notes.pin(hearth, note.id).value.pinned
    assert notes.search(hearth, "brakes")[0].id == note.id
    assert notes.delete(hearth, note.id).changes == Changes.of(Domain.NOTES)

    entry = journal.add(hearth, "A quiet Sunday.").value
    assert journal.search(hearth, "sunday") == (entry,) and journal.week(hearth) == (entry,)
    assert journal.edit(hearth, entry.id, title="Sunday").value.title == "Sunday"
    assert journal.delete(hearth, entry.id).changes == Changes.of(Domain.JOURNAL)

    item = read_later.add(hearth, "https://example.org/a", title="Sourdough starter guide").value
    assert item.tags == ("sourdough", "starter", "guide")
    assert read_later.mark(hearth, item.id, "read").value.status == "read"
    assert read_later.list_items(hearth, "unread") == () and read_later.search(hearth, "guide")
    assert read_later.delete(hearth, item.id).changes == Changes.of(Domain.READ_LATER)


def test_a_confirm_names_the_domain_it_changed(hearth) -> None:
    held = hearth.pending.hold("task.create", {"title": "Buy plants"},
                               source_message="add a task: buy plants")
    (waiting,) = pending.list_pending(hearth)
    assert waiting.preview == "Add the task “Buy plants”." and waiting.source_message
    done = pending.confirm(hearth, held.id)
    assert done.changes == Changes.of(Domain.PENDING, Domain.TASKS)
    assert done.value.status == "confirmed" and tasks.list_tasks(hearth)[0].title == "Buy plants"
    other = hearth.pending.hold("task.create", {"title": "Not this"})
    assert pending.cancel(hearth, other.id).changes == Changes.of(Domain.PENDING)
