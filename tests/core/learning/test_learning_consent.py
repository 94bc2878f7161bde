"""A chat the user asked Hearth not to learn from, and learning paused everywhere: nothing
said there becomes a fact, an observation, a memory candidate or a summary, whichever path
would learn it (the pipeline, the session digest, the assistant's tools, compaction).

Storage, embeddings and rules are real; the model is scripted."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import func, select
from support.scripted_llm import Reply, ScriptedLLM

from core.app import Hearth
from core.assistant import Assistant
from core.conversation.compaction import Compactor
from core.errors import InvalidInputError
from core.learning.exclusions import ExclusionGate
from core.llm import ToolCall
from core.storage.orm import (
    ChatSession,
    ContextEvent,
    Interaction,
    Memory,
    Note,
    UserFact,
)


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def counts(hearth: Hearth) -> dict[str, int]:
    """What learning writes: facts, events (observations, candidates), memories, notes."""
    with hearth.storage.read() as session:
        return {table.__tablename__: session.scalar(select(func.count()).select_from(table))
                for table in (UserFact, ContextEvent, Memory, Note)}


NOTHING = {"user_facts": 0, "context_events": 0, "memories": 0, "notes": 0}

DIGEST = json.dumps({"summaries": [{"topic": "family", "summary": "Sister Priya in Lisbon"}],
                     "candidates": [{"content": "My sister Priya lives in Lisbon"}]})


def answers(kind: str, _messages: object, extra: dict) -> object:
    """A model that learns eagerly: it stores the fact with its tool, and its extraction
    and digest find it too."""
    if kind == "structured":
        fields = extra["schema"].get("properties", {})
        if "summaries" in fields:
            return DIGEST
        return json.dumps({"facts": [{"key": "sister city", "value": "Lisbon",
                                      "category": "personal"}]})
    return "Noted."


def chat(hearth: Hearth, *, learn: bool, paused: bool = False) -> str:
    """Two exchanges in a chat (with a remember tool call each), then the chat is closed."""
    hearth.settings.learning_paused = paused
    remember = ToolCall("remember_fact", {"key": "sister_home_city", "value": "Lisbon"})
    observe = ToolCall("record_observation", {"content": "My sister Priya lives in Lisbon"})
    script = iter([Reply("", (remember, observe)), "Noted.", Reply("", (remember,)), "Noted."])
    llm = ScriptedLLM(lambda kind, messages, extra: (
        next(script) if kind == "chat" else answers(kind, messages, extra)))
    assistant = Assistant.start(hearth, provider=llm)
    conversation = assistant.conversation
    session_id = conversation.sessions.new_session()
    if not learn:
        conversation.sessions.set_learning(session_id, False)
    for text in ("My sister Priya lives in Lisbon", "My brother Tom works at Google"):
        list(conversation.send(session_id, text))
    assistant.learning.session_ended(session_id)
    assert assistant.close(timeout=60)
    return session_id


def test_a_chat_not_to_learn_from_teaches_nothing(hearth) -> None:
    session_id = chat(hearth, learn=False)
    assert counts(hearth) == NOTHING
    with hearth.storage.read() as session:
        assert session.get(ChatSession, session_id).learn_from is False
        assert session.scalar(select(func.count()).select_from(Interaction)) == 2  # kept


def test_paused_learning_teaches_nothing_from_any_path(hearth) -> None:
    chat(hearth, learn=True, paused=True)
    assert counts(hearth) == NOTHING


def test_the_same_chat_learned_from_does_learn(hearth) -> None:
    """The control: the same script in an ordinary chat stores facts, events and notes."""
    chat(hearth, learn=True)
    learned = counts(hearth)
    assert learned["user_facts"] >= 3 and learned["context_events"] >= 3
    assert learned["notes"] == 1


def test_compaction_keeps_the_summary_but_no_candidate_without_learning(hearth) -> None:
    result = json.dumps({"summary": "They talked about family.", "candidates": [
        {"content": "My sister Priya lives in Lisbon"}]})
    llm = ScriptedLLM(lambda *_: result)
    with hearth.storage.write() as session:
        session.add(ChatSession(id="c", title="t"))
        session.add_all(Interaction(session_id="c", user_message="My sister Priya lives in "
                                    f"Lisbon ({n})", agent_response="Noted.") for n in range(8))
    done = Compactor(hearth.storage, llm).compact("c", gate=ExclusionGate(()),
                                                  exclude_id=None, learn=False)
    assert done is not None and done.events == 0 and done.dropped == 1
    assert counts(hearth)["context_events"] == 0
    with hearth.storage.read() as session:
        assert session.get(ChatSession, "c").compaction_summary == "They talked about family."


def test_an_incognito_chat_teaches_nothing_and_is_deleted_when_left(hearth) -> None:
    llm = ScriptedLLM(lambda kind, messages, extra: answers(kind, messages, extra))
    assistant = Assistant.start(hearth, provider=llm)
    conversation = assistant.conversation
    kept = conversation.sessions.new_session()
    private = conversation.sessions.new_session(incognito=True)
    (info,) = [s for s in conversation.sessions.recent_sessions() if s.id == private]
    assert info.incognito and not info.learns
    list(conversation.send(private, "My sister Priya lives in Lisbon"))
    assert assistant.learning.drain(timeout=60)
    assert counts(hearth) == NOTHING
    with pytest.raises(InvalidInputError):
        conversation.sessions.set_learning(private, True)

    assert conversation.sessions.discard_incognito(keep=private) == 0  # the open one stays
    assert assistant.close(timeout=60)  # quitting deletes it, with its messages
    with hearth.storage.read() as session:
        assert session.get(ChatSession, private) is None
        assert session.get(ChatSession, kept) is not None
        assert session.scalar(select(func.count()).select_from(Interaction)) == 0
    assert counts(hearth) == NOTHING
