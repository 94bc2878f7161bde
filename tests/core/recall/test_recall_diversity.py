"""The head of a recall is spread over what was found, not filled with near-copies of one
match (``core.recall.diversity``): real database, real model."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from core.config import Settings
from core.knowledge.memories import MemoryService, MemorySpec
from core.recall import RecallQuery, RecallService
from core.recall.diversity import spread
from core.storage.sqlite.adapter import SqliteStorage

WEDDING = [
    "Dana: Ngozi's wedding is on the 14th of June in York, I'm maid of honour.",
    "Dana: the wedding in York is on 14 June and I'm Ngozi's maid of honour!",
    "Dana: so Ngozi's wedding, York, 14th June. Maid of honour is me.",
    "Dana: reminder to self, Ngozi gets married in York on the 14th of June.",
    "Dana: Ngozi and Adrian's wedding day is 14 June, up in York.",
]
JOB = "Dana: I start my new job at Lanternfish on the 7th of July."
OTHER = [
    "Marcus: the band needs a new drummer by spring.",
    "Dana: Pilchard the cat knocked a plant off the windowsill again.",
    "Marcus: went to the audiologist about the ringing in my ears.",
    "Dana: the landlord put the rent up by 150 pounds a month.",
]
QUESTION = "When is Ngozi's wedding, and when does Dana start her new job?"


def unit(*values: float) -> np.ndarray:
    vector = np.asarray(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def test_a_near_copy_of_the_best_gives_way_to_a_different_match() -> None:
    scores = [1.0, 0.98, 0.9]
    vectors = [unit(1, 0, 0), unit(1, 0.05, 0), unit(0, 1, 0)]
    picks = spread(scores, vectors, 0.85, 3)
    assert [pick.index for pick in picks] == [0, 2, 1]
    assert picks[0].penalty == 0 and picks[1].penalty == 0  # nothing like them was before
    assert picks[2].closest == 0 and picks[2].cosine == pytest.approx(0.9988, abs=1e-3)


def test_weight_one_keeps_the_ranking_and_a_row_without_a_vector_keeps_its_place() -> None:
    vectors = [unit(1, 0), unit(1, 0), None]
    assert [p.index for p in spread([1.0, 0.9, 0.8], vectors, 1.0, 3)] == [0, 1, 2]
    assert [p.penalty for p in spread([1.0, 0.9, 0.8], vectors, 1.0, 3)] == [0, 0, 0]
    picks = spread([1.0, 0.9, 0.8], vectors, 0.85, 2)
    assert [p.index for p in picks] == [0, 2]  # the unembedded row is like nothing


@pytest.fixture
def conversation(storage: SqliteStorage, embedder: Any) -> dict[str, int]:
    memories = MemoryService(storage, embedder)
    ids = memories.add_many([MemorySpec(text) for text in [*WEDDING, JOB, *OTHER]])
    return {"job": ids[len(WEDDING)]}


def test_the_second_thing_a_question_asks_about_reaches_the_first_results(
        conversation: dict[str, int], storage: SqliteStorage, embedder: Any) -> None:
    def first(diversity: float) -> list[int]:
        recall = RecallService(storage, embedder, Settings(recall_diversity=diversity))
        return [r.id for r in recall.recall(RecallQuery(QUESTION, k=2, graph=0))]

    assert conversation["job"] not in first(1.0)  # two wordings of the wedding fill it
    spread_out = first(Settings().recall_diversity)
    assert conversation["job"] in spread_out


def test_a_spread_result_says_what_it_lost_and_to_which_record(
        conversation: dict[str, int], storage: SqliteStorage, embedder: Any) -> None:
    results = RecallService(storage, embedder, Settings()).recall(
        RecallQuery(QUESTION, k=6, graph=0))
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    lowered = [r for r in results if "diversity" in r.signals]
    assert lowered, "near-copies of the wedding lose part of their score"
    ids = {r.id for r in results}
    for result in lowered:
        said = result.signals["diversity"]
        assert said["penalty"] > 0 and 0 < said["cosine"] <= 1.0001
        assert said["like"]["id"] in ids and said["like"]["kind"] == "memory"
    from desktop.inspector.memory_signals import describe_signals

    said = lowered[0].signals["diversity"]
    assert any(f"Similar to memory #{said['like']['id']} above it" in line
               for line in describe_signals(lowered[0].signals)), "the detail pane says why"
