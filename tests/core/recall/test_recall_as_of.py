"""Questions asked at a moment (``core.recall.as_of``): nothing created after it is found,
and recency, the dates a question names and "last week" count from it, not from the wall
clock; the same through ``hearth search --as-of`` and per line of ``--batch``."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)

from cli.main import run
from core.config import Settings
from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.recall import RecallQuery, RecallResult, RecallService
from core.recall.as_of import as_of
from core.recall.search import search
from core.storage.port import StoragePort

MOMENT = datetime(2025, 3, 12, 12, 0, tzinfo=timezone.utc)
"""A Wednesday long before the tests run: the wall clock's "now" is far from it."""
PARKED = "I parked the car on level 3 of the station garage."


@pytest.fixture
def memories(storage: StoragePort, embedder: Any) -> MemoryService:
    return MemoryService(storage, embedder)


def recall(storage: StoragePort, embedder: Any, text: str, **query: Any) -> list[RecallResult]:
    return RecallService(storage, embedder, Settings()).recall(RecallQuery(text, **query))


def test_nothing_created_after_the_moment_is_found(memories: MemoryService,
                                                   storage: StoragePort, embedder: Any) -> None:
    older = memories.add(PARKED, created_at=MOMENT - timedelta(days=30)).id
    newer = memories.add("I parked the car on level 5 of the station garage.",
                         created_at=MOMENT + timedelta(days=10)).id
    at_the_moment = memories.add("I parked the bike at the station.", created_at=MOMENT).id

    now = {r.id for r in recall(storage, embedder, "where did I park the car")}
    assert {older, newer, at_the_moment} <= now
    then = {r.id for r in recall(storage, embedder, "where did I park the car", as_of=MOMENT)}
    assert older in then and at_the_moment in then
    assert newer not in then
    found = search(RecallService(storage, embedder, Settings()), "level 5 garage", 10,
                   as_of=MOMENT)
    assert newer not in {r.id for r in found}


def test_recency_counts_from_the_moment(memories: MemoryService, storage: StoragePort,
                                        embedder: Any) -> None:
    """Twins told apart only by their age: as of the moment, the one said the day before is
    fresh and the one said 80 days before nearly stale; by the wall clock both are older
    than the recency window and tie."""
    old = memories.add(PARKED, created_at=MOMENT - timedelta(days=80)).id
    recent = memories.add(PARKED, created_at=MOMENT - timedelta(days=1)).id

    then = recall(storage, embedder, "where did I park the car", as_of=MOMENT)
    by_id = {r.id: r for r in then}
    assert [r.id for r in then][:2] == [recent, old]
    assert by_id[recent].signals["recency"]["age_days"] == pytest.approx(1.0)
    assert by_id[old].signals["recency"]["age_days"] == pytest.approx(80.0)
    assert by_id[recent].signals["recency"]["boost"] == pytest.approx(0.05 * (1 - 1 / 90))
    assert by_id[old].signals["recency"]["boost"] == pytest.approx(0.05 * (1 - 80 / 90))

    now = {r.id: r for r in recall(storage, embedder, "where did I park the car")}
    assert now[recent].signals["recency"]["boost"] == now[old].signals["recency"]["boost"] == 0


def test_last_week_is_the_week_before_the_moment(memories: MemoryService,
                                                 storage: StoragePort, embedder: Any) -> None:
    """"last week" asked on Wednesday 12 March 2025 is 3-10 March, whatever today is."""
    last_week = memories.add("Booked the ferry tickets to the island.",
                             created_at=MOMENT - timedelta(days=7)).id
    memories.add("Renewed the library card.", created_at=MOMENT - timedelta(days=30))
    memories.add("Bought a new kettle.", created_at=MOMENT - timedelta(days=14))

    results = recall(storage, embedder, "which memories did I keep last week", k=1,
                     as_of=MOMENT)
    (named,) = [r for r in results if "metadata" in r.signals]
    assert named.id == last_week
    window = named.signals["metadata"]
    local_moment = MOMENT.astimezone()
    monday = local_moment.date() - timedelta(days=local_moment.weekday())
    assert datetime.fromisoformat(window["since"]).date() == monday - timedelta(days=7)
    assert datetime.fromisoformat(window["until"]).date() == monday
    now = recall(storage, embedder, "which memories did I keep last week", k=1)
    assert not [r for r in now if "metadata" in r.signals]


def test_a_month_the_question_names_is_the_one_before_the_moment(
        memories: MemoryService, storage: StoragePort, embedder: Any) -> None:
    """"in February" asked in April 2025 is February 2025 (by the wall clock, this
    year's)."""
    february = memories.add("Went to the dentist for a filling.",
                            created_at=datetime(2025, 2, 20, 9, tzinfo=timezone.utc)).id
    question = "when did I go to the dentist in February"
    then = {r.id: r for r in recall(storage, embedder, question,
                                    as_of=datetime(2025, 4, 10, tzinfo=timezone.utc))}
    assert then[february].signals["cues"]["date"] > 0
    now = {r.id: r for r in recall(storage, embedder, question)}
    assert "date" not in now[february].signals.get("cues", {})


# --- the moment as text ----------------------------------------------------------------


def test_a_date_is_the_end_of_that_day_in_the_users_zone() -> None:
    assert as_of("2025-03-14", "Europe/Lisbon") == datetime(
        2025, 3, 14, 23, 59, 59, 999_999, tzinfo=timezone.utc)
    assert as_of("2025-07-14", "Europe/Lisbon") == datetime(
        2025, 7, 14, 22, 59, 59, 999_999, tzinfo=timezone.utc)  # summer time
    assert as_of("2025-03-14T18:30", "America/New_York") == datetime(
        2025, 3, 14, 22, 30, tzinfo=timezone.utc)
    assert as_of("2025-03-14T18:30+01:00", "America/New_York") == datetime(
        2025, 3, 14, 17, 30, tzinfo=timezone.utc)
    assert as_of("2025-03-14T18:30Z") == datetime(2025, 3, 14, 18, 30, tzinfo=timezone.utc)


@pytest.mark.parametrize("text", ["", "yesterday", "2025-13-01", "2025-02-30",
                                  "9999-12-31T23:59:59-05:00", "2025-03-14T25:00",
                                  "2025-03-14" + " " * 40 + "x"])
def test_what_is_not_a_moment_is_refused_in_a_sentence(text: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        as_of(text, "UTC")
    assert "YYYY-MM-DD" in refused.value.hint


def test_a_moment_without_a_zone_is_refused() -> None:
    with pytest.raises(InvalidInputError):
        RecallQuery("anything", as_of=datetime(2025, 3, 14))


# --- hearth search --as-of and --batch -------------------------------------------------

TRANSCRIPT = {
    "conversation_id": "as-of-demo", "participants": ["user", "assistant"],
    "sessions": [
        {"session_id": "s1", "started_at": "2025-01-10T09:00:00+00:00", "turns": [
            {"turn_id": "t1", "speaker": "user", "text": "My sister Ines lives in Lisbon."}]},
        {"session_id": "s2", "started_at": "2025-06-02T09:00:00+00:00", "turns": [
            {"turn_id": "t2", "speaker": "user",
             "text": "My sister Ines moved to Porto last week."}]}]}


def searched(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> Any:
    code = run(["--home", str(home), "search", *args])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return captured.out


@pytest.fixture
def imported(capsys: pytest.CaptureFixture[str], migrated_home: Path,
             tmp_path: Path) -> Path:
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps(TRANSCRIPT))
    assert run(["--home", str(migrated_home), "import", "transcript", str(transcript)]) == 0
    capsys.readouterr()
    return migrated_home


def turns(results: list[dict[str, Any]]) -> list[str]:
    return [r["provenance"]["turn_id"] for r in results]


def test_search_as_of_sees_imported_turns_by_when_they_were_said(
        capsys: pytest.CaptureFixture[str], imported: Path) -> None:
    question = "where does my sister Ines live"
    assert set(turns(json.loads(searched(capsys, imported, question, "--json")))) == {
        "t1", "t2"}
    then = json.loads(searched(capsys, imported, question, "--as-of", "2025-03-01", "--json"))
    assert turns(then) == ["t1"]
    table = searched(capsys, imported, question, "--as-of", "2025-03-01T12:00")
    assert "as of" in table and "2025-03-01 12:00" in " ".join(table.split())


def test_batch_lines_each_carry_their_own_moment(capsys: pytest.CaptureFixture[str],
                                                 imported: Path, tmp_path: Path) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text("where does my sister Ines live\n\n"
                       '{"query": "where does my sister Ines live", "as_of": "2025-03-01"}\n'
                       '{"query": "where does my sister Ines live", "as_of": null}\n')
    lines = [json.loads(line) for line in searched(
        capsys, imported, "--batch", str(queries), "--as-of", "2025-07-01").splitlines()]
    assert [line["query"] for line in lines] == ["where does my sister Ines live"] * 3
    july, march = as_of("2025-07-01").isoformat(), as_of("2025-03-01").isoformat()
    assert [line["as_of"] for line in lines] == [july, march, july]
    assert [sorted(turns(line["results"])) for line in lines] == [["t1", "t2"], ["t1"],
                                                                  ["t1", "t2"]]
    plain = [json.loads(line) for line in searched(
        capsys, imported, "--batch", str(queries)).splitlines()]
    assert "as_of" not in plain[0] and sorted(turns(plain[0]["results"])) == ["t1", "t2"]


@pytest.mark.parametrize(("line", "said"), [
    ('{"query": "x", "as_of": "soon"}', "Line 2 of"),
    ('{"query": "x", "asof": "2025-03-01"}', "keys a query does not take: asof"),
    ('{"query": ""}', 'needs a "query"'),
    ('{"query": "x", "as_of": 20250301}', '"as_of" must be'),
    ('{"query": "x",', "must be a JSON object"),
    ('["x"]', None)])
def test_a_bad_batch_line_is_refused_before_any_question_is_asked(
        capsys: pytest.CaptureFixture[str], imported: Path, tmp_path: Path,
        line: str, said: str | None) -> None:
    queries = tmp_path / "q.jsonl"
    queries.write_text(f"sister\n{line}\n")
    code = run(["--home", str(imported), "search", "--batch", str(queries)])
    captured = capsys.readouterr()
    if said is None:  # not starting with "{": a plain query, as before
        assert code == 0 and len(captured.out.splitlines()) == 2
        return
    assert code != 0 and captured.out == ""
    assert said in captured.err and "Line 2 of" in captured.err
