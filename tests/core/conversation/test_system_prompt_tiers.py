"""Working memory and the scaffold reach every turn's system prompt, stably."""

from __future__ import annotations

from core.conversation.system_prompt import build_system_prompt, read_snapshot
from core.storage.orm import NotesAboutYouVersion, WorkingMemoryVersion


def prompt_text(storage) -> str:
    with storage.read() as session:
        snapshot = read_snapshot(session)
    return build_system_prompt(snapshot, supports_tools=True, about_you_char_cap=4800,
                               max_tokens=4000).text


def test_the_newest_working_memory_and_scaffold_are_in_the_prompt(storage) -> None:
    assert "working memory" not in prompt_text(storage)
    with storage.write() as session:
        session.add(WorkingMemoryVersion(content="Preparing the Lisbon move."))
        session.add(NotesAboutYouVersion(data={"Projects": {"move": "Lisbon"}, "Role": "nurse"}))
    with storage.write() as session:
        session.add(WorkingMemoryVersion(content="Settling into Lisbon; job starts Monday."))
    text = prompt_text(storage)
    assert "Settling into Lisbon; job starts Monday." in text
    assert "Preparing the Lisbon move." not in text
    assert '{"Projects": {"move": "Lisbon"}, "Role": "nurse"}' in text


def test_the_scaffold_renders_the_same_bytes_whatever_its_key_order(storage) -> None:
    with storage.write() as session:
        session.add(NotesAboutYouVersion(data={"b": 1, "a": {"y": 2, "x": 1}}))
    first = prompt_text(storage)
    with storage.write() as session:
        session.add(NotesAboutYouVersion(data={"a": {"x": 1, "y": 2}, "b": 1}))
    assert prompt_text(storage) == first
