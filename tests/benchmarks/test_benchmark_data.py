"""The hard labelled set keeps the shape the quality benchmark promises (benchmarks/data/hard)."""

from __future__ import annotations

import json
import re
from collections import Counter
from datetime import datetime
from typing import Any

import pytest

from benchmarks.quality import SETS
from core.storage.query_words import STOPWORDS

HARD = SETS[1]
KINDS = {"single-hop", "multi-hop", "temporal", "paraphrase", "speaker"}
QUESTION_WORDS = {"what", "when", "where", "who", "which", "how", "did", "does", "do", "s"}


def content_words(text: str, names: set[str]) -> set[str]:
    words = set(re.findall(r"[a-zà-ÿ]+", text.lower())) - STOPWORDS - QUESTION_WORDS - names
    return {word.removesuffix("s") for word in words} - {""}


@pytest.fixture(scope="module")
def conversations() -> dict[str, dict[str, Any]]:
    loaded = [json.loads(path.read_text(encoding="utf-8"))
              for path in HARD.conversation_files()]
    return {conversation["conversation_id"]: conversation for conversation in loaded}


def test_long_conversations_over_a_year(conversations: dict[str, dict[str, Any]]) -> None:
    assert len(conversations) >= 3
    for conversation in conversations.values():
        sessions = conversation["sessions"]
        starts = [datetime.fromisoformat(s["started_at"]) for s in sessions]
        assert len(sessions) >= 10 and starts == sorted(starts)
        assert (starts[-1] - starts[0]).days >= 300
        turns = [turn for session in sessions for turn in session["turns"]]
        assert len(turns) >= 300
        assert {turn["speaker"] for turn in turns} <= set(conversation["participants"])


def test_questions_are_labelled_with_real_turns_of_five_kinds(
        conversations: dict[str, dict[str, Any]]) -> None:
    questions = HARD.load_questions()
    assert len(questions) >= 300
    kinds = Counter(question["kind"] for question in questions)
    assert set(kinds) == KINDS and min(kinds.values()) >= 18 * len(conversations)
    turns = {turn["turn_id"]: (conversation["conversation_id"], session["session_id"], turn)
             for conversation in conversations.values()
             for session in conversation["sessions"] for turn in session["turns"]}
    assert len({question["id"] for question in questions}) == len(questions)
    for question in questions:
        answers = [turns[turn_id] for turn_id in question["answer_turn_ids"]]
        assert {owner for owner, _session, _turn in answers} == {question["conversation_id"]}
        if question["kind"] == "multi-hop":
            assert len({session for _owner, session, _turn in answers}) >= 2, question["id"]
        if question["kind"] == "paraphrase":
            names = {word.lower() for word in conversations[question["conversation_id"]][
                "participants"]} | {"tomas"}
            asked = content_words(question["question"], names)
            for _owner, _session, turn in answers:
                shared = asked & content_words(turn["text"], names)
                assert not shared, f"{question['id']} shares {shared} with its answer"


def test_the_twenty_first_messages_are_learned_by_the_rules_without_junk() -> None:
    """The small-model benchmark's "after" on a model that may not extract: only the rules
    learn, and by the benchmark's own rule none of what they learn is junk."""
    from benchmarks.small_model import is_junk, load_messages
    from core.learning.extraction import rule_facts

    messages = load_messages()
    assert len(messages) == 20
    learned = [(item, {f.key: f.value for f in rule_facts(item["message"])})
               for item in messages]
    assert not [(key, value) for item, facts in learned for key, value in facts.items()
                if is_junk(key, value, item["message"], item["expected"])]
    assert is_junk("lisbon_city", "Lisbon", "My sister Priya lives in Lisbon.", {})
    assert is_junk("priya", "Madrid", "My sister Priya lives in Lisbon.", {})
