"""The full-text engines benchmark (``benchmarks/fulltext_engines.py``) on a tiny corpus: its
figures are sane, and FTS5, tantivy and bm25s each put first the one row a question singles
out only through stemmed words, with a word no row holds ORed in (so an engine that did not
stem, or ANDed the words, fails here).

Needs the ``bench`` extra (tantivy, bm25s, PyStemmer: ``pip install -e '.[bench]'``, which
``make bench`` installs). CI installs only ``.[test]``, so there the module is skipped."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest

from benchmarks import fulltext_engines as engines  # imports no engine at module level
from benchmarks.recall import memory_texts, query_texts

pytest.importorskip("tantivy", reason="the bench extra is not installed")
pytest.importorskip("bm25s", reason="the bench extra is not installed")
pytest.importorskip("Stemmer", reason="the bench extra (PyStemmer) is not installed")

BEEKEEPING = "Uma's beekeeping hives stand behind the Reykjavik library."
TEXTS = [*memory_texts(300), BEEKEEPING]
QUESTION = "Where is my beekeeper's hive, zorblat?"
"""Unstemmed, "beekeeper" and "hive" are in no row; "zorblat" is in none at all."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory, sqlite_template) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("fulltext")
    figures = {engine: engines.build(engine, TEXTS, folder / engine,
                                     template=sqlite_template.database)
               for engine in engines.ENGINES}
    return {"folders": {engine: folder / engine for engine in engines.ENGINES},
            "figures": figures}


@pytest.fixture
def searchers(built: dict[str, Any]):
    opened = engines.open_searchers(built["folders"])
    yield opened
    for searcher in reversed(opened):
        searcher.close()


def test_every_engine_puts_the_stemmed_match_first(searchers) -> None:
    target = TEXTS.index(BEEKEEPING) + 1
    assert [searcher.name for searcher in searchers] == list(engines.SEARCHERS)
    for searcher in searchers:
        for k in engines.KS:
            found = searcher.run(searcher.prepare(QUESTION), k)
            assert found[:1] == [target], (searcher.name, k, found)


def test_a_question_without_indexed_words_finds_nothing(searchers) -> None:
    for searcher in searchers:
        assert searcher.run(searcher.prepare("zorblat qwxy"), 10) == [], searcher.name


def test_the_figures_are_sane(built: dict[str, Any], searchers) -> None:
    for engine, figures in built["figures"].items():
        assert figures["seconds"] > 0 and figures["bytes"] > 0, engine
        assert figures["threads"] >= 1, engine
    assert "segment" in built["figures"]["tantivy"]["detail"]

    questions = query_texts(20)
    natural = engines.natural_questions()
    assert len(natural) > 400 and all(isinstance(text, str) and text for text in natural)
    measured = engines.measure(searchers, questions, natural[:30])
    assert list(measured) == list(engines.SEARCHERS)
    for name, figures in measured.items():
        for key in ("k10", "k50"):
            p50, p95 = figures["latency"][key]["p50_ms"], figures["latency"][key]["p95_ms"]
            assert 0 < p50 <= p95 < 1_000, (name, key)
        for label, agreement in figures["agreement"].items():
            assert agreement["questions"] > 0, (name, label)
            assert 0 <= agreement["ids"] <= agreement["ties"] <= 1, (name, label)
    for label in ("generated@10", "natural@50"):
        assert measured["fts5"]["agreement"][label]["ids"] == 1.0  # the reference itself
        assert measured["fts5 shipped"]["agreement"][label]["ids"] == 1.0  # nothing frequent
        # bm25s scores as FTS5 does (robertson IDF, Porter): only ties may be broken apart
        assert measured["bm25s"]["agreement"][label]["ties"] >= 0.95, label
        assert measured["tantivy"]["agreement"][label]["ties"] >= 0.8, label

    results = {"rows": [{"engine": name, "size": len(TEXTS),
                         "build": built["figures"]["fts5" if name == "fts5 shipped" else name],
                         **figures} for name, figures in measured.items()],
               "tantivy_pruning_probe": engines.pruning_probe(rows=2_000, repeats=3),
               "load_average": (0.0, 0.0, 0.0), "questions": {"generated": 20, "natural": 30}}
    table = engines.tables(results)
    for name in engines.SEARCHERS:
        assert f"| {name} |" in table
    assert math.isfinite(results["tantivy_pruning_probe"]["ratio"])


def test_a_build_is_cached_with_its_figures(tmp_path: Path, monkeypatch) -> None:
    calls = []

    def child(command, **_):
        calls.append(command)
        folder = Path(command[command.index("--into") + 1])
        folder.mkdir(parents=True)

        class Done:
            returncode = 0
            stdout = '{"seconds": 1.5, "bytes": 10, "threads": 1, "detail": "",' \
                     ' "peak_rss_mb": 90, "rss_before_mb": 80}\n'
            stderr = ""
        return Done()

    monkeypatch.setattr(engines.subprocess, "run", child)
    folder, made = engines.cached_build("bm25s", 300, cache=tmp_path)
    again, remade = engines.cached_build("bm25s", 300, cache=tmp_path)
    assert (again, remade) == (folder, made) and len(calls) == 1
    assert made["peak_rss_mb"] == 90 and "built_at" in made
    engines.cached_build("bm25s", 300, cache=tmp_path, rebuild=True)
    assert len(calls) == 2
    assert sorted(path.name for path in tmp_path.iterdir()) == [folder.name,
                                                                 folder.name + ".made.json"]
