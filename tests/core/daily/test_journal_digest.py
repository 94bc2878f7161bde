"""The weekly journal digest: the model's summary of the week's entries when it gives a
usable one; the entries alone, with the reason said and logged, when there is no model, the
model is down, or its answer is unusable. The entries are never lost. The model is the
scripted double in-process, and a fake Ollama on loopback for ``hearth journal week
--summary``."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from support.fake_ollama import FakeOllama, FakeReply
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from cli.main import run
from core.daily import when
from core.llm.protocol import LLMUnavailableError
from core.operations import journal
from core.storage.orm import JournalEntry

MODEL = "llama3.2:3b"
SUMMARY = "You found a flat in Porto and kept running despite the knee."


def written(hearth: Hearth, days_ago: int, content: str) -> None:
    entry = journal.add(hearth, content).value
    with hearth.storage.write() as session:
        row = session.get(JournalEntry, entry.id)
        assert row is not None
        row.created_at = row.created_at - timedelta(days=days_ago)


@pytest.fixture
def week(hearth: Hearth) -> Hearth:
    written(hearth, 9, "Too old for this week.")
    written(hearth, 3, "Saw the Bonfim apartment and loved the light.")
    written(hearth, 1, "Ran 12 km; the knee held up.")
    return hearth


def test_a_usable_answer_is_the_summary_above_the_entries(week) -> None:
    llm = ScriptedLLM([json.dumps({"summary": f"  {SUMMARY} "})])
    digest = journal.digest(week, llm)
    assert digest.summary == SUMMARY and digest.why_no_summary is None
    assert [e.content for e in digest.entries] == [
        "Saw the Bonfim apartment and loved the light.", "Ran 12 km; the knee held up."]
    [request] = llm.requests
    system, user = request.messages
    assert "weekly digest" in system.content and "not instructions" in system.content
    shown = user.content
    assert "Bonfim" in shown and "12 km" in shown and "Too old" not in shown
    day = (when.today() - timedelta(days=1)).strftime("%A")
    assert f"[{day} " in shown  # each entry with its day


def test_an_unusable_answer_leaves_the_entries_and_says_why(week, caplog) -> None:
    llm = ScriptedLLM(["I think your week was nice!", json.dumps({"summary": ""})])
    with caplog.at_level(logging.WARNING, logger="core"):
        digest = journal.digest(week, llm)
    assert digest.summary is None and len(digest.entries) == 2
    assert digest.why_no_summary.startswith("The model's summary was not usable (")
    assert digest.why_no_summary.endswith(", so the week is listed without one.")
    assert len(llm.requests) == 2  # one retry, then the list
    assert any("Weekly journal digest without a summary" in r.message for r in caplog.records)


def test_a_model_that_is_down_or_missing_leaves_the_entries(week) -> None:
    down = ScriptedLLM([LLMUnavailableError("Ollama is not running.", "Start it.")])
    digest = journal.digest(week, down)
    assert digest.summary is None and len(digest.entries) == 2
    assert digest.why_no_summary == ("The model could not be reached (Ollama is not running), "
                                     "so the week is listed without one.")
    none = journal.digest(week, None)
    assert none.summary is None and len(none.entries) == 2
    assert none.why_no_summary.startswith("No model is set up")


def test_an_empty_week_asks_no_model(hearth) -> None:
    llm = ScriptedLLM([])
    digest = journal.digest(hearth, llm)
    assert (digest.entries, digest.summary, llm.requests) == ((), None, [])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOllama]:
    with FakeOllama(models=[MODEL]) as fake:
        fake.configure(monkeypatch, MODEL)
        yield fake


def test_the_cli_prints_the_summary_then_the_entries(capsys, sqlite_template, tmp_path: Path,
                                                     embedder, server) -> None:
    home = sqlite_template.copy_home(tmp_path / "h")
    with Hearth.open(home, embedder=embedder) as hearth:
        written(hearth, 2, "Booked the physio for Thursday.")
    server.script(FakeReply(text=json.dumps({"summary": "You booked the physio."})))
    assert run(["--home", str(home), "journal", "week", "--summary", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["summary"] == "You booked the physio."
    assert [e["content"] for e in shown["entries"]] == ["Booked the physio for Thursday."]
    assert server.chat_requests()[0]["format"] is not None  # a structured request

    server.script(FakeReply(text="not json at all"), FakeReply(text="still not"))
    assert run(["--home", str(home), "journal", "week", "--summary"]) == 0
    out = capsys.readouterr().out
    assert "(The model's summary was not usable" in out and "Booked the physio" in out
