"""The one search behind ``hearth search``, MCP's ``search_memory`` and the window's
searches (``core.recall.search``): at most k results, even when recall appends what a dream
built after its head (memories one link away, matching summaries), and the same kinds of
record (memories and notes) for the command as for an agent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update
from support.scripted_llm import ScriptedLLM

from core.agents.tools import AgentTools
from core.app import Hearth
from cli.main import run
from core.consolidation import merge
from core.operations import agents, memories
from core.operations.memories import MemoryFilter
from core.storage.orm import Memory

TEA = ("I prefer green tea in the morning.", "Mornings start with a cup of green tea for me.",
       "Every morning I drink a green tea before work.")
SUMMARY = "The user drinks green tea every morning, before work."
OTHERS = ("My sister Ines lives in Porto.", "Ines moved to Porto last spring for her new job.",
          "The router keeps dropping the wifi connection.",
          "The wifi has been unreliable since the router update.")


def search(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> list[dict[str, Any]]:
    assert run(["--home", str(home), "search", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.fixture
def dreamt(migrated_home: Path, embedder: Any, capsys: pytest.CaptureFixture[str]
           ) -> Iterator[Path]:
    """Related memories after a dream: the stale tea memories folded into an archival
    summary by the merge stage (with a scripted model), then every memory linked to its
    nearest neighbours by the link stage (run as the user would). Recall lists the summary
    and the linked memories after its head."""
    with Hearth.open(migrated_home, embedder=embedder) as hearth:
        tea = [hearth.memories.add(text).id for text in TEA]
        for text in OTHERS:
            hearth.memories.add(text)
        with hearth.storage.write() as session:
            session.execute(update(Memory).where(Memory.id.in_(tea)).values(freshness=0.1))
        assert merge.run(hearth, ScriptedLLM([json.dumps({"summary": SUMMARY})]))["merged"] == 1
    assert run(["--home", str(migrated_home), "dream", "--stage", "link", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["stages"]["link"]["counts"]["edges"] > 0
    yield migrated_home


def test_k_is_at_most_k_results_after_a_dream_linked_memories(
        capsys: pytest.CaptureFixture[str], dreamt: Path, tmp_path: Path) -> None:
    (best,) = search(capsys, dreamt, "green tea", "--k", "1")
    assert best["text"] in TEA
    assert len(search(capsys, dreamt, "green tea", "--k", "2")) == 2
    assert {r["text"] for r in search(capsys, dreamt, "green tea", "--k", "3")} == set(TEA)

    queries = tmp_path / "queries.txt"
    queries.write_text("green tea\nwifi router\n")
    assert run(["--home", str(dreamt), "search", "--batch", str(queries), "--k", "1"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [len(line["results"]) for line in lines] == [1, 1]


def test_the_windows_searches_and_an_agent_get_at_most_k_too(dreamt: Path,
                                                            embedder: Any) -> None:
    with Hearth.open(dreamt, embedder=embedder) as hearth:
        listed = memories.list_memories(hearth, "green tea", MemoryFilter(), 1)
        assert len(listed.rows) == 1 and listed.rows[0].content in TEA
        assert len(memories.recalled_ids(hearth, "green tea", 1, True)) == 1
        agents.grant(hearth, "helper", "read")
        found = AgentTools(hearth.agent_services(), "helper").call("search_memory",
                                                  {"query": "green tea", "limit": 1})
        assert len(found["results"]) == 1
