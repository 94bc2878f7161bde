"""The RealMem part of the quality benchmark (``benchmarks/realmem.py``) on a tiny persona
written in RealMem's format, so the loader and the scorer are tested where the shared
dataset is absent (CI): sessions keep file order when a date goes back, each question is
asked before its own session with only earlier sessions visible, and a hit is a result
in an answering session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from benchmarks import realmem

CAT = "My cat is called Miso; she is a grey tabby from the shelter."


def turn(speaker: str, content: str, **more: Any) -> dict[str, Any]:
    return {"speaker": speaker, "content": content, "is_query": False, "query_id": None,
            **more}


def query(content: str, query_id: str, category: str, answers: list[str]) -> list[dict[str, Any]]:
    """A question and the assistant's reply that labels the sessions answering it."""
    return [turn("User", content, is_query=True, query_id=query_id, category_name=category),
            turn("Assistant", "Let me think back.", memory_session_uuids=answers,
                 memory_used=[{"session_uuid": uuid, "content": "..."} for uuid in answers])]


def session(uuid: str, day: str, turns: list[dict[str, Any]]) -> dict[str, Any]:
    return {"session_identifier": f"Topic:{uuid}", "session_uuid": uuid,
            "current_time": f"{day} (Someday)", "dialogue_turns": turns,
            "extracted_memory": []}


PERSONA = {"_metadata": {"person_name": "Tiny_Person", "total_sessions": 4, "total_tokens": 1},
           "dialogues": [
               session("aaaa0001", "2025-01-01", [
                   turn("User", CAT), turn("Assistant", "Miso is a lovely name.")]),
               session("aaaa0002", "2025-01-01", [
                   turn("User", "I run 5 km along the river every Saturday morning."),
                   turn("Assistant", "")]),  # empty: left out of the transcript
               session("aaaa0003", "2024-12-30", [  # dated before the session before it
                   *query("What is my cat called again?", "Q-1", "Dynamic Updating",
                          ["aaaa0001", "aaaa0003"]),
                   *query("What did we just talk about?", "Q-2", "Dynamic Updating",
                          ["aaaa0003"])]),
               session("aaaa0004", "2025-01-05", [
                   turn("User", "Miso the cat knocked my coffee over this morning."),
                   turn("Assistant", "Cats will be cats."),
                   *query("When do I usually go running?", "Q-3", "Dynamic Incremental",
                          ["aaaa0002"])]),
           ]}


@pytest.fixture
def dataset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "realmem"
    folder.mkdir()
    (folder / "Tiny_Person_dialogues_256k.json").write_text(json.dumps(PERSONA))
    monkeypatch.setenv(realmem.DIR_VARIABLE, str(folder))
    return folder


def test_a_persona_becomes_a_transcript_and_questions_asked_before_their_session(
        dataset: Path) -> None:
    persona = realmem.load_persona(dataset / "Tiny_Person_dialogues_256k.json")
    sessions = persona.transcript["sessions"]
    assert [(s["session_id"], s["started_at"]) for s in sessions] == [
        ("aaaa0001", "2025-01-01T00:00:00+00:00"), ("aaaa0002", "2025-01-01T01:00:00+00:00"),
        ("aaaa0003", "2025-01-01T02:00:00+00:00"), ("aaaa0004", "2025-01-05T00:00:00+00:00")]
    assert [t["turn_id"] for t in sessions[1]["turns"]] == ["aaaa0002-0"]
    assert persona.turns == 11
    (cat, running) = persona.questions
    assert (cat.id, cat.category, cat.answers) == ("Q-1", "Dynamic Updating",
                                                    frozenset({"aaaa0001"}))
    assert cat.asked_at.isoformat() == "2025-01-01T01:59:59+00:00"
    assert (running.id, running.answers) == ("Q-3", frozenset({"aaaa0002"}))
    assert persona.left_out == 1  # answered only by its own session


def test_the_halves_and_a_shorter_run_take_from_both() -> None:
    names = [f"P{i}" for i in range(10)]
    assert realmem.halves(names[::-1]) == {"all": names, "tune": names[:5],
                                           "held-out": names[5:]}
    files = [Path(f"{name}_dialogues_256k.json") for name in names]
    assert realmem.chosen(files, 3) == [files[0], files[1], files[5]]
    assert realmem.chosen(files, None) == files
    assert realmem.hits(["x", None, "a", "b", "c", "d"], {"d"}) == (0, 1)
    assert realmem.hits(["d"], {"d"}) == (1, 1)


def test_each_question_sees_only_earlier_sessions_and_is_scored_by_session(
        dataset: Path, embedder: Any) -> None:
    asked: dict[str, list[list[str | None]]] = {}

    def spying(ranker: realmem.Ranker) -> realmem.Ranker:
        def ask(hearth: Any, question: realmem.Question, k: int) -> list[str | None]:
            found = ranker(hearth, question, k)
            asked.setdefault(question.id, []).append(found)
            return found
        return ask

    methods = {name: spying(ranker) for name, ranker in realmem.METHODS.items()}
    cache = dataset.parent / "cache"
    tally, personas, timing = realmem.bench_personas(
        realmem.persona_files(dataset), methods=methods, embedder=embedder, cache=cache)

    assert (timing.imported, timing.cached, timing.turns, timing.questions) == (1, 0, 11, 2)
    for found in asked["Q-1"]:  # session 4 also names the cat, but comes later
        assert found and set(found) <= {"aaaa0001", "aaaa0002"}
    for found in asked["Q-3"]:
        assert set(found) <= {"aaaa0001", "aaaa0002", "aaaa0003"}
    hybrid = tally.scores("Hearth hybrid", ["Tiny_Person"])
    assert hybrid["Dynamic Updating"] == ((1.0, 1.0), 1)
    assert hybrid["all"][1] == 2

    table = realmem.rows(tally, personas, timing)
    labels = [row["benchmark"] for row in table]
    assert "RealMem all (1 personas, 2 questions): session recall@5 / @10, Hearth hybrid" \
        in labels
    assert not [label for label in labels if label.startswith("RealMem held-out")]
    assert "1 questions left out" in table[-1]["target"]

    again, _, timing = realmem.bench_personas(realmem.persona_files(dataset),
                                              embedder=embedder, cache=cache)
    assert (timing.imported, timing.cached) == (0, 1)  # copied, not imported again
    assert again.rows == tally.rows
    assert [kept.name[:12] for kept in cache.iterdir()] == ["Tiny_Person-"]


def test_without_the_dataset_the_table_says_it_was_skipped(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(realmem.DIR_VARIABLE, str(tmp_path))
    assert realmem.dataset_dir() is None
    (row,) = realmem.bench_realmem()
    assert row["value"] == "skipped" and realmem.DIR_VARIABLE in row["target"]
    assert realmem.bench_realmem(0)[0]["value"] == "skipped"
