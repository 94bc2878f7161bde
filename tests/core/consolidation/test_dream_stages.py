"""The dream cycle's LLM stages (triage, distil, enrich, merge) on real storage with the
real embedder; the LLM is scripted. Each stage: its effect on a seeded database, a rerun
that changes nothing, nothing physically deleted, and a failed or garbled answer that
leaves its unit of work untouched for the next run."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from pydantic import ValidationError
from sqlalchemy import func, select, update
from support.scripted_llm import ScriptedLLM, failing

from core.app import Hearth
from core.config import Settings
from core.consolidation import distil, enrich, merge, triage
from core.llm.protocol import CancelToken, LLMCancelled
from core.storage.orm import AuditEntry, ChatSession, Interaction, Memory, MemoryEdge, utcnow
from core.storage.port import IndexedKind

TEA = ["I prefer green tea in the morning.", "Mornings start with a cup of green tea for me.",
       "Every morning I drink a green tea before work."]
INES = ["My sister Ines lives in Porto.", "Ines moved to Porto last spring for her new job.",
        "My sister Ines now has an apartment in Porto."]
UNRELATED = ["The quarterly report is due on Friday.", "Liam is allergic to peanuts.",
             "Fixed the backup script by deleting the lock file."]


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder, settings=Settings()) as opened:
        yield opened


def rows(hearth: Hearth) -> dict[int, Memory]:
    with hearth.storage.read() as session:
        return {memory.id: memory for memory in session.scalars(select(Memory))}


def snapshot(hearth: Hearth) -> dict[int, tuple]:
    return {i: (m.content, m.tier, m.is_valid, m.invalid_reason, tuple(m.tags),
                json.dumps(m.entities, sort_keys=True), m.importance, m.category)
            for i, m in rows(hearth).items()}


def count(hearth: Hearth, model) -> int:
    with hearth.storage.read() as session:
        return session.execute(select(func.count()).select_from(model)).scalar_one()


# --- triage -------------------------------------------------------------------------------


def add_drafts(hearth: Hearth) -> dict[str, int]:
    add = hearth.memories.add
    return {
        "greeting": add("Hello there!", source="conversation").id,
        "short": add("ok thanks", source="processor").id,
        "stated": add("User is allergic to penicillin.", source="conversation",
                      priority="highest").id,
        "useful": add("The user is training for the Porto half marathon in May.",
                      source="processor").id,
        "passing": add("The user said the weather was nice on the walk today.",
                       source="session_close").id,
        "unsure": add("The user might be changing jobs, or maybe that was a joke.",
                      source="compaction").id,
        "user_own": add("I keep my passport in the top drawer.", source="user").id,
        "imported": add("Imported line from an old chat export.", source="import").id,
    }


def triage_answer(*pairs: tuple[int, str]) -> str:
    return json.dumps({"verdicts": [{"number": n, "verdict": v} for n, v in pairs]})


def test_triage_forgets_promotes_and_flags_and_a_rerun_changes_nothing(hearth) -> None:
    ids = add_drafts(hearth)
    llm = ScriptedLLM([triage_answer((1, "promote"), (2, "forget"), (3, "review"))])
    counts = triage.run(hearth.consolidation(), llm)
    assert counts == {"drafts": 6, "promoted": 2, "forgotten": 3, "review": 1, "undecided": 0}
    (request,) = llm.requests  # the heuristics decided three without the model
    shown = request.messages[-1].content
    assert "half marathon" in shown and "weather" in shown and "Hello" not in shown
    memories = rows(hearth)
    assert len(memories) == 8  # nothing deleted
    for name in ("greeting", "short", "passing"):
        assert not memories[ids[name]].is_valid
        assert memories[ids[name]].invalid_reason == triage.FORGOTTEN_REASON
    promoted = hearth.settings.triage_promoted_importance
    assert memories[ids["stated"]].importance == promoted
    assert memories[ids["useful"]].importance == promoted
    assert memories[ids["unsure"]].tags == ["triaged", "review"]
    assert memories[ids["unsure"]].is_valid
    for name in ("user_own", "imported"):  # not drafts: untouched
        assert memories[ids[name]].tags == [] and memories[ids[name]].importance == 0.5
    before = snapshot(hearth)
    rerun = ScriptedLLM([])
    assert triage.run(hearth.consolidation(), rerun)["drafts"] == 0
    assert rerun.requests == [] and snapshot(hearth) == before


@pytest.mark.parametrize("answer", [failing("model down"), "not json at all",
                                    '{"verdicts": [{"number": 1, "verdict": "banish"}]}'])
def test_triage_failure_or_garbage_leaves_the_batch_untriaged(hearth, answer) -> None:
    ids = add_drafts(hearth)
    before = snapshot(hearth)
    counts = triage.run(hearth.consolidation(), ScriptedLLM([answer, answer]))
    assert counts["undecided"] == 3
    after = snapshot(hearth)
    for name in ("useful", "passing", "unsure"):
        assert after[ids[name]] == before[ids[name]]
    assert after[ids["greeting"]][2] is False  # the heuristic part still happened
    counts = triage.run(hearth.consolidation(), ScriptedLLM([triage_answer((1, "promote"), (2,
                                                                                            "promote"),
                                                                           (3, "promote"))]))
    assert counts["promoted"] == 3 and counts["undecided"] == 0


def test_triage_leaves_drafts_the_answer_does_not_mention(hearth) -> None:
    ids = add_drafts(hearth)
    counts = triage.run(hearth.consolidation(), ScriptedLLM([triage_answer((2, "forget"), (5,
                                                                                           "forget"))]))
    assert counts["forgotten"] == 3 and counts["undecided"] == 2
    assert rows(hearth)[ids["useful"]].tags == []


def test_triage_cancelled_raises_and_writes_nothing_more(hearth) -> None:
    add_drafts(hearth)
    token = CancelToken()
    token.cancel()
    llm = ScriptedLLM([])
    with pytest.raises(LLMCancelled):
        triage.run(hearth.consolidation(), llm, cancel=token)
    assert llm.requests == []


# --- distil -------------------------------------------------------------------------------


def add_session(hearth: Hearth, session_id: str, exchanges: list[tuple[str, str]], *,
                closed: bool = True, source: str = "chat") -> None:
    with hearth.storage.write() as session:
        session.add(ChatSession(id=session_id, source=source,
                                closed_at=utcnow() if closed else None))
        session.flush()
        for user, reply in exchanges:
            session.add(Interaction(session_id=session_id, user_message=user,
                                    agent_response=reply))


PLANS = [("I'm moving to Berlin in June for a new job.", "Congratulations! Berlin in June."),
         ("The job is at a robotics startup.", "That sounds exciting.")]


def distilled(content: str, category: str = "work") -> str:
    return json.dumps({"content": content, "category": category})


def test_distil_writes_one_memory_per_closed_session_and_a_rerun_adds_nothing(hearth) -> None:
    add_session(hearth, "s-plans", PLANS)
    add_session(hearth, "s-short", PLANS[:1])
    add_session(hearth, "s-open", PLANS, closed=False)
    add_session(hearth, "s-import", PLANS, source="import")
    llm = ScriptedLLM([distilled("The user is moving to Berlin in June to join a robotics "
                                 "startup.")])
    counts = distil.run(hearth.consolidation(), llm)
    assert counts == {"sessions": 1, "distilled": 1, "duplicates": 0, "empty": 0,
                      "too_short": 1, "ungrounded": 0, "rejected": 0, "failed": 0,
                      "rechecked": 0}
    assert "robotics startup" in llm.requests[0].messages[-1].content
    (memory,) = rows(hearth).values()
    assert (memory.source, memory.session_id, memory.category, memory.tier) == (
        "distil", "s-plans", "work", "recall")
    rerun = ScriptedLLM([])
    assert distil.run(hearth.consolidation(), rerun)["sessions"] == 0 and rerun.requests == []
    assert count(hearth, Memory) == 1


def test_distil_of_a_known_fact_or_of_nothing_is_recorded_without_a_memory(hearth) -> None:
    known = "The user is moving to Berlin in June to join a robotics startup."
    hearth.memories.add(known, source="user")
    add_session(hearth, "s-known", PLANS)
    add_session(hearth, "s-chatter", [("hi", "hello"), ("how are you", "fine")])
    llm = ScriptedLLM([distilled(known), distilled("", "general")])
    counts = distil.run(hearth.consolidation(), llm)
    assert counts["duplicates"] == 1 and counts["empty"] == 1 and counts["distilled"] == 0
    assert len(llm.requests) == 2  # identical text is skipped by dedupe without a call
    assert count(hearth, Memory) == 1 and count(hearth, AuditEntry) == 2
    assert distil.run(hearth.consolidation(), ScriptedLLM([]))["sessions"] == 0


def test_distil_never_makes_the_assistants_words_a_memory_about_the_user(hearth) -> None:
    add_session(hearth, "s-run", [
        ("I ran 5K this morning.", "Great! Try interval training with hill repeats twice a week."),
        ("Thanks.", "You're welcome.")])
    llm = ScriptedLLM([distilled("The user does interval training with hill repeats.",
                                 "health")])
    counts = distil.run(hearth.consolidation(), llm)
    assert counts["ungrounded"] == 1 and counts["empty"] == 1 and counts["distilled"] == 0
    assert count(hearth, Memory) == 0
    assert distil.run(hearth.consolidation(), ScriptedLLM([]))["sessions"] == 0  # not asked again


def test_earlier_distilled_memories_of_the_assistants_words_are_invalidated_not_deleted(
        hearth) -> None:
    add_session(hearth, "s-run", [
        ("I ran 5K this morning.", "Great! Try interval training with hill repeats twice a week."),
        ("Thanks.", "You're welcome.")])
    add_session(hearth, "s-plans", PLANS)
    wrong = hearth.memories.add("The user does interval training with hill repeats.",
                                source="distil", session_id="s-run").id
    right = hearth.memories.add("The user is moving to Berlin in June.",
                                source="distil", session_id="s-plans").id

    counts = distil.run(hearth.consolidation(), ScriptedLLM([distilled(""), distilled("")]))

    assert counts["rechecked"] == 1
    kept = hearth.memories.get(wrong)
    assert kept.content.startswith("The user does interval") and not kept.is_valid
    assert "what the assistant said" in kept.invalid_reason
    assert hearth.memories.get(right).is_valid
    assert distil.run(hearth.consolidation(), ScriptedLLM([]))["rechecked"] == 0  # once per folder


@pytest.mark.parametrize("answer", [failing("model down"), "{broken", '{"content": 42}'])
def test_distil_failure_leaves_the_session_for_the_next_run(hearth, answer) -> None:
    add_session(hearth, "s-plans", PLANS)
    counts = distil.run(hearth.consolidation(), ScriptedLLM([answer, answer]))
    assert counts["failed"] == 1
    assert count(hearth, Memory) == 0 and count(hearth, AuditEntry) == 0
    counts = distil.run(hearth.consolidation(),
                        ScriptedLLM([distilled("The user moves to Berlin in June.")]))
    assert counts["distilled"] == 1


# --- enrich -------------------------------------------------------------------------------


def test_enrich_fills_entities_marks_empty_ones_and_a_rerun_asks_nothing(hearth) -> None:
    ines = hearth.memories.add(INES[0]).id
    tea = hearth.memories.add(TEA[0]).id
    done = hearth.memories.add("Anna lives in Oslo.", entities={"people": ["Anna"]}).id
    invalid = hearth.memories.add("Old note about Rome.").id
    hearth.memories.invalidate(invalid, "wrong")
    llm = ScriptedLLM([json.dumps({"memories": [
        {"number": 1, "people": ["Ines", "ines", 'sis"ter'], "places": ["Porto"],
         "topics": ["family"]},
        {"number": 2}]})])
    counts = enrich.run(hearth.consolidation(), llm)
    assert counts == {"memories": 2, "enriched": 2, "with_entities": 1, "undecided": 0}
    memories = rows(hearth)
    assert memories[ines].entities == {"people": ["Ines", "sis ter"], "places": ["Porto"],
                                       "topics": ["family"]}
    assert memories[tea].entities == {"people": [], "places": [], "topics": []}
    assert memories[done].entities == {"people": ["Anna"]}
    assert memories[invalid].entities == {}
    rerun = ScriptedLLM([])
    assert enrich.run(hearth.consolidation(), rerun)["memories"] == 0 and rerun.requests == []


@pytest.mark.parametrize("answer", [failing(), "[[[", '{"memories": [{"number": 1, '
                                                      '"people": "not a list of names"}]}'])
def test_enrich_failure_leaves_the_batch_unenriched(hearth, answer) -> None:
    hearth.memories.add(INES[0])
    before = snapshot(hearth)
    assert enrich.run(hearth.consolidation(), ScriptedLLM([answer, answer]))["undecided"] == 1
    assert snapshot(hearth) == before


def test_enrich_works_in_batches_and_keeps_skipped_memories_for_later(hearth) -> None:
    for number in range(enrich.BATCH + 2):
        hearth.memories.add(f"Memory number {number} about topic {number}.")
    llm = ScriptedLLM([json.dumps({"memories": [{"number": 1, "topics": ["a"]}]}),
                       json.dumps({"memories": [{"number": 2, "topics": ["b"]}]})])
    counts = enrich.run(hearth.consolidation(), llm)
    assert counts["enriched"] == 2 and counts["undecided"] == enrich.BATCH
    assert len(llm.requests) == 2
    assert enrich.run(hearth.consolidation(), ScriptedLLM([json.dumps({"memories": []})] * 2))[
        "memories"] == enrich.BATCH


# --- merge --------------------------------------------------------------------------------


def test_the_merge_floor_separates_paraphrases_from_near_misses(embedder) -> None:
    texts = TEA + INES + UNRELATED
    ids = np.arange(1, len(texts) + 1, dtype=np.int64)
    rule = merge.ClusterRule.from_settings(Settings())
    clusters = merge.find_clusters(ids, embedder.embed_documents(texts), rule)
    # the tea paraphrases score 0.88-0.92; the Ines pair at 0.79 falls just below the floor
    assert clusters == [[1, 2, 3]]


def add_stale(hearth: Hearth, texts: list[str], *, freshness: float = 0.1, **fields) -> list[int]:
    ids = [hearth.memories.add(text, **fields).id for text in texts]
    with hearth.storage.write() as session:
        session.execute(update(Memory).where(Memory.id.in_(ids)).values(freshness=freshness))
    return ids


def test_merge_summarises_a_stale_cluster_and_demotes_its_originals(hearth) -> None:
    tea = add_stale(hearth, TEA, namespace="user/food", category="preference")
    add_stale(hearth, UNRELATED)
    fresh = add_stale(hearth, INES[:1] + [INES[2], "Ines, my sister, lives in Porto now."],
                      freshness=0.9)
    llm = ScriptedLLM([json.dumps({"summary": "The user drinks green tea every morning, "
                                              "before work."})])
    counts = merge.run(hearth.consolidation(), llm)
    assert counts == {"stale": 6, "clusters": 1, "merged": 1, "demoted": 3, "failed": 0,
                      "rejected": 0}
    memories = rows(hearth)
    assert len(memories) == 10  # nine originals kept, one summary added
    (summary,) = [m for m in memories.values() if m.source == "merge"]
    assert (summary.tier, summary.namespace, summary.category) == ("archival", "user/food",
                                                                   "preference")
    assert all(memories[i].tier == "source" and memories[i].is_valid for i in tea)
    assert all(memories[i].tier == "recall" for i in fresh)
    with hearth.storage.read() as session:
        edges = session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id, MemoryEdge.kind,
                                       MemoryEdge.weight)).all()
        assert sorted(edges) == [(summary.id, i, "summary_of", 1.0) for i in tea]
    with hearth.storage.read() as session:  # the summary is embedded with the rows
        ids, _ = hearth.storage.search.vectors(session, IndexedKind.MEMORY)
    assert summary.id in ids.tolist()
    before = snapshot(hearth)
    rerun = ScriptedLLM([])
    assert merge.run(hearth.consolidation(), rerun)["clusters"] == 0 and rerun.requests == []
    assert snapshot(hearth) == before


@pytest.mark.parametrize("answer", [failing("model down"), "no summary here",
                                    '{"summary": ""}'])
def test_merge_failure_leaves_the_cluster_as_it_was(hearth, answer) -> None:
    add_stale(hearth, TEA)
    before = snapshot(hearth)
    assert merge.run(hearth.consolidation(), ScriptedLLM([answer, answer]))["failed"] == 1
    assert snapshot(hearth) == before and count(hearth, MemoryEdge) == 0


def test_merge_leaves_user_stated_and_fresh_memories_alone(hearth) -> None:
    add_stale(hearth, TEA, priority="highest")
    add_stale(hearth, INES, freshness=0.5)
    llm = ScriptedLLM([])
    assert merge.run(hearth.consolidation(), llm)["stale"] == 0 and llm.requests == []


def test_the_merge_and_triage_thresholds_are_read_from_the_settings(hearth) -> None:
    """Same rows, stricter settings: the tea trio is no cluster when four are needed or
    when it is not stale enough, and a four-word draft is forgotten at five words."""
    add_stale(hearth, TEA, freshness=0.2, source="import")  # not a draft for triage
    for changes in ({"merge_min_cluster": 4}, {"merge_stale_freshness": 0.15},
                    {"merge_similarity_floor": 0.95}):
        hearth.settings = Settings(**changes)
        llm = ScriptedLLM([])
        assert merge.run(hearth.consolidation(), llm)["clusters"] == 0 and llm.requests == []
    hearth.settings = Settings(merge_max_cluster=2, merge_min_cluster=2)
    counts = merge.run(hearth.consolidation(),
                       ScriptedLLM([json.dumps({"summary": "Green tea daily."})]))
    assert counts["demoted"] == 2
    hearth.settings = Settings(triage_min_words=5, triage_promoted_importance=0.9)
    short = hearth.memories.add("User likes oat milk.", source="processor").id
    stated = hearth.memories.add("User is allergic to penicillin.", source="conversation",
                                 priority="highest").id
    llm = ScriptedLLM([])
    assert triage.run(hearth.consolidation(), llm) == {"drafts": 2, "promoted": 1, "forgotten": 1,
                                                       "review": 0, "undecided": 0}
    memories = rows(hearth)
    assert not memories[short].is_valid and memories[stated].importance == 0.9
    assert llm.requests == []


def test_a_cluster_bigger_than_a_summary_may_replace_is_refused() -> None:
    with pytest.raises(ValidationError, match="merge_min_cluster"):
        Settings(merge_min_cluster=5, merge_max_cluster=4)


def test_stage_progress_reports_every_unit(hearth) -> None:
    add_stale(hearth, TEA)
    seen: list[tuple[int, int]] = []
    merge.run(hearth.consolidation(),
              ScriptedLLM([json.dumps({"summary": "Green tea every morning."})]),
              progress=lambda done, total: seen.append((done, total)))
    assert seen == [(1, 1)]
