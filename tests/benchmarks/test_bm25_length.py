"""The ablation's BM25 with a chosen ``b`` scores exactly as FTS5 does at FTS5's own b."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.bm25_length import LengthNormalisedBm25
from core.app import Hearth
from core.knowledge.memories import MemorySpec
from core.storage.search_terms import query_terms
from core.storage.sqlite.engine import dbapi_module

TEXTS = [
    "The cat sleeps on the windowsill.",
    "Cats and dogs: the cat chased the dog around the garden all afternoon, then the "
    "dog slept under the table while the cat watched the birds from the windowsill.",
    "Running shoes need replacing after about eight hundred kilometres.",
    "The dog's vet appointment is on Tuesday.",
]


@pytest.fixture
def database(tmp_path: Path) -> Path:
    with Hearth.open(tmp_path / "home") as hearth:
        hearth.memories.add_many([MemorySpec(text) for text in TEXTS])
    return tmp_path / "home" / "hearth.db"


def fts5_scores(database: Path, words: list[str]) -> dict[int, float]:
    query = " OR ".join(f'"{word}"' for word in words)
    with dbapi_module().connect(database) as connection:
        return dict(connection.execute(
            "SELECT rowid, -bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ?",
            (query,)))


def test_at_b_075_the_scores_are_fts5s_own(database: Path) -> None:
    bm25 = LengthNormalisedBm25(database)
    ours = bm25.scores("cats sleeping dogs", 0.75)
    theirs = fts5_scores(database, query_terms("cats sleeping dogs"))
    assert set(ours) == set(theirs)
    for row_id, score in theirs.items():
        assert ours[row_id] == pytest.approx(score, rel=1e-6)


def test_a_weaker_normalisation_lets_the_long_row_catch_up(database: Path) -> None:
    bm25 = LengthNormalisedBm25(database)
    short, long = 1, 2  # ids in insertion order
    strict, weak = bm25.scores("cat windowsill", 0.75), bm25.scores("cat windowsill", 0.0)
    assert strict[short] > strict[long]
    assert weak[long] > weak[short]  # three cats and a windowsill, no longer penalised
