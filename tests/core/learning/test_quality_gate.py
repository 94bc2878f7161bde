"""The quality gate on model output that summarises or replaces memory: the measured
cases, and the effect a person sees when a model misbehaves (nothing is combined, the
originals stay where they were, the log says why without the text).

The real embedder; the model is scripted.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.dream_folder import MARATHON, answer, dreaming_model, merge_line, prepare
from support.scripted_llm import ScriptedLLM
from typer.testing import CliRunner

from core.app import Hearth
from cli.main import app
from core.consolidation.dream import DreamCycle
from core.learning.pipeline import close_session
from core.learning.quality_gate import check
from core.storage.orm import ChatSession, Interaction

TRAINING = ["User is training for the Lisbon half marathon in May.",
            "User runs 10 km every Sunday morning.",
            "User bought new running shoes for the half marathon.",
            "User's knee hurt after a long run last week."]


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


@pytest.mark.parametrize(("summary", "passes"), [
    ("User is training for the Lisbon half marathon in May: long Sunday runs, new shoes, "
     "and a sore knee after one long run.", True),
    ("User runs on Sundays.", False),                       # one original of four
    ("The user has several memories about different things.", False),
    ("User enjoys baking sourdough bread on weekends.", False),
    ("x", False),
    ("User is training for the [event_name] in [month].", False),
])
def test_a_summary_must_cover_what_it_replaces(embedder, summary: str, passes: bool) -> None:
    assert check(embedder, summary, TRAINING, share=0.5).passed is passes


def test_a_one_letter_summary_combines_nothing_and_is_logged_without_text(
        hearth, caplog) -> None:
    ids = prepare(hearth)

    def one_letter(kind: str, messages, extra) -> str:
        if kind == "structured" and "summary" in extra["schema"].get("properties", {}):
            return json.dumps({"summary": "x"})
        return answer(kind, messages, extra)

    with caplog.at_level(logging.WARNING, logger="core.learning.quality_gate"):
        report = DreamCycle(hearth.consolidation(), ScriptedLLM(one_letter)).run()
    assert report.stages["merge"].counts["rejected"] == 1
    assert report.stages["merge"].counts["merged"] == 0
    assert all(hearth.memories.get(i).tier == "recall" for i in ids["marathon"])
    assert not [change for change in report.changes if change.kind == "merged"]
    (record,) = [r for r in caplog.records if "quality gate" in r.getMessage()]
    assert str(sorted(ids["marathon"])) in record.getMessage()
    assert "too short" in record.getMessage()
    assert not any(text in record.getMessage() for text in MARATHON)


def test_the_changelog_names_the_memories_a_merge_combined(hearth) -> None:
    ids = prepare(hearth)
    report = DreamCycle(hearth.consolidation(), dreaming_model()).run()
    hearth.close()
    result = CliRunner().invoke(app, ["runs", str(report.run_id)])
    assert result.exit_code == 0
    line = merge_line(ids["marathon"])
    assert line.endswith(f"#{ids['marathon'][0]} “I am training for the Porto marathon in…”, "
                         f"#{ids['marathon'][1]} “Training for the May marathon in Porto…”, "
                         f"#{ids['marathon'][2]} “My marathon training for Porto in May i…”")
    assert " ".join(line.split()) in " ".join(result.output.split())


def test_a_chat_summary_about_nothing_said_is_not_written(hearth) -> None:
    with hearth.storage.write() as session:
        session.add(ChatSession(id="c1", title="chat"))
        session.add_all(Interaction(session_id="c1", user_message=text,
                                    agent_response="Good luck!")
                        for text in ("I'm repainting the kitchen this weekend.",
                                     "Thinking of a pale green for the walls."))
    invented = json.dumps({"summaries": [
        {"topic": "Kitchen", "summary": "The user is repainting the kitchen pale green."},
        {"topic": "Travel", "summary": "The user booked flights to Tokyo for [date]."},
        {"topic": "Stocks", "summary": "The user discussed quarterly tax filings."}],
        "candidates": []})
    counts = close_session(hearth.learning(), "c1", lambda: ScriptedLLM([invented]))
    assert counts["summaries_written"] == 1 and counts["rejected_by_quality_gate"] == 2
    assert [note.title for note in hearth.notes.list()] == ["Summary: Kitchen"]
