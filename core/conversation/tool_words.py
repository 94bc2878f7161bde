"""What the assistant did with a tool, said as a person would: "Prepared a reminder: it waits
for your Confirm below" rather than "set_reminder: held pending action 1 (reminder.create)".

A tool's call is recorded by its name and a one-line summary written for the audit log
(``record_tool_call``); both are precise and stay as they are (the window shows them behind
Details). The chat shows this sentence instead.
"""

from __future__ import annotations

import re

TOOL_WORDS = {
    "remember_fact": "Remembered a fact", "recall_facts": "Looked up your facts",
    "forget_fact": "Asked to forget a fact", "search_memory": "Searched your memories",
    "search_history": "Searched your earlier chats",
    "record_observation": "Noted something about you",
    "create_task": "Prepared a task", "list_tasks": "Looked at your tasks",
    "complete_task": "Prepared to mark a task done", "update_task": "Prepared a change to a task",
    "delete_task": "Prepared to delete a task", "set_reminder": "Prepared a reminder",
    "list_reminders": "Looked at your reminders",
    "cancel_reminder": "Prepared to cancel a reminder",
    "snooze_reminder": "Prepared to snooze a reminder", "save_note": "Prepared a note",
    "update_note": "Prepared a change to a note", "delete_note": "Prepared to delete a note",
    "search_notes": "Searched your notes", "schedule_prompt": "Prepared a scheduled prompt",
    "list_scheduled_prompts": "Looked at your scheduled prompts",
    "update_scheduled_prompt": "Prepared a change to a scheduled prompt",
    "delete_scheduled_prompt": "Prepared to delete a scheduled prompt",
    "add_journal_entry": "Saved a journal entry",
    "save_read_later": "Saved an article to read later",
    "search_read_later": "Searched your reading list", "find_everything": "Searched everything",
}
"""Each tool of ``core.conversation.tools`` and ``daily_tools``, as what it did."""
HELD = re.compile(r"^(already )?held pending action \d+")
COUNTED = re.compile(r"^(\d+) (\w+)")
"""A reading tool's summary starts with what it found: "3 facts", "0 tasks"."""


def tool_words(name: str, summary: str, ok: bool = True) -> str:
    """The sentence a chat shows for one tool the assistant used."""
    did = TOOL_WORDS.get(name, name.replace("_", " ").capitalize())
    if not ok:
        return f"{did}: it did not work"
    if HELD.match(summary):
        return f"{did}: it waits for your Confirm below"
    counted = COUNTED.match(summary)
    if counted is not None:
        return f"{did} ({counted.group(1)} {counted.group(2)} found)"
    return did
