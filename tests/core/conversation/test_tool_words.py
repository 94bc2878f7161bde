"""``core.conversation.tool_words``: what a chat says for a tool the assistant used, in
words, instead of the audit log's "set_reminder: held pending action 1 (reminder.create)"."""

from __future__ import annotations

import pytest

from core.conversation.daily_tools import DAILY_TOOL_SPECS
from core.conversation.tool_words import TOOL_WORDS, tool_words
from core.conversation.tools import TOOL_SPECS


@pytest.mark.parametrize(("name", "summary", "ok", "words"), [
    ("set_reminder", "held pending action 1 (reminder.create)", True,
     "Prepared a reminder: it waits for your Confirm below"),
    ("create_task", "already held pending action 4", True,
     "Prepared a task: it waits for your Confirm below"),
    ("recall_facts", "3 facts found", True, "Looked up your facts (3 facts found)"),
    ("list_tasks", "0 tasks", True, "Looked at your tasks (0 tasks found)"),
    ("search_memory", "error: the tool failed (ValueError)", False,
     "Searched your memories: it did not work"),
    ("remember_fact", "stored home_city", True, "Remembered a fact"),
    ("brand_new_tool", "done", True, "Brand new tool"),
])
def test_a_tool_in_words(name: str, summary: str, ok: bool, words: str) -> None:
    assert tool_words(name, summary, ok) == words


def test_every_tool_the_assistant_has_is_named_in_words() -> None:
    assert {spec.name for spec in (*TOOL_SPECS, *DAILY_TOOL_SPECS)} <= set(TOOL_WORDS)
