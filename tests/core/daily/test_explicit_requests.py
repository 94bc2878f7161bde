"""``core.daily.explicit``: the rules that turn "remind me tomorrow at 9 to call the dentist",
"add a task: renew passport by Friday" and "note: ..." into the request a tool call would
make, for the embedded model that has no tools, and leave everything else to the model.
Pure: no database. docs/assistant.md ("Explicit requests without tool calls") is the rule
book."""

from __future__ import annotations

import dataclasses
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from core.daily.explicit import MAX_MESSAGE_CHARS, ExplicitRequest, explicit_request

PARIS = ZoneInfo("Europe/Paris")
NOW = datetime(2026, 11, 25, 10, 0, tzinfo=PARIS)  # a Wednesday, 09:00 UTC


def reminder(message: str, remind_at: str) -> tuple[str, dict[str, Any]]:
    return "reminder.create", {"message": message, "remind_at": remind_at}


def task(title: str, due: str | None = None) -> tuple[str, dict[str, Any]]:
    return "task.create", {"title": title, "due_date": due}


def note(content: str, title: str | None = None) -> tuple[str, dict[str, Any]]:
    return "note.create", {"title": title, "content": content}


TOMORROW_9 = "2026-11-26T08:00:00+00:00"

MATCHES = [
    # reminders: "<when> to <what>" and "to <what> <when>"
    ("remind me tomorrow at 9 to call the dentist", reminder("call the dentist", TOMORROW_9)),
    ("remind me to call the dentist tomorrow at 9", reminder("call the dentist", TOMORROW_9)),
    ("Remind me at 9 tomorrow to call the dentist", reminder("call the dentist", TOMORROW_9)),
    ("set a reminder for Friday 3pm: pay rent",
     reminder("pay rent", "2026-11-27T14:00:00+00:00")),
    ("reminder: water plants in 2 hours",
     reminder("water plants", "2026-11-25T11:00:00+00:00")),
    ("remind me in 20 minutes to take the pizza out",
     reminder("take the pizza out", "2026-11-25T09:20:00+00:00")),
    ("remind me on Friday to renew the parking permit",
     reminder("renew the parking permit", "2026-11-27T08:00:00+00:00")),
    ("remind me next Monday 3pm to send the invoice",
     reminder("send the invoice", "2026-11-30T14:00:00+00:00")),
    ("remind me on 3 March to book the MOT",
     reminder("book the MOT", "2027-03-03T08:00:00+00:00")),
    ("remind me tonight to take the bins out",
     reminder("take the bins out", "2026-11-25T19:00:00+00:00")),
    ("remind me this evening to call Ana", reminder("call Ana", "2026-11-25T17:00:00+00:00")),
    ("remind me at noon to eat something", reminder("eat something",
                                                    "2026-11-25T11:00:00+00:00")),
    ("remind me at 9 to stretch", reminder("stretch", TOMORROW_9)),  # 09:00 is past today
    ("remind me at 11 to stretch", reminder("stretch", "2026-11-25T10:00:00+00:00")),
    ("please, remind me at 11 to stretch?", reminder("stretch", "2026-11-25T10:00:00+00:00")),
    ("remind me about the meeting tomorrow morning", reminder("the meeting", TOMORROW_9)),
    ("remind me tomorrow that the bins go out", reminder("the bins go out", TOMORROW_9)),
    ("Could you remind me in half an hour to check the oven?",
     reminder("check the oven", "2026-11-25T09:30:00+00:00")),
    ("please remind me at 7 in the evening to call grandma",
     reminder("call grandma", "2026-11-25T18:00:00+00:00")),
    ("remind me to pay the gas bill on the 1st of December",
     reminder("pay the gas bill", "2026-12-01T08:00:00+00:00")),
    ("remind me in 3 days to water the garden",
     reminder("water the garden", "2026-11-28T09:00:00+00:00")),
    ("hey Hearth, remind me to call Ana at 5 tomorrow",
     reminder("call Ana", "2026-11-26T16:00:00+00:00")),
    ("set a reminder to pay rent on Friday at 3pm",
     reminder("pay rent", "2026-11-27T14:00:00+00:00")),
    ("remind me tomorrow at 9:30am: dentist", reminder("dentist", "2026-11-26T08:30:00+00:00")),
    ("remind me on 2026-12-24 at 18:00 to call home",
     reminder("call home", "2026-12-24T17:00:00+00:00")),
    ("remind me at midnight to take my pill",
     reminder("take my pill", "2026-11-25T23:00:00+00:00")),
    ("remind me friday, 3pm: pay rent", reminder("pay rent", "2026-11-27T14:00:00+00:00")),
    ("reminder for tomorrow at 9: call mum", reminder("call mum", TOMORROW_9)),
    ("set a reminder at 5pm to take meds", reminder("take meds", "2026-11-25T16:00:00+00:00")),
    ("remind me on Wednesday to water the plants",  # said on a Wednesday: next week's
     reminder("water the plants", "2026-12-02T08:00:00+00:00")),
    ("Hearth, please remind me on 3 March to book the dentist, thanks!",
     reminder("book the dentist", "2027-03-03T08:00:00+00:00")),
    # odd Unicode: emoji, right-to-left text, no-break spaces, curly apostrophes
    ("remind me tomorrow at 9 to water the plants \U0001f331",
     reminder("water the plants \U0001f331", TOMORROW_9)),
    ("remind me tomorrow at 9 to call \u05d0\u05de\u05d0",
     reminder("call \u05d0\u05de\u05d0", TOMORROW_9)),
    ("remind me\u00a0tomorrow\u00a0at 9 to call the dentist",
     reminder("call the dentist", TOMORROW_9)),
    ("remind me at 9\u202fpm to lock up", reminder("lock up", "2026-11-25T20:00:00+00:00")),
    ("remind me tomorrow at 9 o\u2019clock to call the dentist",
     reminder("call the dentist", TOMORROW_9)),
    ("\u200fremind me to call the dentist tomorrow at 9\u200f",
     reminder("call the dentist", TOMORROW_9)),
    # tasks
    ("add a task: renew passport by Friday", task("renew passport", "2026-11-27")),
    ("add task renew passport", task("renew passport")),
    ("add a task for tomorrow: call mum", task("call mum", "2026-11-26")),
    ("todo: buy milk", task("buy milk")),
    ("new task: file taxes due April 15", task("file taxes", "2027-04-15")),
    ("put 'call mum' on my to-do list", task("call mum")),
    ("put \u201ccall mum\u201d on my to-do list", task("call mum")),
    ("add buy milk to my todo list", task("buy milk")),
    ("To-do: book flights by the end of the month", task("book flights", "2026-11-30")),
    ("add a task: send the report due tomorrow", task("send the report", "2026-11-26")),
    ("add a new task \u2013 clean the gutters by next week",
     task("clean the gutters", "2026-11-30")),
    ("task: fix the bike by the weekend", task("fix the bike", "2026-11-28")),
    ("add a task: call the bank on 2 December", task("call the bank", "2026-12-02")),
    ("create a task: pay the plumber \U0001f527 by Fri",
     task("pay the plumber \U0001f527", "2026-11-27")),
    ("add to-do: water the plants today", task("water the plants", "2026-11-25")),
    ("todo: buy milk by 5pm", task("buy milk by 5pm")),  # a time is no due day: kept as said
    ("add task:\u00a0\u0627\u0644\u0627\u062a\u0635\u0627\u0644 \u0628\u0623\u0645\u064a",
     task("\u0627\u0644\u0627\u062a\u0635\u0627\u0644 \u0628\u0623\u0645\u064a")),
    # notes
    ("note: the wifi password is on the router", note("the wifi password is on the router")),
    ("take a note: the plumber comes on Tuesday", note("the plumber comes on Tuesday")),
    ("make a note that the boiler was serviced in May",
     note("the boiler was serviced in May")),
    ("save a note titled Wifi: the password is on the router",
     note("the password is on the router", "Wifi")),
    ("save a note called \u201cBooks\u201d: Piranesi, Circe", note("Piranesi, Circe", "Books")),
    ("note to self: call the vet", note("call the vet")),
    ("note: shopping\n- eggs\n- milk", note("shopping\n- eggs\n- milk")),
    ("Note: \u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645",
     note("\u0645\u0631\u062d\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645")),
    ("jot down a note: ideas for the garden \U0001f33b",
     note("ideas for the garden \U0001f33b")),
]

NON_MATCHES = [
    # questions and talk about reminders, tasks and notes
    "can you remind me what we discussed?",
    "do you remember my task list?",
    "I need to note that I'm tired",
    "what tasks do I have today?",
    "remind me what time the meeting is tomorrow",
    "reminders are annoying",
    "Task: what's the capital of France?",
    "remind me tomorrow at 9 to call the dentist?",  # a question, not a polite request
    "remind me tomorrow at 9 to call the dentist. Also, what's the weather?",
    "I wrote note: call Ana on a post-it",
    "the note: was smudged when I got it",
    "note that the meeting moved",  # emphasis, not a request to save anything
    "make a to-do list for the trip",
    "create a task manager app in Python",
    # no time, or a time that has passed or cannot be read
    "remind me to call mum",
    "Remind me later",
    "remind me yesterday at 9 to call mum",
    "remind me this morning to stretch",  # 09:00 today has passed at 10:00
    "remind me on 1/12 to pay rent",  # day and month order differs between countries
    "remind me that the meeting is at 3",  # the time belongs to what is said
    "add a task: renew passport by yesterday",
    # pasted and quoted material
    "```\nnote: not a note\n```",
    "> remind me tomorrow at 9 to call the dentist",
    "\u201cremind me tomorrow at 9 to call the dentist,\u201d she said",
    "note: " + "x" * MAX_MESSAGE_CHARS,
    "remind me tomorrow at 9\nto call the dentist",
    # nothing to do
    "add task",
    "todo:",
    "note:   ",
    "remind me tomorrow at 9 to",
]


@pytest.mark.parametrize(("text", "expected"), MATCHES, ids=[m[0][:50] for m in MATCHES])
def test_an_explicit_request_is_read(text: str, expected: tuple[str, dict[str, Any]]) -> None:
    request = explicit_request(text, now=NOW, zone=PARIS)
    assert request is not None
    assert (request.action, request.arguments) == expected


@pytest.mark.parametrize("text", NON_MATCHES, ids=[t[:50] for t in NON_MATCHES])
def test_what_is_left_to_the_model(text: str) -> None:
    assert explicit_request(text, now=NOW, zone=PARIS) is None


def test_the_table_is_as_large_as_promised() -> None:
    assert len(MATCHES) + len(NON_MATCHES) >= 60
    assert len(NON_MATCHES) >= 15


@pytest.mark.parametrize(("zone", "text", "expected"), [
    (ZoneInfo("America/New_York"), "remind me tomorrow at 9 to call the dentist",
     reminder("call the dentist", "2026-11-26T14:00:00+00:00")),
    (ZoneInfo("Asia/Kolkata"), "remind me at 9 to stretch",
     reminder("stretch", "2026-11-26T03:30:00+00:00")),
    (ZoneInfo("Asia/Kolkata"), "remind me in 20 minutes to take the pizza out",
     reminder("take the pizza out", "2026-11-25T04:50:00+00:00")),
    (ZoneInfo("UTC"), "add a task: renew passport by Friday", task("renew passport",
                                                                  "2026-11-27")),
])
def test_the_users_zone_sets_the_wall_clock(zone: ZoneInfo, text: str,
                                            expected: tuple[str, dict[str, Any]]) -> None:
    now = datetime(2026, 11, 25, 10, 0, tzinfo=zone)
    request = explicit_request(text, now=now, zone=zone)
    assert request is not None and (request.action, request.arguments) == expected


def test_tomorrow_at_9_across_the_autumn_clock_change() -> None:
    saturday = datetime(2026, 10, 24, 10, 0, tzinfo=PARIS)  # CEST; Sunday is CET
    request = explicit_request("remind me tomorrow at 9 to change the clocks", now=saturday,
                               zone=PARIS)
    assert request is not None
    assert request.arguments["remind_at"] == "2026-10-25T08:00:00+00:00"
    assert request.preview == "Remind you on Sun 25 Oct at 09:00: change the clocks"


@pytest.mark.parametrize(("text", "preview"), [
    ("remind me tomorrow at 9 to call the dentist",
     "Remind you on Thu 26 Nov at 09:00: call the dentist"),
    ("add a task: renew passport by Friday",
     "Add the task \u201crenew passport\u201d, due Fri 27 Nov"),
    ("todo: buy milk", "Add the task \u201cbuy milk\u201d"),
    ("new task: file taxes due April 15",
     "Add the task \u201cfile taxes\u201d, due Thu 15 Apr 2027"),
    ("note: the wifi password is on the router",
     "Save a note: the wifi password is on the router"),
    ("save a note titled Wifi: the password is on the router",
     "Save the note \u201cWifi\u201d: the password is on the router"),
])
def test_the_preview_says_what_will_happen_in_the_users_zone(text: str, preview: str) -> None:
    request = explicit_request(text, now=NOW, zone=PARIS)
    assert request is not None and request.preview == preview


def test_a_long_note_is_shortened_in_the_preview_only() -> None:
    content = " ".join(["word"] * 60)
    request = explicit_request(f"note: {content}", now=NOW, zone=PARIS)
    assert request is not None and request.arguments["content"] == content
    assert request.preview.startswith("Save a note: word word")
    assert request.preview.endswith("\u2026") and len(request.preview) <= len("Save a note: ") + 80


def test_a_naive_now_is_refused_even_for_a_message_that_is_no_request() -> None:
    with pytest.raises(ValueError, match="timezone-aware"):
        explicit_request("hello", now=datetime(2026, 11, 25, 10, 0), zone=PARIS)


def test_a_request_is_plain_frozen_data() -> None:
    request = explicit_request("todo: buy milk", now=NOW, zone=PARIS)
    assert isinstance(request, ExplicitRequest)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.action = "note.create"  # type: ignore[misc]
