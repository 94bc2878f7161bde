"""After a year of nights, is everything the user told Hearth still findable?

End to end, with the real model and database: a long conversation is imported, the clock
moves a year ahead (``core.clock.shifted``, no sleeping), the whole dream cycle runs (a
scripted model writes merge summaries that restate the originals, as a model would), and
then every labelled answer found before is still found, every turn is still reachable by
its own words, nothing was invalidated for age, and merged originals are reachable from
their summary.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import func, select

from benchmarks.quality import SETS, recall_at, summary_model
from core import clock
from core.app import Hearth
from core.consolidation.dream import DreamCycle
from core.recall import RecallQuery
from core.storage.orm import Memory, MemoryEdge, MemoryTier
from core.storage.port import SearchFilters
from core.storage.sqlite import ann
from core.storage.sqlite import search as search_module
from core.storage.sqlite.search import SqliteSearchIndex
from core.transfer.transcript import import_transcript

CONVERSATION = "conv-maya"


def answers_found(hearth: Hearth, questions: list[dict[str, Any]]) -> dict[str, float]:
    scope = SearchFilters(namespaces=(f"import/{CONVERSATION}",))
    found = {}
    for question in questions:
        results = hearth.recall.recall(RecallQuery(question["question"], k=10, filters=scope))
        turns = [r.provenance.get("turn_id") for r in results]
        found[question["id"]] = recall_at(turns, question["answer_turn_ids"], 10)
    return found


def ann_state(hearth: Hearth) -> str:
    search = cast(SqliteSearchIndex, hearth.storage.search)
    return next(state.state for state in search.vector_index_states()
                if state.table == "memories_vec")


def test_a_year_of_dreams_loses_nothing(tmp_path: Path, embedder: Any) -> None:
    a_year_of_dreams(tmp_path, embedder, ann_forced=False)


def test_a_year_of_dreams_loses_nothing_through_the_ann_index(
        tmp_path: Path, embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same year with every vector search of memories going through the ANN index
    (built after the import, kept up to date by every change and by the dream)."""
    monkeypatch.setattr(search_module, "EXACT_MAX_ROWS", 0)
    monkeypatch.setattr(ann, "ANN_MIN_ROWS", 100)
    a_year_of_dreams(tmp_path, embedder, ann_forced=True)


def a_year_of_dreams(tmp_path: Path, embedder: Any, *, ann_forced: bool) -> None:
    labelled = SETS[0]
    questions = [q for q in labelled.load_questions() if q["conversation_id"] == CONVERSATION]
    with Hearth.open(tmp_path / "home", embedder=embedder) as hearth:
        import_transcript(labelled.conversations / f"{CONVERSATION}.json", hearth.storage,
                          hearth.memories)
        if ann_forced:
            assert ann_state(hearth) == "missing"
            assert hearth.storage.search.refresh_search_indexes()
            assert ann_state(hearth) == "current"
        before = answers_found(hearth, questions)
        assert sum(before.values()) / len(before) > 0.8  # the set is answerable at all

        with clock.shifted(days=365):
            report = DreamCycle(hearth.consolidation(), summary_model()).run(trigger="test")
            assert report.status == "done", report.stages
            merged = report.stages["merge"].counts
            assert merged["merged"] > 0 and merged["demoted"] > 0  # merge-before-fade ran
            after = answers_found(hearth, questions)
            if ann_forced:
                assert ann_state(hearth) == "current"

            with hearth.storage.read() as session:
                assert session.scalar(select(func.count()).select_from(Memory).where(
                    Memory.is_valid.is_(False))) == 0  # age never invalidates
                turns = session.execute(select(Memory.id, Memory.content, Memory.tier)
                                        .where(Memory.source == "import")).all()
                summary_of = session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id)
                                             .where(MemoryEdge.kind == "summary_of")).all()
            scope = SearchFilters(namespaces=(f"import/{CONVERSATION}",))
            unreachable = [row.id for row in turns if row.id not in {
                r.id for r in hearth.recall.recall(RecallQuery(row.content, k=5,
                                                               filters=scope))}]

    lost = {qid: (before[qid], after[qid]) for qid in before if after[qid] < before[qid]}
    assert not lost, f"answers lost after a year of dreams: {lost}"
    assert unreachable == [], "turns no longer found by their own words"
    sources = {row.id for row in turns if row.tier == MemoryTier.SOURCE.value}
    assert sources and sources <= {to_id for _from, to_id in summary_of}
