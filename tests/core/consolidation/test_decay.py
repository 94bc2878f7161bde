"""Decay: exact arithmetic, idempotence, exemptions, and that age never invalidates (real
SQLite)."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

from core.config import Settings
from core.consolidation.decay import run_decay
from core.storage.orm import Memory
from core.storage.sqlite.adapter import SqliteStorage

NOW = datetime(2026, 11, 22, 2, 0, tzinfo=timezone.utc)


def add(storage: SqliteStorage, **fields: Any) -> int:
    values = {"content": "a memory", "created_at": NOW, "updated_at": NOW, **fields}
    values.setdefault("learned_at", values["created_at"])  # learned when it happened
    with storage.write() as session:
        memory = Memory(**values)
        session.add(memory)
        session.flush()
        return memory.id


def get(storage: SqliteStorage, memory_id: int) -> Memory:
    with storage.read() as session:
        memory = session.get(Memory, memory_id)
        assert memory is not None
        return memory


def test_freshness_and_strength_follow_the_formulas_exactly(storage: SqliteStorage,
                                                             settings: Settings) -> None:
    # general half-life 30 days, never accessed: both clocks start at created_at
    plain = add(storage, created_at=NOW - timedelta(days=30), category="general")
    # health half-life 90 days; accessed 10 days ago; importance 1.0 stretches time by 1.5
    used = add(storage, created_at=NOW - timedelta(days=45), category="health",
               last_accessed_at=NOW - timedelta(days=10), importance=1.0)
    # unknown category falls back to general; importance 0 doubles the speed
    odd = add(storage, created_at=NOW - timedelta(days=15), category="hobbies", importance=0.0)

    counts = run_decay(storage, settings, now=NOW)

    assert counts == {"memories": 3, "updated": 3, "faded": 0, "exempt": 0}
    assert get(storage, plain).freshness == pytest.approx(0.5)
    assert get(storage, plain).strength == pytest.approx(0.95 ** 30)
    assert get(storage, used).freshness == pytest.approx(math.exp(-45 * math.log(2) / 90))
    assert get(storage, used).strength == pytest.approx(0.95 ** (10 / 1.5))
    assert get(storage, odd).freshness == pytest.approx(2 ** -0.5)
    assert get(storage, odd).strength == pytest.approx(0.95 ** 30)


def test_running_twice_decays_once(storage: SqliteStorage, settings: Settings) -> None:
    memory = add(storage, created_at=NOW - timedelta(days=20))
    run_decay(storage, settings, now=NOW)
    first = get(storage, memory)
    again = run_decay(storage, settings, now=NOW + timedelta(hours=1e-6))
    second = get(storage, memory)
    assert again["updated"] == 0
    assert (second.strength, second.freshness) == (first.strength, first.freshness)
    assert first.strength == pytest.approx(0.95 ** 20)


def test_user_stated_and_pinned_memories_never_decay(storage: SqliteStorage,
                                                     settings: Settings) -> None:
    stated = add(storage, created_at=NOW - timedelta(days=900), priority="highest",
                 strength=0.4, freshness=0.3)
    pinned = add(storage, created_at=NOW - timedelta(days=900), tier="core")
    counts = run_decay(storage, settings, now=NOW)
    assert counts["exempt"] == 2 and counts["faded"] == 0
    for memory_id in (stated, pinned):
        memory = get(storage, memory_id)
        assert (memory.strength, memory.freshness, memory.is_valid) == (1.0, 1.0, True)


def test_age_alone_never_takes_a_memory_out_of_reach(storage: SqliteStorage,
                                                     settings: Settings) -> None:
    recent = add(storage, created_at=NOW - timedelta(days=58))
    faded = add(storage, created_at=NOW - timedelta(days=59))
    ancient = add(storage, created_at=NOW - timedelta(days=3650))
    source = add(storage, created_at=NOW - timedelta(days=400), tier="source")

    counts = run_decay(storage, settings, now=NOW)

    assert counts["faded"] == 3  # 0.95^59 = 0.0485 and older
    for memory_id in (recent, faded, ancient, source):
        memory = get(storage, memory_id)
        assert (memory.is_valid, memory.invalid_reason) == (True, None)
    assert get(storage, faded).strength == pytest.approx(0.95 ** 59)
    assert get(storage, ancient).strength < 1e-50
    # later runs still look at every one of them (none left recall)
    assert run_decay(storage, settings, now=NOW + timedelta(days=5))["memories"] == 4


def test_an_imported_old_memory_is_old_knowledge_not_unused_for_years(
        storage: SqliteStorage, settings: Settings) -> None:
    """Two clocks: created_at (when it happened) drives freshness; learned_at (when Hearth
    got it) starts the unused-days count that strength uses."""
    imported = add(storage, created_at=NOW - timedelta(days=700),
                   learned_at=NOW - timedelta(days=10))
    run_decay(storage, settings, now=NOW)
    memory = get(storage, imported)
    assert memory.strength == pytest.approx(0.95 ** 10)
    assert memory.freshness == pytest.approx(math.exp(-700 * math.log(2) / 30))


def test_recall_feedback_slows_decay(storage: SqliteStorage, settings: Settings) -> None:
    ordinary = add(storage, created_at=NOW - timedelta(days=40), importance=0.5)
    valued = add(storage, created_at=NOW - timedelta(days=40), importance=0.9)
    run_decay(storage, settings, now=NOW)
    assert get(storage, valued).strength > get(storage, ordinary).strength


def test_an_empty_database_decays_nothing(storage: SqliteStorage, settings: Settings) -> None:
    assert run_decay(storage, settings, now=NOW) == {
        "memories": 0, "updated": 0, "faded": 0, "exempt": 0}
