"""The approval gate against the real database (both backends): a held action is applied
exactly once on confirm, never after 30 minutes, never after a cancel; its preview says
what will happen; bad requests are refused before anything waits."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from sqlalchemy import select

from core import clock
from core.daily.actions import ACTIONS, Actions, DailyServices
from core.daily.pending_actions import PendingActionService
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.errors import InvalidInputError, NotFoundError
from core.knowledge.notes import NoteService
from core.storage.orm import AuditEntry, ChatSession


@pytest.fixture
def services(storage, embedder) -> DailyServices:
    return DailyServices(TaskService(storage), ReminderService(storage),
                         NoteService(storage, embedder), ScheduledPromptService(storage))


@pytest.fixture
def gate(storage, services) -> PendingActionService:
    return PendingActionService(storage, Actions(services, storage))


def test_a_confirmed_action_applies_exactly_once(storage, services, gate) -> None:
    with storage.write() as session:
        session.add(ChatSession(id="chat-1"))
    held = gate.hold("task.create", {"title": "Renew passport", "due_date": "2026-11-28"},
                     source_message="add a task: renew passport by Friday",
                     session_id="chat-1")
    assert held.preview == "Add the task “Renew passport”, due Sat 28 Nov 2026."
    assert held.expires_at - held.created_at == timedelta(minutes=30)
    assert services.tasks.list() == []  # nothing happens before the click
    assert [p.id for p in gate.pending("chat-1")] == [held.id] and gate.pending("other") == []

    confirmed = gate.confirm(held.id)
    assert confirmed.status == "confirmed" and confirmed.decided_at is not None
    (task,) = services.tasks.list()
    assert (task.title, task.due_date, task.source) == ("Renew passport", "2026-11-28",
                                                        "assistant")
    assert confirmed.result == f"Added task {task.id} “Renew passport”."
    with pytest.raises(InvalidInputError, match="already confirmed"):
        gate.confirm(held.id)
    with pytest.raises(InvalidInputError, match="already confirmed"):
        gate.cancel(held.id)
    assert len(services.tasks.list()) == 1 and gate.pending() == []
    with storage.read() as session:
        (entry,) = session.scalars(select(AuditEntry))
    assert entry.action == "pending.task.create" and entry.result_summary == "confirmed"
    assert "Renew" not in str(entry.arguments)  # names of arguments, not the user's words


def test_confirmed_as_revised_in_its_form(services, gate) -> None:
    """Edit on the card opens the task's own form: what the user changed there is checked
    as a new request would be, applied, and kept with the action (preview included)."""
    held = gate.hold("task.create", {"title": "Renew passport", "due_date": "2026-11-28"})
    with pytest.raises(InvalidInputError, match="title"):
        gate.confirm(held.id, {"title": "   "})
    assert gate.get(held.id).status == "pending" and services.tasks.list() == []
    confirmed = gate.confirm(held.id, {"title": "Renew passport and ID card",
                                       "due_date": "", "due_time": ""})
    (task,) = services.tasks.list()
    assert (task.title, task.due_date) == ("Renew passport and ID card", None)
    assert confirmed.preview == "Add the task “Renew passport and ID card”."
    assert confirmed.arguments["title"] == "Renew passport and ID card"


def test_two_confirms_at_once_apply_it_once(services, gate) -> None:
    """The window and a second window (or a double click) answer together: the status is
    checked in the transaction that applies, so one wins and the other is told."""
    held = gate.hold("task.create", {"title": "Only once"})
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def answer() -> None:
        start.wait()
        try:
            outcomes.append(gate.confirm(held.id).status)
        except InvalidInputError as error:
            outcomes.append(error.message)

    threads = [threading.Thread(target=answer) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert sorted(outcomes) == ["That request was already confirmed.", "confirmed"]
    assert [t.title for t in services.tasks.list()] == ["Only once"]


def test_an_action_expires_after_thirty_minutes_and_then_does_nothing(services, gate) -> None:
    held = gate.hold("task.create", {"title": "Call the bank"})
    late = gate.hold("task.create", {"title": "Water the plants"})
    with clock.shifted(timedelta(minutes=31)):
        with pytest.raises(InvalidInputError, match="expired unanswered after 30 minutes"):
            gate.confirm(held.id)
        assert gate.get(held.id).status == "expired"
        assert gate.pending() == []  # the other one is marked on the way
        assert gate.get(late.id).status == "expired"
        with pytest.raises(InvalidInputError, match="expired"):
            gate.confirm(late.id)
    assert services.tasks.list() == []


def test_expire_marks_only_the_overdue(gate) -> None:
    old = gate.hold("task.create", {"title": "Old"})
    with clock.shifted(timedelta(minutes=20)):
        new = gate.hold("task.create", {"title": "New"})
    with clock.shifted(timedelta(minutes=31)):
        assert gate.expire() == 1
    assert (gate.get(old.id).status, gate.get(new.id).status) == ("expired", "pending")


def test_a_cancelled_action_is_never_applied(services, gate) -> None:
    task = services.tasks.create("Keep me")
    held = gate.hold("task.delete", {"id": task.id})
    assert held.preview == f"Delete task {task.id} “Keep me”."
    assert gate.cancel(held.id).status == "cancelled"
    with pytest.raises(InvalidInputError, match="already cancelled"):
        gate.confirm(held.id)
    assert services.tasks.get(task.id).title == "Keep me"


def test_an_action_that_cannot_apply_stays_pending(services, gate) -> None:
    task = services.tasks.create("Soon gone")
    held = gate.hold("task.complete", {"id": str(task.id)})  # a quoted number is a number
    services.tasks.delete(task.id)
    with pytest.raises(NotFoundError):
        gate.confirm(held.id)
    assert gate.get(held.id).status == "pending"


def test_every_kind_of_change_goes_through_the_gate(storage, services, gate) -> None:
    task = services.tasks.create("Old title", due_date="2026-12-01")
    reminder = services.reminders.create("Stretch", clock.now() + timedelta(hours=1))
    note = services.notes.save("Bike", "Oil the chain.")
    at = (clock.now() + timedelta(days=1)).strftime("%Y-%m-%dT09:00")
    requests = [
        ("task.update", {"id": task.id, "title": "New title", "due_date": ""},
         f"Change task {task.id} “Old title”: title to “New title”, no due date."),
        ("task.complete", {"id": task.id}, f"Mark task {task.id} “New title” done."),
        ("task.reopen", {"id": task.id}, f"Mark task {task.id} “New title” to do again."),
        ("reminder.create", {"message": "Call Ana", "remind_at": at, "zone": "UTC"}, None),
        ("reminder.cancel", {"id": reminder.id}, f"Cancel reminder {reminder.id} “Stretch”."),
        ("note.create", {"title": "Bread", "content": "Feed the starter."},
         "Save a note “Bread”."),
        ("note.update", {"id": note.id, "content": "Oil the chain and brakes."},
         f"Change note {note.id} “Bike”."),
        ("scheduled_prompt.create", {"name": "Plan", "prompt": "Plan my day.",
                                     "cron": "0 8 * * 1-5", "zone": "UTC"},
         "Run “Plan my day.” on the schedule 0 8 * * 1-5 as “Plan”."),
    ]
    for action, arguments, preview in requests:
        held = gate.hold(action, arguments)
        if preview is not None:
            assert held.preview == preview
        assert gate.confirm(held.id).status == "confirmed", action
    changed = services.tasks.get(task.id)
    assert (changed.title, changed.due_date, changed.status) == ("New title", None, "todo")
    assert services.reminders.get(reminder.id).status == "cancelled"
    assert [r.message for r in services.reminders.list("pending")] == ["Call Ana"]
    assert services.notes.get(note.id).content == "Oil the chain and brakes."
    assert [n.title for n in services.notes.search("starter")] == ["Bread"]
    assert [p.name for p in services.scheduled_prompts.list()] == ["Plan"]
    deleted = gate.hold("note.delete", {"id": note.id})
    gate.confirm(deleted.id)
    assert [n.title for n in services.notes.list()] == ["Bread"]
    assert set(ACTIONS) >= {action for action, _, _ in requests} | {"task.create",
                                                                    "task.delete",
                                                                    "note.delete"}


@pytest.mark.parametrize(("action", "arguments", "message"), [
    ("task.explode", {}, "not an action Hearth knows"),
    ("task.create", {}, "task.create needs title"),
    ("task.create", {"title": "x", "colour": "red"}, "does not take colour"),
    ("task.create", {"title": 5}, "title must be a text"),
    ("task.create", {"title": "x", "due_date": "someday"}, "is not a date"),
    ("task.update", {"id": 1}, "There is no task 1"),
    ("reminder.create", {"message": "x", "remind_at": "2020-01-01T09:00"}, "already passed"),
    ("scheduled_prompt.create", {"name": "x", "prompt": "y", "cron": "bad"}, "5-field"),
    ("scheduled_prompt.update", {"id": 1, "enabled": "no"}, "enabled must be true or false"),
    ("scheduled_prompt.delete", {"id": 1}, "There is no scheduled prompt 1"),
    ("reminder.snooze", {"id": 1, "minutes": 10}, "There is no reminder 1"),
])
def test_a_request_that_cannot_be_applied_is_not_held(gate, action, arguments, message) -> None:
    with pytest.raises((InvalidInputError, NotFoundError), match=message):
        gate.hold(action, arguments)
    assert gate.pending() == []
