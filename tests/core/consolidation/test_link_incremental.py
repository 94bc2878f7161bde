"""The nightly link stage links only what changed, and ends where a full relink would.

Real databases (SQLite and PostgreSQL through the ``storage`` fixture); the vectors are
generated (clustered, like memories about a few dozen topics) so that a "day" can add,
re-embed, invalidate, supersede, restore and delete memories at will and every list has
neighbours above the floor.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sqlalchemy import delete, func, insert, select, update

from core.config import Settings
from core.consolidation import link, link_log
from core.consolidation.link import LinkCancelled, run_link
from core.storage.orm import Memory, MemoryEdge
from core.storage.port import IndexedKind, StoragePort

DIMENSIONS = 32
MODEL = "generated"
SETTINGS = Settings(link_max_edges=4, link_similarity_floor=0.55)
TOPICS = 12


def topical(count: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    centres = np.random.default_rng(0).standard_normal((TOPICS, DIMENSIONS))
    points = centres[rng.integers(0, TOPICS, count)] + 0.55 * rng.standard_normal(
        (count, DIMENSIONS))
    return (points / np.linalg.norm(points, axis=1, keepdims=True)).astype(np.float32)


def add(storage: StoragePort, vectors: np.ndarray) -> list[int]:
    with storage.write() as session:
        ids = list(session.scalars(insert(Memory).returning(Memory.id,
                                                            sort_by_parameter_order=True),
                                   [{"content": f"memory {i}"} for i in range(len(vectors))]))
        storage.search.store_embeddings(session, IndexedKind.MEMORY, ids, vectors, MODEL)
    return ids


def reembed(storage: StoragePort, ids: list[int], vectors: np.ndarray) -> None:
    with storage.write() as session:
        storage.search.store_embeddings(session, IndexedKind.MEMORY, ids, vectors, MODEL)


def knn(storage: StoragePort) -> dict[int, dict[int, float]]:
    lists: dict[int, dict[int, float]] = {}
    with storage.read() as session:
        for a, b, weight in session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id,
                                                   MemoryEdge.weight).where(
                MemoryEdge.kind == "knn")):
            lists.setdefault(a, {})[b] = weight
    return lists


def assert_same_links(found: dict[int, dict[int, float]],
                      expected: dict[int, dict[int, float]]) -> None:
    """Equal up to ties: per memory the same weights, and the same neighbours above the
    weakest kept weight (a tie there may keep either)."""
    assert set(found) == set(expected)
    for source, wanted in expected.items():
        got = found[source]
        assert sorted(got.values()) == pytest.approx(sorted(wanted.values()), abs=1e-5), source
        weakest = min(wanted.values()) + 1e-5
        assert {t for t, w in got.items() if w > weakest} == {
            t for t, w in wanted.items() if w > weakest}, source


def queued(storage: StoragePort) -> int:
    with storage.read() as session:
        return int(session.execute(select(func.count()).select_from(
            link_log.CHANGES)).scalar_one())


@pytest.fixture
def linked(storage: StoragePort) -> list[int]:
    """300 memories, one of them invalid, linked by a first (full) run."""
    storage.search.ensure_dimensions(DIMENSIONS)
    ids = add(storage, topical(300, seed=1))
    with storage.write() as session:
        session.execute(update(Memory).where(Memory.id == ids[7]).values(is_valid=False))
    first = run_link(storage, SETTINGS)
    assert (first["mode"], first["reason"]) == ("full", "first run")
    assert queued(storage) == 0
    return ids


def a_day(storage: StoragePort, ids: list[int]) -> None:
    """New memories, re-embedded edits, invalidations, supersedes, a restore, deletes."""
    add(storage, topical(24, seed=2))
    edited = ids[10:40:3]
    reembed(storage, edited, topical(len(edited), seed=3))
    with storage.write() as session:
        session.execute(update(Memory).where(Memory.id.in_(ids[50:56])).values(
            is_valid=False))
        session.execute(update(Memory).where(Memory.id.in_(ids[60:63])).values(
            superseded_by=ids[64]))
        session.execute(update(Memory).where(Memory.id == ids[7]).values(is_valid=True))
        session.execute(delete(Memory).where(Memory.id.in_(ids[70:72])))


@pytest.fixture
def incremental(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small stores change by more than ``FULL_FRACTION`` in a day; the test's days may not
    fall back to the full relink."""
    monkeypatch.setattr(link, "FULL_FRACTION", 1.0)


def test_a_night_after_a_day_of_changes_ends_where_a_full_relink_does(
        storage: StoragePort, linked: list[int], incremental: None) -> None:
    a_day(storage, linked)
    counts = run_link(storage, SETTINGS)
    assert (counts["mode"], counts["reason"]) == ("incremental", "")
    assert queued(storage) == 0
    nightly = knn(storage)
    full = run_link(storage, SETTINGS, full=True)
    assert (full["mode"], full["reason"]) == ("full", "requested")
    assert_same_links(nightly, knn(storage))
    assert (full["added"], full["removed"]) == (0, 0)
    gone = set(linked[50:56]) | set(linked[60:63]) | set(linked[70:72])
    assert not gone & (set(nightly) | {t for targets in nightly.values() for t in targets})
    assert linked[7] in nightly  # valid again, so linked again
    # the day exercised every step: memories that lost a neighbour were relinked, and
    # lists of unchanged memories took a changed one in
    assert counts["changed"] > 24
    assert counts["relinked"] > counts["changed"] and counts["merged"] > 0


def test_a_night_with_no_changes_touches_nothing(storage: StoragePort, linked: list[int],
                                                incremental: None) -> None:
    before = knn(storage)
    counts = run_link(storage, SETTINGS)
    assert (counts["mode"], counts["changed"], counts["relinked"], counts["merged"]) == (
        "incremental", 0, 0, 0)
    assert (counts["added"], counts["updated"], counts["removed"]) == (0, 0, 0)
    assert knn(storage) == before and counts["edges"] == sum(map(len, before.values()))


def interrupter(kind: str, after: int) -> tuple[Callable[[int, int], None],
                                                Callable[[], bool]]:
    """A progress callback and a cancel check that stop the run once ``after`` slices of
    edges are written: by cancelling, or by raising as a killed process would stop."""
    written = [0]

    def progress(_done: int, _total: int) -> None:
        written[0] += 1
        if kind == "crash" and written[0] >= after:
            raise RuntimeError("the process died here")

    return progress, lambda: kind == "cancel" and written[0] >= after


@pytest.mark.parametrize("kind", ["cancel", "crash"])
def test_a_night_stopped_halfway_loses_nothing_and_its_rerun_finishes_the_job(
        storage: StoragePort, linked: list[int], incremental: None,
        monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    a_day(storage, linked)
    waiting = queued(storage)
    with storage.read() as session:
        recorded = link_log.linked_with(session)
    monkeypatch.setattr(link, "FIRST_WRITE", 4)  # several transactions, so some are written
    progress, cancel = interrupter(kind, after=2)
    with pytest.raises(LinkCancelled if kind == "cancel" else RuntimeError):
        run_link(storage, SETTINGS, progress=progress, cancel=cancel)
    assert queued(storage) == waiting  # the watermark did not move
    with storage.read() as session:
        assert link_log.linked_with(session) == recorded
    monkeypatch.setattr(link, "FIRST_WRITE", 256)

    again = run_link(storage, SETTINGS)
    assert again["mode"] == "incremental" and queued(storage) == 0
    nightly = knn(storage)
    run_link(storage, SETTINGS, full=True)
    assert_same_links(nightly, knn(storage))


def test_a_change_written_while_linking_waits_for_the_next_night(
        storage: StoragePort, linked: list[int], incremental: None) -> None:
    a_day(storage, linked)
    late: list[int] = []

    def progress(_done: int, _total: int) -> None:
        if not late:  # between two of the stage's transactions, another writer adds one
            late.extend(add(storage, topical(1, seed=9)))

    run_link(storage, SETTINGS, progress=progress)
    assert queued(storage) == 1 and late[0] not in knn(storage)
    after = run_link(storage, SETTINGS)
    assert after["changed"] == 1 and late[0] in knn(storage)
    nightly = knn(storage)
    run_link(storage, SETTINGS, full=True)
    assert_same_links(nightly, knn(storage))


def test_a_night_falls_back_to_a_full_relink_when_incremental_would_not_pay(
        storage: StoragePort, linked: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(link, "FULL_FRACTION", 0.05)
    reembed(storage, linked[:10], topical(10, seed=4))  # 10 of 299: under 5%
    assert run_link(storage, SETTINGS)["mode"] == "incremental"
    reembed(storage, linked[:20], topical(20, seed=5))  # 20: over 5%
    assert run_link(storage, SETTINGS)["reason"] == "many changes"
    changed: dict[str, Any] = {"link_max_edges": 3}
    counts = run_link(storage, SETTINGS.model_copy(update=changed))
    assert (counts["mode"], counts["reason"]) == ("full", "settings changed")
    assert max(map(len, knn(storage).values())) == 3
    assert run_link(storage, SETTINGS.model_copy(update=changed))["mode"] == "incremental"


def forced_index(storage: StoragePort) -> Any:
    """The storage's own kind of search index, told that 500 vectors make a large store
    (so consolidation asks its approximate index) and to never scan exactly."""
    from core.storage.postgres.adapter import PostgresStorage

    if isinstance(storage, PostgresStorage):
        from core.storage.postgres.search import PostgresSearchIndex

        return PostgresSearchIndex(storage.engine, exact_max_rows=0, approximate_min_rows=500)
    from core.storage.sqlite.search import SqliteSearchIndex

    return SqliteSearchIndex(storage.engine, database=storage.path,  # type: ignore[attr-defined]
                             exact_max_rows=0, ann_min_rows=500)


def test_at_scale_the_changed_lists_come_from_the_ann_index_reading_vectors_by_id(
        storage: StoragePort, incremental: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Above ``ANN_MIN_ROWS`` the night never reads every vector: candidates come from the
    approximate index (SQLite's ANN file, PostgreSQL's HNSW index through one scan per
    changed memory; forced to serve at this size), rescored exactly; the result agrees with
    an exact full relink but for the index's misses."""
    forced = forced_index(storage)
    monkeypatch.setattr(storage, "_search", forced)
    monkeypatch.setattr(link, "ANN_MIN_ROWS", 100)
    forced.ensure_dimensions(DIMENSIONS)
    ids = add(storage, topical(1_200, seed=11))
    run_link(storage, SETTINGS)
    a_day(storage, ids)
    read_all = storage.search.vectors
    monkeypatch.setattr(forced, "vectors", lambda *a, **k: pytest.fail("read every vector"))
    counts = run_link(storage, SETTINGS)
    assert counts["mode"] == "incremental" and counts["merged"] > 0
    nightly = knn(storage)

    monkeypatch.setattr(forced, "vectors", read_all)
    monkeypatch.setattr(link, "ANN_MIN_ROWS", 1_000_000)  # the exact full relink
    run_link(storage, SETTINGS, full=True)
    exact = knn(storage)
    pairs = {(a, b) for a, targets in exact.items() for b in targets}
    found = {(a, b) for a, targets in nightly.items() for b in targets}
    assert len(found & pairs) >= 0.95 * len(pairs)
