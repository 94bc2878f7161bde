"""The dream's summaries stage (``core.consolidation.summaries``): titles for untitled journal
entries, summaries for saved articles with pasted text, the user's own words never
overwritten, and a model that is down leaves everything as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.consolidation import summaries
from core.consolidation.dream import DreamCycle
from core.llm.protocol import LLMUnavailableError


@pytest.fixture
def hearth(tmp_path: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(tmp_path / "home", embedder=embedder) as opened:
        yield opened


def test_untitled_entries_get_a_title_and_pasted_articles_a_summary(hearth: Hearth) -> None:
    entry = hearth.journal.add("Went to the first pottery class. My back hurts but I loved it.")
    named = hearth.journal.add("Long day at work.", title="Tuesday")
    article = hearth.read_later.add("https://example.org/sleep", title="Why we sleep",
                                    text="Sleep clears the brain of waste. " * 40)
    bare = hearth.read_later.add("https://example.org/bare", title="Nothing pasted")
    llm = ScriptedLLM([json.dumps({"title": "“Pottery class and a sore back”"}),
                       json.dumps({"summary": "Sleep clears waste from the brain."})])

    counts = summaries.run(hearth.consolidation(), llm)

    assert counts == {"titled": 1, "summarised": 1, "failed": 0}
    assert hearth.journal.get(entry.id).title == "Pottery class and a sore back"
    assert hearth.journal.get(named.id).title == "Tuesday"
    assert hearth.read_later.get(article.id).summary == "Sleep clears waste from the brain."
    assert hearth.read_later.get(bare.id).summary is None
    assert "pottery class" in llm.requests[0].messages[1].content
    assert "Why we sleep" in llm.requests[1].messages[1].content
    assert summaries.run(hearth.consolidation(), ScriptedLLM()) == {"titled": 0, "summarised": 0,
                                                                "failed": 0}


def test_a_title_the_user_typed_meanwhile_wins(hearth: Hearth) -> None:
    entry = hearth.journal.add("Thinking about the Lisbon offer.")

    def answer(_kind, _messages, _extra):
        hearth.journal.edit(entry.id, title="Lisbon?")  # typed while the model thought
        return json.dumps({"title": "Considering a job in Lisbon"})

    counts = summaries.run(hearth.consolidation(), ScriptedLLM(answer))

    assert counts["titled"] == 0
    assert hearth.journal.get(entry.id).title == "Lisbon?"


def test_a_botched_answer_leaves_the_entry_for_the_next_night(hearth: Hearth) -> None:
    entry = hearth.journal.add("Quiet Sunday.")
    counts = summaries.run(hearth.consolidation(), ScriptedLLM(["not json", "still not json"]))
    assert counts == {"titled": 0, "summarised": 0, "failed": 1}
    assert hearth.journal.get(entry.id).title is None


def test_a_model_that_is_down_fails_the_stage_and_writes_nothing(hearth: Hearth) -> None:
    entry = hearth.journal.add("Quiet Sunday.")
    down = ScriptedLLM(lambda *_: LLMUnavailableError("Ollama is not running.", "Start it."))

    report = DreamCycle(hearth.consolidation(), down).run(trigger="test", only="summaries")

    assert report.stages["summaries"].status == "failed"
    assert hearth.journal.get(entry.id).title is None
