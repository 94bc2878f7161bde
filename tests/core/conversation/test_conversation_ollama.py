"""A turn over the wire: ``ConversationService`` with the real ``OllamaProvider`` (the
official ``ollama`` client) talking HTTP to the scripted Ollama-compatible server.

What the server received proves what the model was given (facts, profile, context blocks
within budget, the tools), that tool calls are executed, and that a dropped connection or a
slow server ends the turn with a clear message while the user's words are kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from support.fake_ollama import FakeModel, FakeOllama, FakeReply

from core.app import Hearth
from core.config import Settings
from core.conversation import (
    ConversationService,
    TextDelta,
    ToolActivity,
    TurnFailed,
    TurnFinished,
)
from core.llm.token_estimates import estimate_tokens
from core.llm.ollama import OllamaProvider
from core.storage.orm import AboutYouVersion

MODEL = "llama3.2:3b"


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, settings=Settings(), embedder=embedder) as opened:
        yield opened


@pytest.fixture
def server() -> Iterator[FakeOllama]:
    with FakeOllama(models=[FakeModel(MODEL, num_ctx=8192)]) as running:
        yield running


def conversation(hearth: Hearth, server: FakeOllama, *, timeout: float = 10.0
                 ) -> ConversationService:
    provider = OllamaProvider(server.url, MODEL, timeout=timeout, retries=0)
    return hearth.conversation(provider, clock=lambda: datetime(
        2026, 4, 24, 9, 15, tzinfo=ZoneInfo("Europe/Paris")))


def test_the_model_receives_memory_within_budget_and_its_tool_calls_run(hearth,
                                                                        server) -> None:
    hearth.facts.remember("partner_name", "Ana", category="personal")
    with hearth.storage.write() as session:
        session.add(AboutYouVersion(content="Runs every morning; prefers short answers."))
    hearth.memories.add("The user is training for the Lisbon half marathon in May.")
    server.script(FakeReply(text="Let me save that.",
                            tool_calls=[{"name": "remember_fact", "arguments": {
                                "key": "race_date", "value": "17 May",
                                "category": "personal"}}]),
                  "Saved: your race is on 17 May.")
    chat = conversation(hearth, server)

    events = list(chat.send(chat.sessions.new_session(), "My half marathon is on 17 May."))

    assert isinstance(events[-1], TurnFinished)
    assert "".join(e.text for e in events if isinstance(e, TextDelta)) \
        == "Let me save that.\n\nSaved: your race is on 17 May."
    assert [e.name for e in events if isinstance(e, ToolActivity)] == ["remember_fact"]
    assert hearth.facts.get("race_date").value == "17 May"

    first, second = server.chat_requests()
    system, user = first["messages"]
    assert system["role"] == "system"
    assert "*Personal*\n- partner_name: Ana" in system["content"]
    assert "Runs every morning; prefers short answers." in system["content"]
    assert user["content"].startswith("[Friday, April 24, 2026 — 09:15 AM Europe/Paris]")
    block = user["content"][user["content"].index('<context type="memories">'):
                            user["content"].index("</context>") + len("</context>")]
    assert "training for the Lisbon half marathon" in block
    assert estimate_tokens(block) <= hearth.settings.context_token_budget
    assert {tool["function"]["name"] for tool in first["tools"]} == {
        "remember_fact", "recall_facts", "forget_fact", "search_memory", "search_history",
        "record_observation", "create_task", "list_tasks", "complete_task", "update_task",
        "delete_task", "set_reminder", "list_reminders", "snooze_reminder", "cancel_reminder",
        "save_note", "update_note", "delete_note", "search_notes", "schedule_prompt",
        "list_scheduled_prompts", "update_scheduled_prompt", "delete_scheduled_prompt",
        "add_journal_entry", "save_read_later", "search_read_later", "find_everything"}
    assert second["messages"][-1] == {"role": "tool", "content": "created: race_date = 17 May",
                                      "tool_name": "remember_fact"}
    assert second["messages"][0]["content"] == system["content"]


def test_a_connection_dropped_mid_reply_fails_clearly_and_keeps_everything(hearth,
                                                                           server) -> None:
    server.script(FakeReply(text="Your training plan for this week is", drop_after=3))
    chat = conversation(hearth, server)
    session_id = chat.sessions.new_session()

    events = list(chat.send(session_id, "Plan my training week."))

    failed = events[-1]
    assert isinstance(failed, TurnFailed) and failed.message and failed.hint
    partial = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert partial == "Your training plan"
    (exchange,) = chat.sessions.session_history(session_id)
    assert (exchange.user_message, exchange.agent_response, exchange.status) == (
        "Plan my training week.", partial, "failed")


def test_a_slow_server_times_out_clearly_and_keeps_the_message(hearth, server) -> None:
    server.script(FakeReply(text="Too late.", delay=3.0))
    chat = conversation(hearth, server, timeout=0.5)
    session_id = chat.sessions.new_session()

    events = list(chat.send(session_id, "Are you there?"))

    assert len(events) == 1 and isinstance(events[0], TurnFailed)
    assert "did not answer within 0.5 seconds" in events[0].message
    assert "ollama_timeout_seconds" in events[0].hint
    (exchange,) = chat.sessions.session_history(session_id)
    assert (exchange.user_message, exchange.status) == ("Are you there?", "failed")
