"""Recall that uses what consolidation builds: graph edge recovery, type + time questions,
and the importance bump of used memories (real storage, real embedder)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import Any

import pytest
from sqlalchemy import insert

from core.config import Settings
from core.knowledge.memories import MemoryService
from core.knowledge.notes import NoteService
from core.recall import RecallQuery, RecallService
from core.recall import metadata
from core.recall.service import IMPORTANCE_BUMP
from core.storage.orm import MemoryEdge, Note
from core.storage.port import IndexedKind, SearchFilters
from core.storage.sqlite.adapter import SqliteStorage

QUESTION = "where does my sister live"


@pytest.fixture
def seeded(storage: SqliteStorage, embedder: Any) -> dict[str, int]:
    service = MemoryService(storage, embedder)
    ids = {
        "sister": service.add("My sister Ines lives in Porto, near the river.").id,
        "moved": service.add("Ines moved to Porto last spring for a new job.").id,
        "router": service.add("The router keeps dropping the wifi connection.").id,
        "lift": service.add("The flat has no lift and the stairs are steep.",
                            namespace="user/home").id,
        "tea": service.add("I prefer green tea in the morning.").id,
    }
    return ids


def link(storage: SqliteStorage, a: int, b: int, weight: float, kind: str = "knn") -> None:
    with storage.write() as session:
        session.execute(insert(MemoryEdge).values(from_id=a, to_id=b, weight=weight, kind=kind))


def recall(storage: SqliteStorage, embedder: Any, **options: Any) -> list[Any]:
    return RecallService(storage, embedder, Settings()).recall(RecallQuery(QUESTION, **options))


def test_a_memory_reachable_only_by_an_edge_joins_the_tail_and_the_head_stays(
        storage: SqliteStorage, embedder: Any, seeded: dict[str, int]) -> None:
    before = recall(storage, embedder)
    assert seeded["lift"] not in {r.id for r in before} and before[0].id == seeded["sister"]
    link(storage, seeded["lift"], seeded["sister"], 0.8)  # walked in either direction

    after = recall(storage, embedder)

    assert [r.id for r in after[:len(before)]] == [r.id for r in before]
    assert [r.score for r in after[:len(before)]] == pytest.approx([r.score for r in before])
    recovered = after[len(before):]
    assert [r.id for r in recovered] == [seeded["lift"]]
    assert recovered[0].signals["graph"] == {"from": seeded["sister"], "weight": 0.8,
                                             "kind": "knn"}
    assert recovered[0].score <= before[-1].score
    assert "vector" not in recovered[0].signals and "text" not in recovered[0].signals


def test_dream_edges_count_for_half_and_the_best_path_wins(
        storage: SqliteStorage, embedder: Any, seeded: dict[str, int]) -> None:
    link(storage, seeded["sister"], seeded["lift"], 0.9, kind="dream")  # 0.45 after the factor
    link(storage, seeded["sister"], seeded["lift"], 0.5)
    link(storage, seeded["tea"], seeded["sister"], 0.9, kind="dream")
    results = recall(storage, embedder)
    head = results[0]
    assert head.id == seeded["sister"]
    tail = results[1:]
    assert [r.id for r in tail] == [seeded["lift"], seeded["tea"]]
    assert tail[0].signals["graph"] == {"from": head.id, "weight": 0.5, "kind": "knn"}
    assert tail[0].score == pytest.approx(head.score * 0.5)
    assert tail[1].score == pytest.approx(head.score * 0.9 * 0.5)


def test_recovery_obeys_the_filters_and_can_be_turned_off(
        storage: SqliteStorage, embedder: Any, seeded: dict[str, int]) -> None:
    link(storage, seeded["sister"], seeded["lift"], 0.9)
    assert seeded["lift"] not in {r.id for r in recall(storage, embedder, graph=0)}
    scoped = recall(storage, embedder, filters=SearchFilters(namespaces=("user/people",
                                                                         "user",)))
    assert seeded["lift"] in {r.id for r in scoped}  # "user" covers user/home
    narrow = recall(storage, embedder, filters=SearchFilters(
        exclude_ids=frozenset({seeded["lift"]})))
    assert seeded["lift"] not in {r.id for r in narrow}
    MemoryService(storage, embedder).invalidate(seeded["lift"], "wrong flat")
    assert seeded["lift"] not in {r.id for r in recall(storage, embedder)}


# --- type + time -------------------------------------------------------------------------

NOW = datetime(2026, 11, 19, 14, 30, tzinfo=timezone(timedelta(hours=1)))  # a Thursday


@pytest.mark.parametrize(("text", "kind", "since", "until"), [
    ("the summary from last night", "summary", (11, 18, 18, 0), (11, 19, 6, 0)),
    ("what did I note last week", "note", (11, 9, 0, 0), (11, 16, 0, 0)),
    ("memories from yesterday", "memory", (11, 18, 0, 0), (11, 19, 0, 0)),
    ("notes from today", "note", (11, 19, 0, 0), (11, 19, 14, 30)),
    ("session summaries this week", "summary", (11, 16, 0, 0), (11, 19, 14, 30)),
    ("what I noted last month", "note", (10, 1, 0, 0), (11, 1, 0, 0)),
    ("the summary from 3 days ago", "summary", (11, 16, 0, 0), (11, 17, 0, 0)),
    ("a note from two days ago", "note", (11, 17, 0, 0), (11, 18, 0, 0)),
])
def test_type_and_time_questions_are_parsed(text: str, kind: str, since: tuple[int, ...],
                                            until: tuple[int, ...]) -> None:
    parsed = metadata.parse(text, NOW)
    assert parsed is not None
    assert parsed.kind == kind
    assert parsed.since == datetime(2026, *since, tzinfo=NOW.tzinfo)
    assert parsed.until == datetime(2026, *until, tzinfo=NOW.tzinfo)


@pytest.mark.parametrize("text", ["where does my sister live", "what happened last night",
                                  "show me the summary", "a note about Porto"])
def test_without_both_a_kind_and_a_time_nothing_is_parsed(text: str) -> None:
    assert metadata.parse(text, NOW) is None


def test_the_summary_from_last_night_is_fetched_by_metadata(
        storage: SqliteStorage, embedder: Any) -> None:
    question = "show me the summary from last night"
    window = metadata.parse(question, datetime.now().astimezone())
    assert window is not None
    inside = window.since + (window.until - window.since) / 2
    notes = NoteService(storage, embedder)
    wanted = notes.save_summary("planning the Porto trip", "We booked flights and a flat.",
                                session_id=None).id
    other = notes.save_summary("router troubles", "The wifi kept dropping.",
                               session_id=None).id
    plain = notes.save("Shopping list", "Batteries and tea.").id
    with storage.write() as session:
        for note_id, when in ((wanted, inside), (other, window.since - timedelta(days=3)),
                              (plain, inside)):
            session.get(Note, note_id).created_at = when

    results = RecallService(storage, embedder, Settings()).recall(
        RecallQuery(question, kinds=(IndexedKind.NOTE,)))

    by_metadata = [r for r in results if "metadata" in r.signals]
    assert [r.id for r in by_metadata] == [wanted]
    assert by_metadata[0].signals["metadata"]["phrase"] == "last night"
    # asked only for memories: notes are not added
    only_memories = RecallService(storage, embedder, Settings()).recall(RecallQuery(question))
    assert all(r.kind is IndexedKind.MEMORY for r in only_memories)


# --- feedback ----------------------------------------------------------------------------


def test_using_a_memory_raises_its_importance_up_to_one_and_restores_strength(
        storage: SqliteStorage, embedder: Any) -> None:
    service = MemoryService(storage, embedder)
    low = service.add("My sister Ines lives in Porto.", importance=0.5).id
    high = service.add("Ines works as an architect in Porto.", importance=0.995).id
    with storage.write() as session:
        from core.storage.orm import Memory
        session.get(Memory, low).strength = 0.2
    RecallService(storage, embedder, Settings()).mark_accessed([low, high])
    assert service.get(low).importance == pytest.approx(0.5 + IMPORTANCE_BUMP)
    assert service.get(low).strength == 1.0 and service.get(low).access_count == 1
    assert service.get(high).importance == 1.0
