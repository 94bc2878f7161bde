"""On a model too small to learn, only the rules learn; the rest waits for a capable one.

The models are scripted (pipeline logic) with the size they report; storage and
embeddings are real.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from core.app import Hearth
from core.learning import waiting
from core.learning.pipeline import LearningPipeline
from core.llm.capability import Job
from core.storage.orm import ChatSession, Interaction
from support.scripted_llm import ScriptedLLM

TINY = 135_000_000
CAPABLE = 3_000_000_000


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def say(hearth: Hearth, pipeline: LearningPipeline, session_id: str, *messages: str) -> None:
    for message in messages:
        with hearth.storage.write() as session:
            if session.get(ChatSession, session_id) is None:
                session.add(ChatSession(id=session_id, title="chat"))
            row = Interaction(session_id=session_id, user_message=message,
                              agent_response="Good to know.")
            session.add(row)
            session.flush()
            interaction_id = row.id
        pipeline.exchange_completed(interaction_id, session_id)
    assert pipeline.drain(timeout=60)


def facts(hearth: Hearth) -> dict[str, str]:
    return {fact.key: fact.value for fact in hearth.facts.list()}


def test_a_tiny_model_learns_by_rules_only_and_leaves_the_rest_waiting(hearth) -> None:
    tiny = ScriptedLLM(parameter_count=TINY)
    pipeline = LearningPipeline(hearth.learning(), tiny)
    say(hearth, pipeline, "s1", "My sister Priya lives in Lisbon and works as a nurse.",
        "I'm allergic to peanuts.")
    pipeline.session_ended("s1")
    assert pipeline.drain(timeout=60)
    pipeline.shutdown()

    assert facts(hearth) == {"sister_name": "Priya", "sister_home_city": "Lisbon",
                             "sister_job_title": "nurse", "allergies": "peanuts"}
    assert tiny.requests == []  # neither extraction nor a chat summary was asked of it
    assert waiting.counts(hearth.storage) == {Job.FACTS: 2, Job.SUMMARIES: 1}
    assert pipeline.stats.waiting_for_model == 3
    with hearth.storage.read() as session:
        assert session.get(ChatSession, "s1").closed_at is not None
    assert hearth.notes.list() == []


def test_a_capable_model_takes_up_what_waited(hearth) -> None:
    tiny = LearningPipeline(hearth.learning(), ScriptedLLM(parameter_count=TINY))
    say(hearth, tiny, "s1", "My sister Priya lives in Lisbon.", "We go hiking in Sintra.")
    tiny.session_ended("s1")
    assert tiny.drain(timeout=60)
    tiny.shutdown()

    def answer(kind: str, messages, extra) -> str:
        if "hiking" in messages[-1].content and "facts" in json.dumps(extra.get("schema")):
            return json.dumps({"facts": [{"key": "hobby", "value": "hiking",
                                          "category": "preference"}]})
        if "<conversation>" in messages[-1].content:
            return json.dumps({"summaries": [{"topic": "Family and hiking", "summary":
                               "The user's sister Priya lives in Lisbon; they hike."}],
                               "candidates": []})
        return json.dumps({"facts": []})

    capable_model = ScriptedLLM(answer, parameter_count=CAPABLE)
    capable = LearningPipeline(hearth.learning(), capable_model)
    capable.resume()
    assert capable.drain(timeout=60)
    capable.shutdown()

    assert facts(hearth)["hobby"] == "hiking"
    assert facts(hearth)["sister_home_city"] == "Lisbon"
    assert [note.title for note in hearth.notes.list()] == ["Summary: Family and hiking"]
    assert waiting.counts(hearth.storage) == {}
    assert len(capable_model.requests) == 3  # two extractions, one summary: once each


def test_replies_only_by_choice_keeps_a_large_model_from_learning(hearth) -> None:
    hearth.settings.model_jobs = "replies_only"
    model = ScriptedLLM(parameter_count=CAPABLE)
    pipeline = LearningPipeline(hearth.learning(), model)
    say(hearth, pipeline, "s1", "I live in Porto.")
    pipeline.shutdown()
    assert facts(hearth) == {"home_city": "Porto"} and model.requests == []
