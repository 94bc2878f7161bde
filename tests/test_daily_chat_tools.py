"""The daily tools in a real turn: the real ``OllamaProvider`` (the official ``ollama``
client) over HTTP to the scripted Ollama-compatible server, the real database and embedder.

A consequential tool call only holds a pending action: the task or reminder row appears
when the user confirms, never on a cancel, never after the 30 minutes. Without tools (the
embedded model) the rules hold the same action from the user's explicit message.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
from sqlalchemy import select
from support.fake_ollama import FakeModel, FakeOllama, FakeReply
from support.scripted_llm import ScriptedLLM

from core import clock
from core.app import Hearth
from core.conversation import ConversationService, ToolActivity, TurnFinished
from core.daily import when
from core.errors import InvalidInputError
from core.llm.ollama import OllamaProvider
from core.operations import pending
from core.storage.orm import AuditEntry

MODEL = "llama3.2:3b"


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=[FakeModel(MODEL, num_ctx=8192)]) as running:
        yield running


def over_http(hearth: Hearth, server: FakeOllama) -> ConversationService:
    return ConversationService(hearth, OllamaProvider(server.url, MODEL, timeout=10.0,
                                                      retries=0))


def call(name: str, **arguments: object) -> FakeReply:
    return FakeReply(text="One moment.", tool_calls=[{"name": name, "arguments": arguments}])


def turn(chat: ConversationService, text: str, session_id: str | None = None
         ) -> tuple[str, list[ToolActivity]]:
    session_id = session_id or chat.new_session()
    events = list(chat.send(session_id, text))
    assert isinstance(events[-1], TurnFinished), events[-1]
    return session_id, [e for e in events if isinstance(e, ToolActivity)]


def in_three_days() -> str:
    return (when.today() + timedelta(days=3)).isoformat()


def test_a_task_tool_call_waits_for_confirm_then_the_row_exists(hearth, server) -> None:
    due = in_three_days()
    server.script(call("create_task", title="Renew passport", due_date=due),
                  "It waits for your confirmation.")
    message = "add a task to renew my passport in three days"

    session_id, (activity,) = turn(over_http(hearth, server), message)

    assert activity.name == "create_task" and activity.ok
    assert hearth.tasks.list() == []  # the call alone changed nothing
    (held,) = pending.list_pending(hearth, session_id)
    assert held.action == "task.create" and held.source_message == message
    assert held.preview.startswith("Add the task “Renew passport”, due ")
    told = server.chat_requests()[1]["messages"][-1]
    assert told["role"] == "tool"
    assert told["content"].startswith(f"held for the user's confirmation: {held.preview}")
    with hearth.storage.read() as session:
        audited = [e.action for e in session.scalars(select(AuditEntry))]
    assert "tool.create_task" in audited

    done = pending.confirm(hearth, held.id)

    (task,) = hearth.tasks.list()
    assert (task.title, task.due_date, task.source) == ("Renew passport", due, "assistant")
    assert done.value.status == "confirmed" and done.value.result.startswith("Added task")
    assert pending.list_pending(hearth, session_id) == ()


def test_a_reminder_call_then_cancel_leaves_nothing(hearth, server) -> None:
    tomorrow = when.today() + timedelta(days=1)
    server.script(call("set_reminder", message="call the dentist",
                       remind_at=f"{tomorrow.isoformat()}T09:00"), "Held.")

    session_id, _ = turn(over_http(hearth, server), "remind me tomorrow at 9 to call the dentist")

    (held,) = pending.list_pending(hearth, session_id)
    assert held.preview.startswith("Remind you “call the dentist” on ")
    assert held.preview.endswith("at 09:00.")
    pending.cancel(hearth, held.id)
    assert hearth.reminders.list() == []
    with pytest.raises(InvalidInputError, match="already cancelled"):
        pending.confirm(hearth, held.id)
    assert hearth.reminders.list() == []


def test_a_held_reminder_confirmed_after_31_minutes_is_refused(hearth, server) -> None:
    later = when.today() + timedelta(days=2)
    server.script(call("set_reminder", message="water the plants",
                       remind_at=f"{later.isoformat()}T18:30"), "Held.")
    session_id, _ = turn(over_http(hearth, server), "remind me to water the plants")
    (held,) = pending.list_pending(hearth, session_id)

    with clock.shifted(timedelta(minutes=31)):
        (shown,) = pending.of_session(hearth, session_id)  # what the chat shows: expired
        assert shown.status == "expired" and hearth.pending.get(held.id).status == "pending"
        with pytest.raises(InvalidInputError, match="expired unanswered"):
            pending.confirm(hearth, held.id)
        assert pending.list_pending(hearth, session_id) == ()
    assert hearth.reminders.list() == []
    assert hearth.pending.get(held.id).status == "expired"


def test_bad_arguments_become_an_error_the_model_reads_and_nothing_is_held(hearth,
                                                                           server) -> None:
    server.script(call("complete_task", id=999), call("create_task", title=""),
                  call("set_reminder", message="x", remind_at="tomorrow-ish"), "Sorry.")

    session_id, activities = turn(over_http(hearth, server), "mark task 999 done")

    assert [a.ok for a in activities] == [False, False, False]
    results = [m["content"] for m in server.chat_requests()[-1]["messages"]
               if m["role"] == "tool"]
    assert results[0].startswith("error: There is no task 999.")
    assert results[1].startswith("error: A task's title cannot be empty.")
    assert results[2].startswith("error: 'tomorrow-ish' is not a date and time.")
    assert pending.list_pending(hearth, session_id) == ()


def test_the_same_call_twice_in_a_turn_is_held_once(hearth, server) -> None:
    server.script(call("save_note", content="The wifi password is on the router"),
                  call("save_note", content="The wifi password is on the router"), "Held.")
    session_id, activities = turn(over_http(hearth, server),
                                  "note: the wifi password is on the router")
    assert [a.result_summary.split(" pending")[0] for a in activities] == ["held", "already held"]
    assert len(pending.list_pending(hearth, session_id)) == 1
    assert hearth.notes.list() == []
    with hearth.storage.read() as session:
        logged = [e.arguments for e in session.scalars(select(AuditEntry).where(
            AuditEntry.action == "tool.save_note"))]
    assert logged and all("router" not in str(arguments) for arguments in logged)


def test_reading_tools_answer_at_once(hearth, server) -> None:
    hearth.tasks.create("Buy milk", due_date=in_three_days())
    hearth.notes.save("Bike", "The bike lock code is in the blue drawer")
    hearth.read_later.add("https://example.org/bikes", title="Urban bike maintenance")
    hearth.memories.add("The user commutes to work by bike along the river.")
    server.script(call("list_tasks"), call("search_notes", query="bike drawer"),
                  call("find_everything", query="bike"), "Here it is.")

    _, activities = turn(over_http(hearth, server), "where is everything about my bike?")

    assert all(a.ok for a in activities)
    listed, notes, everything = [m["content"] for m in server.chat_requests()[-1]["messages"]
                                 if m["role"] == "tool"]
    assert "Buy milk" in listed and "[task 1, todo, due " in listed
    assert "blue drawer" in notes
    assert everything.index("*Memories*") < everything.index("*Notes*") \
        < everything.index("*Read later*")
    assert "commutes to work by bike" in everything and "Urban bike maintenance" in everything
    assert "blue drawer" in everything
    assert pending.list_pending(hearth) == ()


def test_journal_and_read_later_are_written_only_in_the_users_words(hearth, server) -> None:
    server.script(call("add_journal_entry", content="Felt calm after the long walk today"),
                  call("save_read_later", url="https://example.org/made-up"),
                  call("save_read_later", url="https://example.org/sleep"),
                  call("add_journal_entry", content="The user seems anxious about deadlines"),
                  "Saved.")
    message = ("journal: felt calm after the long walk today. Also keep "
               "https://example.org/sleep for later")

    _, activities = turn(over_http(hearth, server), message)

    assert [a.ok for a in activities] == [True, False, True, False]
    (entry,) = hearth.journal.list()
    assert entry.content == "Felt calm after the long walk today"
    (item,) = hearth.read_later.list()
    assert item.url == "https://example.org/sleep"
    with hearth.storage.read() as session:
        logged = str([e.arguments for e in session.scalars(select(AuditEntry).where(
            AuditEntry.action == "tool.add_journal_entry"))])
    assert "calm" not in logged and "characters" in logged


def test_without_tools_the_rules_hold_the_request_and_the_reply_is_told(hearth) -> None:
    model = ScriptedLLM(["Noted — confirm it below."], supports_tools=False)
    chat = ConversationService(hearth, model)
    message = "remind me tomorrow at 9 to call the dentist"

    session_id, _ = turn(chat, message)

    (held,) = pending.list_pending(hearth, session_id)
    assert held.action == "reminder.create" and held.source_message == message
    assert "call the dentist" in held.preview
    assert hearth.reminders.list() == []
    assert "held this request for the user's confirmation" in model.requests[0].messages[-1].content
    pending.confirm(hearth, held.id)
    (reminder,) = hearth.reminders.list()
    local = reminder.remind_at.astimezone(when.zone())
    assert (reminder.message, local.hour, local.minute) == ("call the dentist", 9, 0)
    assert local.date() == when.today() + timedelta(days=1)


def test_rules_hold_a_task_with_its_due_date_and_ordinary_talk_holds_nothing(hearth) -> None:
    chat = ConversationService(hearth, ScriptedLLM(["Fine.", "Fine."], supports_tools=False))
    session_id, _ = turn(chat, "add a task: renew passport by Friday")
    turn(chat, "can you remind me what we discussed?", session_id)
    (held,) = pending.list_pending(hearth, session_id)
    assert held.action == "task.create"
    pending.confirm(hearth, held.id)
    (task,) = hearth.tasks.list()
    assert task.title == "renew passport" and task.due_date is not None


def test_with_tools_the_rules_stay_out_of_the_way(hearth) -> None:
    chat = ConversationService(hearth, ScriptedLLM(["Which time suits you?"]))
    session_id, _ = turn(chat, "remind me tomorrow at 9 to call the dentist")
    assert pending.list_pending(hearth, session_id) == ()
