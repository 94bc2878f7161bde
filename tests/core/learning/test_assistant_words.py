"""The assistant's words are never stored as facts or memories about the user.

Its replies stay conversation history and a model may read them as context, but what a
model proposes about the user (a fact, a memory candidate at compaction, a fact or an
observation through a tool) is kept only when the user's own words carry it. The model is
scripted (pipeline logic); storage and embeddings are real. Fact extraction and the
session digest are covered in ``test_learning_pipeline.py``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import select
from support.scripted_llm import Reply, ScriptedLLM

from core.app import Hearth
from core.conversation import ToolActivity
from core.conversation.compaction import Compactor
from core.learning.exclusions import ExclusionGate
from core.learning.grounding import Said, is_grounded
from core.llm import ToolCall
from core.storage.orm import ChatSession, ContextEvent, Interaction

NOW = datetime(2026, 4, 24, 9, 15, tzinfo=ZoneInfo("Europe/Paris"))


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def add_exchange(hearth: Hearth, session_id: str, user: str, reply: str) -> int:
    with hearth.storage.write() as session:
        if session.get(ChatSession, session_id) is None:
            session.add(ChatSession(id=session_id, title="test"))
        row = Interaction(session_id=session_id, user_message=user, agent_response=reply,
                          status="completed")
        session.add(row)
        session.flush()
        return row.id


def events(hearth: Hearth) -> list[ContextEvent]:
    with hearth.storage.read() as session:
        rows = list(session.scalars(select(ContextEvent).order_by(ContextEvent.id)))
        session.expunge_all()
        return rows


def candidate(content: str) -> dict[str, str]:
    return {"content": content, "memory_type": "semantic", "priority": "medium",
            "namespace": "user"}


# --- the rule --------------------------------------------------------------------------

@pytest.mark.parametrize(("user", "assistant", "proposed", "kept"), [
    # only the assistant said it
    ("Any ideas for dinner?", "Try a Thai green curry.", "The user loves Thai green curry",
     False),
    # partly the assistant's: the suggestion is not the user's
    ("We're redoing the kitchen.", "Walnut worktops would look great.",
     "The user is redoing the kitchen with walnut worktops", False),
    # the user's, repeated by the assistant
    ("I'm allergic to peanuts.", "Noted: you're allergic to peanuts.",
     "The user is allergic to peanuts", True),
    # the model's own paraphrase of the user's words
    ("Oak worktops, fitter Friday.", "Noted.", "Prefers oak over laminate for worktops",
     True),
    # an answer to the assistant's question: the question's words are stock words
    ("Lisbon.", "Where do you live?", "The user lives in Lisbon", True),
    # inflections agree on both sides
    ("We're moving to Porto in June.", "Good luck with the move!",
     "The user is moving to Porto in June", True),
])
def test_a_proposal_resting_on_the_assistants_words_is_not_the_users(
        user: str, assistant: str, proposed: str, kept: bool) -> None:
    assert Said.of(user, assistant).users_own(proposed) is kept


def test_a_fact_value_must_be_in_the_users_words_and_its_subject_not_only_the_assistants(
        ) -> None:
    said = Said.of("Tom is coming to stay next week.", "Is Tom your brother? What a treat.")
    assert is_grounded("Tom", "Tom is coming to stay next week.")
    assert not is_grounded("Biscuit", "Any ideas for a puppy name?")
    assert not said.key_is_users_own("brother_name")
    assert said.key_is_users_own("visitor_name")
    assert Said.of("I live in Lisbon.", "What a lovely city!").key_is_users_own("home_city")


# --- compaction ----------------------------------------------------------------------------

def test_compaction_queues_only_the_candidates_taken_from_the_users_lines(
        hearth, caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="core")
    session_id = "s1"
    add_exchange(hearth, session_id, "I'm training for the Lisbon half marathon in May.",
                 "Great! A sub-two-hour finish needs an interval session every Tuesday.")
    add_exchange(hearth, session_id, "My knee hurts after long runs.",
                 "Try foam rolling and see a physiotherapist.")
    for _ in range(3):  # the most recent exchanges are never folded
        add_exchange(hearth, session_id, "ok", "ok")
    answer = json.dumps({"summary": "Half marathon training; a sore knee.", "candidates": [
        candidate("The user is training for the Lisbon half marathon in May"),
        candidate("The user wants a sub-two-hour finish with intervals every Tuesday"),
        candidate("The user's knee hurts after long runs"),
        candidate("The user is seeing a physiotherapist for foam rolling")]})
    llm = ScriptedLLM([answer])

    done = Compactor(hearth.storage, llm).compact(session_id, gate=ExclusionGate([]),
                                                  exclude_id=None)

    assert done is not None and (done.events, done.dropped) == (2, 2)
    assert [json.loads(e.content)["content"] for e in events(hearth)] == [
        "The user is training for the Lisbon half marathon in May",
        "The user's knee hurts after long runs"]
    sent = llm.requests[0].messages[-1].content
    assert "Assistant: Try foam rolling" in sent  # the model saw the replies as context
    with hearth.storage.read() as session:
        assert session.get(ChatSession, session_id).compaction_summary \
            == "Half marathon training; a sore knee."
    dropped = [record.getMessage() for record in caplog.records if "dropped" in record.msg]
    assert len(dropped) == 2  # by how many of the assistant's words, never by the candidate's
    assert not any("Tuesday" in line or "physiotherapist" in line for line in dropped)


# --- tools during a turn ---------------------------------------------------------------------

def converse(hearth: Hearth, *turns: tuple[str, list[Reply | str]]) -> list[ToolActivity]:
    """Run each user message with its scripted model answers; the tool activity seen."""
    script: list[Reply | str] = [answer for _, answers in turns for answer in answers]
    conversation = hearth.conversation(ScriptedLLM(script), clock=lambda: NOW)
    session_id = conversation.sessions.new_session()
    activity = []
    for text, _ in turns:
        activity += [e for e in conversation.send(session_id, text)
                     if isinstance(e, ToolActivity)]
    return activity


def remember(key: str, value: str) -> ToolCall:
    return ToolCall("remember_fact", {"key": key, "value": value, "category": "personal"})


def test_remember_fact_refuses_a_value_the_assistant_suggested(hearth) -> None:
    activity = converse(
        hearth,
        ("Any ideas for a name for our new puppy?", ["How about Biscuit?"]),
        ("Ha, maybe.", [Reply("Saving it.", (remember("puppy_name", "Biscuit"),)), "Done."]))
    assert [(a.ok, a.result_summary) for a in activity] == [
        (False, "refused puppy_name: not in the user's words")]
    assert hearth.facts.list() == []


def test_remember_fact_refuses_what_the_assistant_says_in_the_same_turn(hearth) -> None:
    """"Tom" is the user's word; "brother" is only in the reply being written."""
    said_then_saved = Reply("Your brother Tom! Let me note that.",
                            (remember("brother_name", "Tom"),))
    activity = converse(hearth, ("Tom is coming to stay next week.", [said_then_saved, "Ok."]))
    assert [a.ok for a in activity] == [False]
    assert hearth.facts.get("brother_name") is None


def test_remember_fact_stores_the_users_own_words_from_this_session(hearth) -> None:
    activity = converse(
        hearth,
        ("We named the puppy Biscuit.", ["What a lovely name!"]),
        ("Please remember that.", [Reply("", (remember("puppy_name", "Biscuit"),)), "Done."]))
    assert [a.ok for a in activity] == [True]
    assert hearth.facts.get("puppy_name").value == "Biscuit"


def test_record_observation_refuses_the_assistants_words_and_keeps_the_users(hearth) -> None:
    observe = [ToolCall("record_observation", {"content": content}) for content in (
        "The user wants to try a sourdough starter from the bakery on Rua Augusta",
        "The user bakes bread every weekend")]
    activity = converse(hearth, (
        "I bake bread every weekend.",
        [Reply("You could try the sourdough starter from the bakery on Rua Augusta.",
               tuple(observe)), "Noted."]))
    assert [a.ok for a in activity] == [False, True]
    assert [e.content for e in events(hearth)] == ["The user bakes bread every weekend"]
