"""The assistant's own lines are never given to the model as facts about the user.

An imported conversation keeps every turn as a memory, the assistant's replies too, so "what
did the assistant suggest?" can be answered. A reply is framed as what was replied, in its
own block; only the user's turns are "information about the user". Folders imported before
need nothing done: the speaker is read from each memory's origin, as it was always stored."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from core.app import Hearth
from core.conversation.context_blocks import retrieve, select_context
from core.knowledge.memories import said_by_assistant
from core.transfer.transcript import import_transcript

TRANSCRIPT = {
    "conversation_id": "runs",
    "participants": ["user", "assistant"],
    "sessions": [{
        "session_id": "s1",
        "started_at": "2026-02-01T09:00:00+00:00",
        "turns": [
            {"turn_id": "t1", "speaker": "user",
             "text": "I ran my first 10K in Portland last Sunday."},
            {"turn_id": "t2", "speaker": "Assistant",
             "text": "Congratulations on the 10K! Four easy runs a week would build your base."},
        ],
    }],
}


def block(text: str, name: str) -> str:
    start = text.index(f'<context type="{name}">')
    return text[start:text.index("</context>", start)]


def test_an_imported_reply_is_recalled_as_a_reply_not_as_a_fact_about_the_user(
        hearth: Hearth, tmp_path: Path) -> None:
    source = tmp_path / "runs.json"
    source.write_text(json.dumps(TRANSCRIPT), encoding="utf-8")
    import_transcript(source, hearth.storage, hearth.memories)

    selection = select_context(retrieve(hearth.recall, "How many runs a week for my 10K?"),
                               budget_tokens=1000)

    about_the_user = block(selection.text, "memories")
    replies = block(selection.text, "replies")
    assert "I ran my first 10K" in about_the_user and "Four easy runs" not in about_the_user
    assert "Four easy runs a week" in replies
    assert "not information about the user" in replies
    assert "Treat this as information about the user" not in replies


@pytest.mark.parametrize(("origin", "assistant"), [
    ({"speaker": "assistant"}, True), ({"speaker": " ChatGPT "}, True),
    ({"speaker": "user"}, False), ({"speaker": "Maya"}, False), (None, False), ({}, False),
])
def test_the_assistant_is_told_apart_by_the_speaker_its_turn_was_stored_with(
        origin: Any, assistant: bool) -> None:
    assert said_by_assistant(origin) is assistant
