"""Two-phase deduplication against the real embedder and database; the LLM is scripted.

Pairs and their bge-small cosines (from tests/data/dedupe_pairs.jsonl) decide which path a
test takes: identical text is above the skip threshold, the horror-films paraphrase
(0.93), the half-marathon refinement (0.86) and the Lisbon-to-Berlin move are in the LLM
band, and unrelated facts are below it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from support.scripted_llm import ScriptedLLM, failing

from core.app import Hearth
from core.config import Settings
from core.consolidation.dedupe import (
    CandidateMemory,
    DedupeCounts,
    DedupeUndecided,
    Deduplicator,
    verdict_model,
)
from core.errors import InvalidInputError
from core.llm.protocol import CancelToken, LLMCancelled
from core.storage.orm import Memory
from core.storage.port import IndexedKind, SearchFilters


def open_hearth(path: Path, embedder, **settings) -> Hearth:
    return Hearth.open(path, embedder=embedder, settings=Settings(**settings))


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with open_hearth(migrated_home, embedder) as opened:
        yield opened


def verdict(action: str, target: int = 0, reason: str = "scripted verdict") -> str:
    return json.dumps({"action": action, "target": target, "reason": reason})


def apply(hearth: Hearth, deduper: Deduplicator, decisions) -> DedupeCounts:
    with hearth.storage.write() as session:
        return deduper.apply(session, decisions)


def memory_rows(hearth: Hearth) -> list[Memory]:
    with hearth.storage.read() as session:
        return list(session.scalars(select(Memory).order_by(Memory.id)))


def nearest_valid(hearth: Hearth, text: str) -> list[int]:
    vector = hearth.embedder.embed_documents([text])[0]
    with hearth.storage.read() as session:
        hits = hearth.storage.search.vector_search(session, IndexedKind.MEMORY, vector,
                                                   SearchFilters(), 5)
    return [hit.id for hit in hits if hit.score > 0.999]


# --- phase 1: no LLM call -------------------------------------------------------------------


def test_near_identical_candidate_is_skipped_without_an_llm_call(hearth: Hearth) -> None:
    existing = hearth.memories.add("User lives in Lisbon.")
    llm = ScriptedLLM()
    deduper = Deduplicator(hearth.consolidation(), llm)
    (decision,) = deduper.decide([CandidateMemory("User lives in Lisbon.")])
    assert decision.action == "SKIP"
    assert decision.target_id == existing.id
    assert decision.similarity is not None and decision.similarity > 0.99
    assert llm.requests == []
    assert apply(hearth, deduper, [decision]) == DedupeCounts(skipped=1)
    assert len(memory_rows(hearth)) == 1


def test_nothing_similar_is_added_without_an_llm_call_and_searchable(hearth: Hearth) -> None:
    hearth.memories.add("User's favourite colour is green.")
    llm = ScriptedLLM()
    deduper = Deduplicator(hearth.consolidation(), llm)
    candidate = CandidateMemory("User is allergic to penicillin.", namespace="user/health",
                                priority="high", source="processor")
    (decision,) = deduper.decide([candidate])
    assert (decision.action, decision.target_id) == ("ADD", None)
    assert llm.requests == []
    assert apply(hearth, deduper, [decision]) == DedupeCounts(added=1)
    added = memory_rows(hearth)[-1]
    assert (added.content, added.namespace, added.priority, added.source) == (
        "User is allergic to penicillin.", "user/health", "high", "processor")
    assert added.embedding_model == hearth.embedder.model_id
    assert nearest_valid(hearth, "User is allergic to penicillin.") == [added.id]


# --- phase 2: the LLM decides ---------------------------------------------------------------


def test_update_supersedes_the_old_memory_and_keeps_it(hearth: Hearth) -> None:
    old = hearth.memories.add("User is training for a half marathon.")
    llm = ScriptedLLM([verdict("UPDATE", 1, "adds the race and its date")])
    deduper = Deduplicator(hearth.consolidation(), llm)
    newer = "User is training for a half marathon in Porto on 12 October."
    (decision,) = deduper.decide([CandidateMemory(newer)])
    assert (decision.action, decision.target_id) == ("UPDATE", old.id)
    assert apply(hearth, deduper, [decision]) == DedupeCounts(updated=1)
    before, after = memory_rows(hearth)
    assert before.id == old.id and before.superseded_by == after.id and before.is_valid
    assert after.content == newer and after.superseded_by is None
    assert nearest_valid(hearth, "User is training for a half marathon.") == []
    assert nearest_valid(hearth, newer) == [after.id]


def test_delete_invalidates_the_outdated_memory_with_the_reason(hearth: Hearth) -> None:
    old = hearth.memories.add("User lives in Lisbon.")
    llm = ScriptedLLM([verdict("DELETE", 1, "the user moved to Berlin")])
    deduper = Deduplicator(hearth.consolidation(), llm)
    (decision,) = deduper.decide([CandidateMemory("User moved from Lisbon to Berlin last month.")])
    assert (decision.action, decision.target_id) == ("DELETE", old.id)
    assert apply(hearth, deduper, [decision]) == DedupeCounts(invalidated=1)
    before, after = memory_rows(hearth)
    assert not before.is_valid
    assert before.invalid_reason == f"Contradicted by memory {after.id}: the user moved to Berlin"
    assert after.is_valid and after.content.startswith("User moved")


def test_noop_writes_nothing(hearth: Hearth) -> None:
    old = hearth.memories.add("User dislikes horror films.")
    llm = ScriptedLLM([verdict("NOOP", 1, "already known")])
    deduper = Deduplicator(hearth.consolidation(), llm)
    (decision,) = deduper.decide([CandidateMemory("User does not like horror movies.")])
    assert (decision.action, decision.target_id) == ("NOOP", old.id)
    assert apply(hearth, deduper, [decision]) == DedupeCounts(noop=1)
    (row,) = memory_rows(hearth)
    assert row.is_valid and row.superseded_by is None and row.access_count == 0


def test_the_llm_sees_the_neighbours_as_data_with_a_bounded_target(hearth: Hearth) -> None:
    hearth.memories.add("User is training for a half marathon.", namespace="user/sport")
    hearth.memories.add("User prefers tea over coffee.")  # unrelated: not shown
    llm = ScriptedLLM([verdict("add", 0, 'a "new" fact')])
    (decision,) = Deduplicator(hearth.consolidation(), llm).decide(
        [CandidateMemory("User is training for a half marathon in Porto.",
                         namespace="user/sport", priority="highest")])
    assert decision.action == "ADD" and decision.reason == "a new fact"
    (request,) = llm.requests
    prompt = request.messages[-1].content
    assert "<existing_memories>\n1. (user/sport, medium priority, noted " in prompt
    assert "tea" not in prompt
    assert prompt.endswith("<new_memory>(user/sport, stated by the user) "
                           "User is training for a half marathon in Porto.</new_memory>")
    assert request.schema is not None and request.schema["properties"]["target"]["maximum"] == 1


def test_a_verdict_must_name_a_shown_memory() -> None:
    three = verdict_model(3)
    with pytest.raises(ValueError, match="UPDATE needs target"):
        three.model_validate({"action": "UPDATE", "reason": "refines it"})
    with pytest.raises(ValueError):
        three.model_validate({"action": "NOOP", "target": 4, "reason": "known"})
    assert verdict_model(1).model_validate({"action": "delete", "reason": "moved"}).target == 1


# --- scope and batches ----------------------------------------------------------------------


@pytest.mark.parametrize(("stored_in", "expected"), [
    ("user", "SKIP"),                   # an ancestor
    ("user/health", "SKIP"),            # the namespace itself
    ("user/health/allergies", "SKIP"),  # below it
    ("user/work", "ADD"),               # a sibling area
    ("work", "ADD"),                    # another root
])
def test_namespace_scope(hearth: Hearth, stored_in: str, expected: str) -> None:
    hearth.memories.add("User is allergic to penicillin.", namespace=stored_in)
    llm = ScriptedLLM()
    (decision,) = Deduplicator(hearth.consolidation(), llm).decide(
        [CandidateMemory("User is allergic to penicillin.", namespace="user/health")])
    assert decision.action == expected
    assert llm.requests == []


def test_identical_candidates_in_one_batch_are_written_once(hearth: Hearth) -> None:
    llm = ScriptedLLM()
    deduper = Deduplicator(hearth.consolidation(), llm)
    first, second = deduper.decide([CandidateMemory("User has a dog named Biscuit."),
                                    CandidateMemory("User has a dog named Biscuit.")])
    assert first.action == "ADD"
    assert (second.action, second.target_id, second.target_index) == ("SKIP", None, 0)
    assert llm.requests == []
    assert apply(hearth, deduper, [first, second]) == DedupeCounts(added=1, skipped=1)
    assert len(memory_rows(hearth)) == 1


def test_a_later_candidate_can_invalidate_an_earlier_one_of_the_batch(hearth: Hearth) -> None:
    llm = ScriptedLLM([verdict("DELETE", 1, "moved away")])
    deduper = Deduplicator(hearth.consolidation(), llm)
    decisions = deduper.decide([CandidateMemory("User lives in Lisbon."),
                                CandidateMemory("User moved from Lisbon to Berlin last month.")])
    assert [d.action for d in decisions] == ["ADD", "DELETE"]
    assert decisions[1].target_index == 0
    assert apply(hearth, deduper, decisions) == DedupeCounts(added=1, invalidated=1)
    lisbon, berlin = memory_rows(hearth)
    assert not lisbon.is_valid and str(berlin.id) in (lisbon.invalid_reason or "")


def test_a_superseded_memory_is_not_a_neighbour_for_later_candidates(hearth: Hearth) -> None:
    old = hearth.memories.add("User is training for a half marathon.")
    llm = ScriptedLLM([verdict("UPDATE", 1, "adds the city"),
                       verdict("UPDATE", 1, "adds the date"),
                       verdict("UPDATE", 1, "adds the goal")])
    deduper = Deduplicator(hearth.consolidation(), llm)
    decisions = deduper.decide([
        CandidateMemory("User is training for a half marathon in Porto."),
        CandidateMemory("User is training for a half marathon in Porto on 12 October."),
        CandidateMemory("User is training for a half marathon in Porto on 12 October, "
                        "aiming for under two hours.")])
    assert (decisions[0].target_id, decisions[1].target_index,
            decisions[2].target_index) == (old.id, 0, 1)
    for request in llm.requests[1:]:  # only the newest version is shown, once
        prompt = request.messages[-1].content
        assert "1. (user, medium priority, noted just now)" in prompt and "\n2. " not in prompt
    assert apply(hearth, deduper, decisions) == DedupeCounts(updated=3)
    chain = memory_rows(hearth)
    assert [row.superseded_by for row in chain] == [row.id for row in chain[1:]] + [None]


# --- priority -------------------------------------------------------------------------------


def test_a_user_stated_restatement_takes_over_without_an_llm_call(hearth: Hearth) -> None:
    old = hearth.memories.add("User is allergic to penicillin.", priority="medium")
    llm = ScriptedLLM()
    deduper = Deduplicator(hearth.consolidation(), llm)
    (decision,) = deduper.decide([CandidateMemory("User is allergic to penicillin.",
                                                  priority="highest", source="user")])
    assert (decision.action, decision.target_id) == ("UPDATE", old.id)
    assert llm.requests == []
    apply(hearth, deduper, [decision])
    before, after = memory_rows(hearth)
    assert before.superseded_by == after.id and after.priority == "highest"


def test_a_user_stated_noop_becomes_an_update_but_not_over_another_user_statement(
        hearth: Hearth) -> None:
    inferred = hearth.memories.add("User dislikes horror films.", namespace="user/tv",
                                   priority="low")
    stated = hearth.memories.add("User dislikes horror films.", namespace="user/films",
                                 priority="highest")
    llm = ScriptedLLM([verdict("NOOP", 1, "known"), verdict("NOOP", 1, "known")])
    deduper = Deduplicator(hearth.consolidation(), llm)
    candidate = CandidateMemory("User does not like horror movies.", namespace="user/tv",
                                priority="highest")
    (over_inferred,) = deduper.decide([candidate])
    assert (over_inferred.action, over_inferred.target_id) == ("UPDATE", inferred.id)
    (over_stated,) = deduper.decide([CandidateMemory(candidate.content, namespace="user/films",
                                                     priority="highest")])
    assert (over_stated.action, over_stated.target_id) == ("NOOP", stated.id)


# --- failures -------------------------------------------------------------------------------


@pytest.mark.parametrize("script", [
    ["not json at all", '{"action": "MERGE", "reason": "x"}'],  # garbage twice (one retry)
    [failing("ollama is not running")],
])
def test_an_undecided_candidate_defers_and_nothing_is_written(hearth: Hearth, script) -> None:
    hearth.memories.add("User lives in Lisbon.")
    llm = ScriptedLLM(script)
    deduper = Deduplicator(hearth.consolidation(), llm)
    with pytest.raises(DedupeUndecided) as raised:
        deduper.decide([CandidateMemory("User has a cat named Pepper."),
                        CandidateMemory("User moved from Lisbon to Berlin last month.")])
    assert raised.value.candidate.content.startswith("User moved")
    assert raised.value.hint
    assert len(llm.requests) == len(script)
    assert len(memory_rows(hearth)) == 1


def test_cancelling_raises_cancelled_not_undecided(hearth: Hearth) -> None:
    hearth.memories.add("User lives in Lisbon.")
    token = CancelToken()
    token.cancel()
    with pytest.raises(LLMCancelled):
        Deduplicator(hearth.consolidation(), ScriptedLLM()).decide(
            [CandidateMemory("User moved from Lisbon to Berlin last month.")], cancel=token)


def test_a_target_changed_since_decide_is_left_alone(hearth: Hearth) -> None:
    old = hearth.memories.add("User lives in Lisbon.")
    deduper = Deduplicator(hearth.consolidation(), ScriptedLLM([verdict("UPDATE", 1, "moved")]))
    decisions = deduper.decide([CandidateMemory("User moved from Lisbon to Berlin last month.")])
    hearth.memories.invalidate(old.id, "the user said this was wrong")
    assert apply(hearth, deduper, decisions) == DedupeCounts(added=1)
    before, _after = memory_rows(hearth)
    assert before.superseded_by is None and before.invalid_reason == "the user said this was wrong"


@pytest.mark.parametrize("bad", [
    CandidateMemory("   "), CandidateMemory("x", priority="urgent"),
    CandidateMemory("x", memory_type="opinion"), CandidateMemory("x", namespace="/"),
])
def test_a_candidate_that_cannot_be_stored_is_refused_before_any_work(
        hearth: Hearth, bad: CandidateMemory) -> None:
    llm = ScriptedLLM()
    with pytest.raises(InvalidInputError):
        Deduplicator(hearth.consolidation(),
                     llm).decide([CandidateMemory("User lives in Lisbon."), bad])
    assert llm.requests == []


# --- settings -------------------------------------------------------------------------------


def test_thresholds_come_from_settings(tmp_path: Path, embedder) -> None:
    paraphrase = CandidateMemory("User does not like horror movies.")  # cosine ~0.93
    with open_hearth(tmp_path / "low", embedder, dedupe_skip_similarity=0.90) as low_skip:
        low_skip.memories.add("User dislikes horror films.")
        (decision,) = Deduplicator(low_skip, ScriptedLLM()).decide([paraphrase])
        assert decision.action == "SKIP"
    with open_hearth(tmp_path / "high", embedder, dedupe_candidate_similarity=0.95) as strict:
        strict.memories.add("User dislikes horror films.")
        (decision,) = Deduplicator(strict, ScriptedLLM()).decide([paraphrase])
        assert decision.action == "ADD"
    with open_hearth(tmp_path / "few", embedder, dedupe_neighbours=2) as few:
        for place in ("Lisbon", "Porto", "Faro"):
            few.memories.add(f"User's sister lives in {place}.")
        llm = ScriptedLLM([verdict("ADD")])
        Deduplicator(few, llm).decide([CandidateMemory("User's sister lives in Braga.")])
        shown = llm.requests[0].messages[-1].content
        assert shown.count("User's sister lives in") == 3  # two neighbours + the candidate


def test_counts_add_up() -> None:
    total = DedupeCounts(added=1, skipped=2) + DedupeCounts(updated=1, invalidated=1, noop=3)
    assert total == DedupeCounts(1, 1, 1, 2, 3) and total.written == 3

