"""The read models behind the inspector views: browsing and searching memories under
filters, a memory's detail with edges and supersede chain, the activity lists, and the
aggregates the Stats view plots."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np
import pytest
import typer
from sqlalchemy import update
from typer.testing import CliRunner

from core.app import Hearth
from cli import consolidation_cmd
from core.consolidation.processor import MemoryProcessor, retry_event
from core.consolidation.runs import RunRecorder
from core.errors import InvalidInputError, NotFoundError
from core.learning.events import add_event
from core.knowledge.memories import MemorySpec
from core.storage.orm import Memory, MemoryEdge
from core.views import activity, memory_browse, memory_detail, stats
from core.views.memory_browse import Cursor, MemoryFilter, Validity
from support.scripted_llm import ScriptedLLM, failing

NOW = datetime(2026, 3, 10, 12, 0, tzinfo=timezone.utc)


@dataclass(frozen=True)
class Seeded:
    """Ids of the memories ``seed`` writes, by role."""

    cello: int
    cat: int
    old_job: int
    new_job: int
    oldest_job: int
    wrong: int
    episode: int
    pinned: int


def seed(hearth: Hearth) -> Seeded:
    """A small, realistic memory: a supersede chain (oldest → old → new job), an invalidated
    memory, kNN and dream edges, a pinned core memory, and memories over several days."""
    specs = [
        MemorySpec("The user plays the cello on Sunday mornings.", category="hobbies",
                   created_at=NOW - timedelta(days=3)),
        MemorySpec("The user has a cat called Miso.", category="pets",
                   created_at=NOW - timedelta(days=3)),
        MemorySpec("The user works as a nurse at the city hospital.", category="work",
                   created_at=NOW - timedelta(days=2)),
        MemorySpec("The user works as a teacher at Riverside school.", category="work",
                   created_at=NOW - timedelta(days=1)),
        MemorySpec("The user is studying nursing.", category="work",
                   created_at=NOW - timedelta(days=5)),
        MemorySpec("The user is allergic to cats.", category="health",
                   created_at=NOW - timedelta(days=1)),
        MemorySpec("Yesterday the user went hiking in the hills with Ana.",
                   memory_type="episodic", namespace="user/trips", category="events",
                   created_at=NOW),
        MemorySpec("The user's name is Sam.", tier="core", category="identity",
                   created_at=NOW),
    ]
    ids = Seeded(*hearth.memories.add_many(specs))
    hearth.memories.invalidate(ids.wrong, "Contradicted: the user has a cat.")
    with hearth.storage.write() as session:
        session.execute(update(Memory).where(Memory.id == ids.oldest_job)
                        .values(superseded_by=ids.old_job))
        session.execute(update(Memory).where(Memory.id == ids.old_job)
                        .values(superseded_by=ids.new_job))
        session.execute(update(Memory).where(Memory.id == ids.cat).values(strength=0.42,
                                                                          freshness=0.12))
        session.add_all([
            MemoryEdge(from_id=ids.cello, to_id=ids.episode, kind="knn", weight=0.71),
            MemoryEdge(from_id=ids.cat, to_id=ids.cello, kind="dream", weight=0.33),
        ])
    return ids


# --- browsing -------------------------------------------------------------------------------


def test_browse_lists_valid_memories_newest_first(hearth: Hearth) -> None:
    ids = seed(hearth)
    page = memory_browse.browse(hearth.storage, MemoryFilter())
    assert [row.id for row in page.rows] == [ids.pinned, ids.episode, ids.new_job,
                                             ids.cat, ids.cello]  # a tie: newer id first
    assert page.next is None
    assert {row.state for row in page.rows} == {"valid"}
    assert memory_browse.count(hearth.storage, MemoryFilter()) == 5


def test_browse_pages_follow_on_without_gaps_or_repeats(hearth: Hearth) -> None:
    seed(hearth)
    everything = MemoryFilter(validity=Validity.ALL)
    seen: list[int] = []
    cursor: Cursor | None = None
    pages = 0
    while True:
        page = memory_browse.browse(hearth.storage, everything, cursor, limit=3)
        seen += [row.id for row in page.rows]
        pages += 1
        if page.next is None:
            break
        cursor = page.next
    whole = memory_browse.browse(hearth.storage, everything).rows
    assert pages == 3 and seen == [row.id for row in whole] and len(set(seen)) == 8


def test_each_filter_narrows_the_list(hearth: Hearth) -> None:
    ids = seed(hearth)

    def listed(**fields: object) -> set[int]:
        memory_filter = MemoryFilter(**fields)  # type: ignore[arg-type]
        rows = memory_browse.browse(hearth.storage, memory_filter).rows
        assert memory_browse.count(hearth.storage, memory_filter) == len(rows)
        return {row.id for row in rows}

    assert listed(memory_types=frozenset({"episodic"})) == {ids.episode}
    assert listed(tiers=frozenset({"core"})) == {ids.pinned}
    assert listed(namespace="user/trips") == {ids.episode}
    assert listed(namespace="user/") == {ids.pinned, ids.episode, ids.new_job, ids.cello,
                                         ids.cat}
    assert listed(validity=Validity.INVALID) == {ids.wrong}
    assert listed(validity=Validity.SUPERSEDED) == {ids.old_job, ids.oldest_job}
    assert listed(validity="all") == set(vars(ids).values())
    assert listed(since=NOW - timedelta(days=2), until=NOW) == {ids.new_job}
    assert memory_browse.namespaces(hearth.storage) == ["user", "user/trips"]


def test_bad_filters_are_refused_with_a_clear_message() -> None:
    with pytest.raises(InvalidInputError, match="ends before it starts"):
        MemoryFilter(since=NOW, until=NOW - timedelta(days=1))
    with pytest.raises(InvalidInputError, match="'sometimes' is not a memory state"):
        MemoryFilter(validity="sometimes")  # type: ignore[arg-type]


# --- searching ------------------------------------------------------------------------------


def test_search_gives_scored_results_with_their_signals(hearth: Hearth) -> None:
    ids = seed(hearth)
    rows = memory_browse.search(hearth.storage, hearth.recall, "cello", MemoryFilter())
    assert rows[0].id == ids.cello
    assert rows[0].score is not None and rows[0].score > 0
    assert {"text", "vector", "fusion", "recency", "strength"} <= rows[0].signals.keys()
    assert rows[0].signals["text"]["rank"] == 1
    assert all(row.state == "valid" for row in rows)


def test_search_honours_type_and_validity_filters(hearth: Hearth) -> None:
    ids = seed(hearth)
    episodic = memory_browse.search(hearth.storage, hearth.recall, "hiking with Ana",
                                    MemoryFilter(memory_types=frozenset({"episodic"})))
    assert [row.id for row in episodic] == [ids.episode]
    work = "Where does the user work as a nurse?"
    superseded = memory_browse.search(hearth.storage, hearth.recall, work,
                                      MemoryFilter(validity=Validity.SUPERSEDED))
    assert {row.id for row in superseded} == {ids.old_job, ids.oldest_job}
    invalid = memory_browse.search(hearth.storage, hearth.recall, "allergic to cats",
                                   MemoryFilter(validity=Validity.INVALID))
    assert [row.id for row in invalid] == [ids.wrong]
    valid = memory_browse.search(hearth.storage, hearth.recall, "allergic to cats",
                                 MemoryFilter())
    assert ids.wrong not in {row.id for row in valid}


# --- a memory's detail ----------------------------------------------------------------------


def test_detail_has_provenance_edges_and_both_ends_of_the_supersede_chain(
        hearth: Hearth) -> None:
    ids = seed(hearth)
    middle = memory_detail.memory_detail(hearth.storage, ids.old_job)
    assert middle.state == "superseded"
    assert [(link.depth, link.memory.id) for link in middle.replaced_by] == [(1, ids.new_job)]
    assert [(link.depth, link.memory.id) for link in middle.replaced] == [(1, ids.oldest_job)]

    newest = memory_detail.memory_detail(hearth.storage, ids.new_job)
    assert newest.replaced_by == []
    assert [(link.depth, link.memory.id) for link in newest.replaced] == [
        (1, ids.old_job), (2, ids.oldest_job)]
    assert newest.replaced[1].memory.state == "superseded"

    cello = memory_detail.memory_detail(hearth.storage, ids.cello)
    assert [(e.kind, e.weight, e.outgoing, e.other.id) for e in cello.edges] == [
        ("knn", 0.71, True, ids.episode), ("dream", 0.33, False, ids.cat)]
    assert cello.source == "conversation" and cello.embedding_model == hearth.embedder.model_id


def test_detail_cites_an_imported_turn(hearth: Hearth) -> None:
    imported = hearth.memories.add("The user moved to Lisbon.", source="import",
                                   external_id="locomo:conv-3:D2:7",
                                   origin={"conversation_id": "conv-3", "turn_id": "D2:7"})
    detail = memory_detail.memory_detail(hearth.storage, imported.id)
    assert (detail.external_id, detail.turn_id) == ("locomo:conv-3:D2:7", "D2:7")
    assert detail.origin["conversation_id"] == "conv-3"


def test_detail_of_a_missing_memory_says_so(hearth: Hearth) -> None:
    with pytest.raises(NotFoundError, match="Memory 404 is not there any more"):
        memory_detail.memory_detail(hearth.storage, 404)


# --- activity -------------------------------------------------------------------------------


def test_the_queue_shows_failed_events_with_their_error_until_retried(hearth: Hearth) -> None:
    waiting = add_event(hearth.storage, "observation", "Learning Portuguese.", {})
    MemoryProcessor(hearth.consolidation(), ScriptedLLM([failing("model missing")])).run()
    later = add_event(hearth.storage, "observation", "Likes jazz.", {})

    queue = activity.queued_events(hearth.storage, hearth.settings.event_max_attempts)
    assert [(e.id, e.state, e.attempts) for e in queue] == [
        (waiting, activity.EventState.FAILING, 1), (later, activity.EventState.PENDING, 0)]
    assert queue[0].failed and "model missing" in (queue[0].last_error or "")
    assert activity.queue_size(hearth.storage) == 2

    retry_event(hearth.storage, waiting)
    (retried, _) = activity.queued_events(hearth.storage, hearth.settings.event_max_attempts)
    assert (retried.state, retried.attempts, retried.last_error) == (
        activity.EventState.PENDING, 0, None)


def test_runs_are_listed_newest_first_with_their_stages(hearth: Hearth) -> None:
    first = RunRecorder(hearth.storage, "reflection", "schedule")
    with first.stage("profile") as counts:
        counts["facts"] = 4
    first.finish({"facts": 4})
    second = RunRecorder(hearth.storage, "dream", "manual")
    with pytest.raises(RuntimeError), second.stage("link"):
        raise RuntimeError("disk full")
    second.fail("disk full")
    going = RunRecorder(hearth.storage, "decay")

    runs = activity.list_runs(hearth.storage, limit=10)
    assert [(r.id, r.kind, r.status) for r in runs] == [
        (going.run_id, "decay", "running"), (second.run_id, "dream", "failed"),
        (first.run_id, "reflection", "done")]
    assert runs[0].seconds is None and runs[2].seconds is not None
    (profile,) = runs[2].stages
    assert (profile.name, profile.status, profile.counts) == ("profile", "done", {"facts": 4})
    (link,) = runs[1].stages
    assert link.status == "failed" and "disk full" in (link.error or "")
    assert "RuntimeError: disk full" in (link.traceback or "")  # where it raised, kept
    assert [r.id for r in activity.list_runs(hearth.storage, "dream")] == [second.run_id]


def test_the_command_line_lists_runs_through_the_same_view(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch, isolated_home: Path) -> None:
    recorder = RunRecorder(hearth.storage, "reflection")
    with recorder.stage("profile") as counts:
        counts["facts"] = 2
    recorder.finish()
    app = typer.Typer()
    app.command()(consolidation_cmd.events)
    app.command()(consolidation_cmd.runs)
    listed = json.loads(CliRunner().invoke(app, ["runs", "--json"]).stdout)
    assert listed[0]["stages"]["profile"]["counts"] == {"facts": 2}
    assert "error" not in listed[0]["stages"]["profile"]
    assert "traceback" not in listed[0]["stages"]["profile"]


# --- stats ----------------------------------------------------------------------------------


def test_growth_is_the_running_total_per_day(hearth: Hearth) -> None:
    seed(hearth)
    growth = stats.memory_growth(hearth.storage)
    day = NOW.date()
    assert growth.days == [day - timedelta(days=n) for n in (5, 3, 2, 1, 0)]
    assert growth.total.tolist() == [1, 3, 4, 6, 8]
    # superseded (days 5 and 2) and invalidated (day 1) memories leave the valid line
    assert growth.valid.tolist() == [0, 2, 2, 3, 5]


def test_facts_by_category_counts_most_first(hearth: Hearth) -> None:
    hearth.facts.remember("favourite_colour", "green", category="preference")
    hearth.facts.remember("favourite_food", "ramen", category="preference")
    hearth.facts.remember("home_city", "Lisbon", category="personal")
    assert stats.facts_by_category(hearth.storage) == [("preference", 2), ("personal", 1)]


def test_histograms_bin_valid_memories(hearth: Hearth) -> None:
    seed(hearth)
    strength = stats.histogram(hearth.storage, "strength", bins=10)
    assert np.allclose(strength.edges, np.linspace(0, 1, 11))
    expected = np.zeros(10, dtype=int)
    expected[4], expected[9] = 1, 4        # the cat at 0.42; the rest at full strength
    assert strength.counts.tolist() == expected.tolist()
    freshness = stats.histogram(hearth.storage, "freshness", bins=10)
    assert freshness.counts[1] == 1 and freshness.counts.sum() == 5
    with pytest.raises(InvalidInputError, match="no histogram of 'importance'"):
        stats.histogram(hearth.storage, "importance")


def test_stats_of_an_empty_folder_are_empty_not_errors(hearth: Hearth) -> None:
    snapshot = stats.stats(hearth.storage)
    assert snapshot.growth.days == [] and snapshot.growth.total.size == 0
    assert snapshot.facts_by_category == []
    assert snapshot.strength.counts.sum() == 0



def test_stats_agree_on_both_backends(storage) -> None:
    """The Stats view's SQL on each backend: the clamping (a scalar two-argument min/max is
    ``least``/``greatest`` on PostgreSQL) and the binning (0.99 × 10 is bin 9: flooring,
    where PostgreSQL's cast to integer would round it to 10 and the last bin's cap would
    hide it only at the top)."""
    from core.storage.orm import UserFact

    strengths = [0.0, 0.04, 0.14, 0.15, 0.5, 0.94, 0.99, 1.0, 1.7, -0.3]
    with storage.write() as session:
        for number, strength in enumerate(strengths):
            session.add(Memory(content=f"memory {number}", strength=strength,
                               freshness=0.26, created_at=NOW - timedelta(days=number % 3)))
        session.add(Memory(content="retired", strength=0.5, is_valid=False, created_at=NOW))
        session.add(UserFact(key="colour", value="green", category="preference"))
    strength = stats.histogram(storage, "strength", bins=10)
    assert strength.counts.tolist() == [3, 2, 0, 0, 0, 1, 0, 0, 0, 4]
    freshness = stats.histogram(storage, "freshness", bins=4)
    assert freshness.counts.tolist() == [0, 10, 0, 0]
    growth = stats.memory_growth(storage)
    assert growth.days == [(NOW - timedelta(days=d)).date() for d in (2, 1, 0)]
    assert growth.total.tolist() == [3, 6, 11]
    assert growth.valid.tolist() == [3, 6, 10]
    assert stats.facts_by_category(storage) == [("preference", 1)]
