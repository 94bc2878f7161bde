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
    return hearth.conversation(OllamaProvider(server.url, MODEL, timeout=10.0,
                                                      retries=0))


def call(name: str, **arguments: object) -> FakeReply:
    return FakeReply(text="One moment.", tool_calls=[{"name": name, "arguments": arguments}])


def turn(chat: ConversationService, text: str, session_id: str | None = None
         ) -> tuple[str, list[ToolActivity]]:
    session_id = session_id or chat.sessions.new_session()
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


def test_a_note_the_model_saves_without_a_title_is_titled_by_its_first_words(hearth,
                                                                             server) -> None:
    server.script(call("save_note", content="Spare key: under the blue pot. Not the red one"),
                  call("save_note", title=None, content="Bins go out on Tuesday nights"),
                  "Both wait for you.")
    session_id, activities = turn(over_http(hearth, server), "note the key and the bins")
    assert all(a.ok for a in activities)
    for held in pending.list_pending(hearth, session_id):
        pending.confirm(hearth, held.id)
    assert sorted(note.title for note in hearth.notes.list()) == [
        "Bins go out on Tuesday nights", "Spare key: under the blue pot"]


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


def test_without_tools_the_rules_hold_the_request_and_the_reply_says_it_waits(hearth) -> None:
    model = ScriptedLLM(["Done! I have set your reminder."], supports_tools=False)
    chat = hearth.conversation(model)
    message = "remind me tomorrow at 9 to call the dentist"

    session_id, _ = turn(chat, message)

    (held,) = pending.list_pending(hearth, session_id)
    assert held.action == "reminder.create" and held.source_message == message
    assert "call the dentist" in held.preview
    assert hearth.reminders.list() == []
    # the model is not asked: a small one claimed the reminder was set before the Confirm
    assert model.requests == []
    (exchange,) = chat.sessions.session_history(session_id)
    assert "call the dentist" in exchange.agent_response
    assert "not done yet" in exchange.agent_response and "Done!" not in exchange.agent_response
    pending.confirm(hearth, held.id)
    (reminder,) = hearth.reminders.list()
    local = reminder.remind_at.astimezone(when.zone())
    assert (reminder.message, local.hour, local.minute) == ("call the dentist", 9, 0)
    assert local.date() == when.today() + timedelta(days=1)


def test_rules_hold_a_task_with_its_due_date_and_ordinary_talk_holds_nothing(hearth) -> None:
    chat = hearth.conversation(ScriptedLLM(["Fine.", "Fine."], supports_tools=False))
    session_id, _ = turn(chat, "add a task: renew passport by Friday")
    turn(chat, "can you remind me what we discussed?", session_id)
    (held,) = pending.list_pending(hearth, session_id)
    assert held.action == "task.create"
    pending.confirm(hearth, held.id)
    (task,) = hearth.tasks.list()
    assert task.title == "renew passport" and task.due_date is not None


def test_with_tools_the_rules_stay_out_of_the_way(hearth) -> None:
    chat = hearth.conversation(ScriptedLLM(["Which time suits you?"]))
    session_id, _ = turn(chat, "remind me tomorrow at 9 to call the dentist")
    assert pending.list_pending(hearth, session_id) == ()


def test_a_note_is_changed_then_deleted_through_the_gate(hearth, server) -> None:
    note = hearth.notes.save("Bike", "The lock code is in the blue drawer")
    server.script(call("update_note", id=note.id, content="The lock code is in the red box"),
                  "It waits for you.")
    chat = over_http(hearth, server)
    session_id, (activity,) = turn(chat, "the lock code moved to the red box, fix my note")
    assert activity.ok
    (held,) = pending.list_pending(hearth, session_id)
    assert (held.action, held.preview) == ("note.update", f"Change note {note.id} “Bike”.")
    assert hearth.notes.get(note.id).content == "The lock code is in the blue drawer"
    assert pending.confirm(hearth, held.id).value.result == f"Changed note {note.id} “Bike”."
    assert hearth.notes.get(note.id).content == "The lock code is in the red box"
    assert [n.id for n in hearth.notes.search("red box")] == [note.id]  # embedded again
    with hearth.storage.read() as session:
        logged = [e.arguments for e in session.scalars(select(AuditEntry).where(
            AuditEntry.action == "tool.update_note"))]
    assert logged and all("red box" not in str(arguments) for arguments in logged)

    server.script(call("delete_note", id=note.id), "Held.")
    _, _ = turn(chat, "delete that note", session_id)
    (held,) = pending.list_pending(hearth, session_id)
    assert held.preview == f"Delete note {note.id} “Bike”."
    pending.confirm(hearth, held.id)
    assert hearth.notes.list() == []


def test_a_reminder_snoozed_by_the_model_moves_only_on_confirm(hearth, server) -> None:
    reminder = hearth.reminders.create("call the dentist", clock.now() + timedelta(minutes=5),
                                       zone="UTC")
    server.script(call("snooze_reminder", id=reminder.id, minutes=60), "Held.")
    session_id, _ = turn(over_http(hearth, server), "remind me about the dentist in an hour")
    (held,) = pending.list_pending(hearth, session_id)
    assert held.preview == f"Snooze reminder {reminder.id} “call the dentist” for 60 minutes."
    assert hearth.reminders.get(reminder.id).remind_at == reminder.remind_at
    done = pending.confirm(hearth, held.id)
    moved = hearth.reminders.get(reminder.id)
    assert moved.snooze_count == 1
    assert abs(moved.remind_at - clock.now() - timedelta(minutes=60)) < timedelta(minutes=1)
    assert done.value.result.startswith(f"Snoozed reminder {reminder.id} “call the dentist” to ")


def test_bad_snoozes_and_prompt_changes_are_refused_before_anyone_is_asked(hearth,
                                                                           server) -> None:
    reminder = hearth.reminders.create("stretch", clock.now() + timedelta(minutes=5))
    row = hearth.scheduled_prompts.create("Morning plan", "What is on today?", "0 8 * * 1-5")
    both = FakeReply(text="", tool_calls=[
        {"name": "snooze_reminder", "arguments": {"id": reminder.id}},
        {"name": "snooze_reminder", "arguments": {"id": reminder.id, "minutes": 0}}])
    server.script(both, call("update_scheduled_prompt", id=row.id, cron="every morning"),
                  call("update_scheduled_prompt", id=row.id),
                  call("delete_scheduled_prompt", id=77), "Sorry.")
    session_id, activities = turn(over_http(hearth, server), "change my schedule")
    assert [a.ok for a in activities] == [False] * 5
    results = [m["content"] for m in server.chat_requests()[-1]["messages"]
               if m["role"] == "tool"]
    assert results[0].startswith("error: A snooze needs either minutes or a time.")
    assert results[1].startswith("error: A snooze must end in the future")
    assert results[2].startswith("error: 'every morning' is not a 5-field cron schedule.")
    assert results[3].startswith("error: The change names nothing to change.")
    assert results[4].startswith("error: There is no scheduled prompt 77.")
    assert pending.list_pending(hearth, session_id) == ()
    assert hearth.scheduled_prompts.get(row.id).cron == "0 8 * * 1-5"


def test_a_scheduled_prompt_is_listed_paused_and_deleted_through_the_gate(hearth,
                                                                          server) -> None:
    row = hearth.scheduled_prompts.create("Morning plan", "What is on today?", "0 8 * * 1-5",
                                          zone="Europe/Lisbon")
    server.script(call("list_scheduled_prompts"),
                  call("update_scheduled_prompt", id=row.id, enabled=False, cron="30 7 * * *"),
                  "Held.")
    chat = over_http(hearth, server)
    session_id, activities = turn(chat, "pause my morning plan, and make it 7:30 daily")
    assert all(a.ok for a in activities)
    listed = [m["content"] for m in server.chat_requests()[-1]["messages"]
              if m["role"] == "tool"][0]
    assert listed == (f"- [scheduled prompt {row.id}, 0 8 * * 1-5 Europe/Lisbon] "
                      "Morning plan: What is on today?")
    (held,) = pending.list_pending(hearth, session_id)
    assert held.preview == (f"Change the scheduled prompt {row.id} “Morning plan”: schedule "
                            "to 30 7 * * *, pause it.")
    assert hearth.scheduled_prompts.get(row.id).enabled  # not yet
    done = pending.confirm(hearth, held.id)
    assert done.value.result == ("Changed the scheduled prompt “Morning plan” (30 7 * * *, "
                                 "Europe/Lisbon, paused).")
    changed = hearth.scheduled_prompts.get(row.id)
    assert (changed.cron, changed.enabled) == ("30 7 * * *", False)

    server.script(call("delete_scheduled_prompt", id=row.id), "Held.")
    turn(chat, "actually delete it", session_id)
    (held,) = pending.list_pending(hearth, session_id)
    assert held.preview == f"Delete the scheduled prompt {row.id} “Morning plan”."
    pending.confirm(hearth, held.id)
    assert hearth.scheduled_prompts.list() == []
