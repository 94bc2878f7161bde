"""Background learning: facts from each exchange, summaries when a session closes.

The model is scripted (pipeline logic); storage and embeddings are real.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from core.app import Hearth
from core.config import Settings
from core.operations import settings as settings_ops
from core.recall import RecallQuery
from core.storage.changes import Changes, Domain
from core.storage.orm import ChatSession, ContextEvent, Interaction
from core.storage.port import IndexedKind
from support.manual_clock import ManualClock
from support.scripted_llm import ScriptedLLM, failing

from core.learning.pipeline import LearningPipeline
from core.learning.quiet_timers import MakeTimers, QuietTimerJobs

NOTHING = json.dumps({"facts": []})


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def exchange(hearth: Hearth, session_id: str, user: str, reply: str = "Noted.") -> int:
    with hearth.storage.write() as session:
        if session.get(ChatSession, session_id) is None:
            session.add(ChatSession(id=session_id, title="test"))
        row = Interaction(session_id=session_id, user_message=user, agent_response=reply)
        session.add(row)
        session.flush()
        return row.id


def learn(hearth: Hearth, llm: ScriptedLLM, *messages: str, session_id: str = "s1",
          quiet_seconds: float = 3600,
          timers: MakeTimers = QuietTimerJobs.in_memory) -> LearningPipeline:
    pipeline = LearningPipeline(hearth.learning(), llm, quiet_seconds=quiet_seconds, timers=timers)
    for message in messages:
        pipeline.exchange_completed(exchange(hearth, session_id, message), session_id)
    assert pipeline.drain(timeout=60)
    return pipeline


def events(hearth: Hearth) -> list[ContextEvent]:
    with hearth.storage.read() as session:
        return list(session.scalars(select(ContextEvent).order_by(ContextEvent.id)))


def test_rules_and_grounded_model_facts_are_stored_with_events(hearth) -> None:
    llm = ScriptedLLM([json.dumps({"facts": [
        {"key": "home city", "value": "Lisbon", "category": "location"},
        {"key": "employer", "value": "Acme Robotics", "category": "work"}]})])
    pipeline = learn(hearth, llm, "My sister's name is Ines and we both live in Lisbon now.")

    facts = {f.key: (f.value, f.source) for f in hearth.facts.list()}
    assert facts["sister_name"] == ("Ines", "user")
    assert facts["home_city"][0] == "Lisbon"
    assert "employer" not in facts  # "Acme Robotics" is nowhere in what the user said
    assert pipeline.stats.facts_created == len(facts)
    kinds = [(e.event_type, e.source_metadata["fact_key"]) for e in events(hearth)]
    assert ("fact", "sister_name") in kinds and ("fact", "home_city") in kinds
    assert all(not e.processed for e in events(hearth))
    pipeline.shutdown()


def test_unchanged_values_are_skipped_and_changes_keep_history(hearth) -> None:
    llm = ScriptedLLM([NOTHING, NOTHING, NOTHING])
    pipeline = learn(hearth, llm, "I live in Lisbon.", "I live in Lisbon.", "I moved to Porto.")
    assert hearth.facts.get("home_city").value == "Porto"
    assert [h.value for h in hearth.facts.history("home_city")] == ["Lisbon"]
    assert (pipeline.stats.facts_created, pipeline.stats.facts_unchanged,
            pipeline.stats.facts_updated) == (1, 1, 1)
    pipeline.shutdown()


def test_explicit_facts_survive_a_model_that_fails_or_talks_nonsense(hearth) -> None:
    llm = ScriptedLLM([failing("model crashed"), "lol no json here", "{\"facts\": 42}",
                       "{\"facts\": \"also garbage\"}"])
    pipeline = learn(hearth, llm, "Please call me Sam.", "I'm allergic to peanuts.")
    facts = {f.key: f.value for f in hearth.facts.list()}
    assert facts["preferred_name"] == "Sam"
    assert "peanuts" in facts["allergies"]
    assert pipeline.stats.failures == 0
    pipeline.shutdown()


def test_excluded_topics_are_dropped_before_any_write(hearth) -> None:
    """A message that mentions an excluded topic teaches nothing (it is not even sent for
    extraction); an observation that touches one is dropped on its own."""
    hearth.settings.exclusions = ["divorce", "salary"]
    llm = ScriptedLLM([json.dumps({"facts": [
        {"key": "salary", "value": "finance", "category": "work"}]})])
    pipeline = learn(hearth, llm, "My divorce lawyer is Ana Costa.",
                     "My salary is 90k these days, and I live in Lisbon.",
                     "I work in finance and I live in Porto.")
    assert {f.key: f.value for f in hearth.facts.list()} == {"home_city": "Porto"}
    assert pipeline.stats.dropped_by_exclusion == 3
    assert len(llm.requests) == 1
    assert all(word not in e.content for e in events(hearth)
               for word in ("90k", "Ana", "Lisbon", "finance"))
    pipeline.shutdown()


def test_paused_learning_stores_nothing_but_still_embeds_the_exchange(hearth) -> None:
    hearth.settings.learning_paused = True
    pipeline = learn(hearth, ScriptedLLM([]), "My partner's name is Ana.")
    assert hearth.facts.list() == []
    assert pipeline.state == "paused"
    with hearth.storage.read() as session:
        assert session.scalars(select(Interaction.embedding_model)).one() is not None
    pipeline.shutdown()


def digest(*summaries: tuple[str, str], candidates: list[dict] | None = None) -> str:
    return json.dumps({"summaries": [{"topic": t, "summary": s} for t, s in summaries],
                       "candidates": candidates or []})


def test_closing_a_session_writes_recallable_summaries_and_candidates(hearth) -> None:
    llm = ScriptedLLM([NOTHING, NOTHING, digest(
        ("Kitchen renovation", "The user is redoing the kitchen with oak worktops; the "
                               "fitter comes on Friday."),
        candidates=[{"content": "Prefers oak over laminate for worktops",
                     "memory_type": "semantic", "priority": "medium",
                     "namespace": "user/home"}])])
    pipeline = learn(hearth, llm, "We're redoing the kitchen.", "Oak worktops, fitter Friday.")
    pipeline.session_ended("s1")
    assert pipeline.drain(timeout=60)

    results = hearth.recall.recall(RecallQuery("when is the kitchen fitter coming",
                                               kinds=(IndexedKind.NOTE,)))
    assert results and results[0].provenance["title"] == "Summary: Kitchen renovation"
    candidate = [e for e in events(hearth) if e.event_type == "memory_candidate"]
    assert json.loads(candidate[0].content)["namespace"] == "user/home"
    with hearth.storage.read() as session:
        assert session.get(ChatSession, "s1").closed_at is not None
    assert pipeline.stats.summaries_written == 1
    pipeline.shutdown()


def test_a_one_exchange_session_gets_no_summary(hearth) -> None:
    llm = ScriptedLLM([NOTHING])  # a digest request would run out of script and fail
    pipeline = learn(hearth, llm, "Hi!")
    pipeline.session_ended("s1")
    assert pipeline.drain(timeout=60)
    assert pipeline.stats.failures == 0 and pipeline.stats.sessions_closed == 1
    assert hearth.notes.list(summaries_only=True) == []
    pipeline.shutdown()


def test_the_quiet_timer_closes_the_session_and_restarts_with_each_message(hearth) -> None:
    llm = ScriptedLLM([NOTHING, NOTHING, digest(("Plans", "Weekend plans: maybe hiking."))])
    clock = ManualClock()
    pipeline = learn(hearth, llm, "Weekend plans?", quiet_seconds=30 * 60, timers=clock.timers)
    clock.advance(timedelta(minutes=20))
    pipeline.exchange_completed(exchange(hearth, "s1", "Maybe hiking."), "s1")
    clock.advance(timedelta(minutes=20))  # 40 min after the first message, 20 after the second
    assert pipeline.drain(timeout=60)
    with hearth.storage.read() as session:
        assert session.get(ChatSession, "s1").closed_at is None
    assert pipeline.stats.sessions_closed == 0
    clock.advance(timedelta(minutes=10))  # 30 min of quiet since the second
    assert pipeline.drain(timeout=60)
    assert pipeline.stats.sessions_closed == 1
    assert [n.title for n in hearth.notes.list()] == ["Summary: Plans"]
    pipeline.shutdown()


def test_a_new_quiet_time_in_settings_applies_to_the_next_message(hearth) -> None:
    """Settings says "Conversation ends after" applies at once: the open chat's next
    message arms its timer with the new time, no restart needed."""
    llm = ScriptedLLM([NOTHING, NOTHING, digest(("Plans", "Weekend plans."))])
    clock = ManualClock()
    pipeline = LearningPipeline(hearth.learning(),
                                llm, timers=clock.timers)  # the setting, as the app
    pipeline.exchange_completed(exchange(hearth, "s1", "Weekend plans?"), "s1")
    settings_ops.save(hearth, session_quiet_minutes=5)
    pipeline.exchange_completed(exchange(hearth, "s1", "Maybe hiking."), "s1")
    clock.advance(timedelta(minutes=5))
    assert pipeline.drain(timeout=60)
    assert pipeline.stats.sessions_closed == 1
    pipeline.shutdown()


def test_a_failing_job_is_counted_and_later_jobs_still_run(hearth, monkeypatch) -> None:
    llm = ScriptedLLM([NOTHING])
    pipeline = LearningPipeline(hearth.learning(), llm)
    pipeline.exchange_completed(987654, "missing-session")  # no such interaction: a no-op
    calls = {"n": 0}

    def explode() -> None:
        calls["n"] += 1
        raise RuntimeError("disk on fire")

    pipeline._submit(explode)
    pipeline.exchange_completed(exchange(hearth, "s1", "I live in Lisbon."), "s1")
    assert pipeline.drain(timeout=60)
    assert calls["n"] == 1 and pipeline.stats.failures == 1
    assert "disk on fire" in (pipeline.stats.last_error or "")
    assert hearth.facts.get("home_city").value == "Lisbon"
    pipeline.shutdown()


def test_shutdown_closes_open_sessions(hearth) -> None:
    llm = ScriptedLLM([NOTHING, NOTHING, digest(("Travel", "Trip to Japan in May."))])
    pipeline = learn(hearth, llm, "Trip to Japan?", "In May.")
    assert pipeline.shutdown(timeout=60)
    assert [n.title for n in hearth.notes.list()] == ["Summary: Travel"]


def test_settings_default_quiet_time_is_thirty_minutes() -> None:
    assert Settings().session_quiet_minutes == 30


def test_a_correction_updates_the_last_fact_and_keeps_its_category(hearth) -> None:
    pipeline = learn(hearth, ScriptedLLM([NOTHING, NOTHING]),
                     "My favourite colour is green.", "No, it's blue.")
    fact = hearth.facts.get("favourite_colour")
    assert (fact.value, fact.category) == ("blue", "preference")
    assert [h.value for h in hearth.facts.history("favourite_colour")] == ["green"]
    correction = [e for e in events(hearth) if e.source_metadata.get("correction")]
    assert len(correction) == 1
    pipeline.shutdown()


# --- the assistant's words are never stored about the user --------------------------------


def facts_answer(*facts: tuple[str, str, str]) -> str:
    return json.dumps({"facts": [{"key": k, "value": v, "category": c} for k, v, c in facts]})


def test_a_fact_taken_from_the_assistants_reply_stores_nothing(hearth) -> None:
    """The model sees the reply (as context) and returns "facts" from it: none is stored,
    no event is queued, and the reply itself stays conversation history."""
    llm = ScriptedLLM([facts_answer(("dog_name", "Biscuit", "personal"),
                                    ("home_city", "Lisbon", "location"))])
    pipeline = LearningPipeline(hearth.learning(), llm, quiet_seconds=3600)
    reply = "How about Biscuit? And since you live in Lisbon, Belém is lovely for walks."
    interaction_id = exchange(hearth, "s1", "Any ideas for a name for our new puppy?", reply)
    pipeline.exchange_completed(interaction_id, "s1")
    assert pipeline.drain(timeout=60)

    assert hearth.facts.list() == []
    assert events(hearth) == []
    assert pipeline.stats.dropped_ungrounded == 2
    assert "How about Biscuit?" in llm.requests[0].messages[-1].content  # seen as context
    with hearth.storage.read() as session:
        assert session.get(Interaction, interaction_id).agent_response == reply
    pipeline.shutdown()


def test_a_fact_from_the_users_sentence_is_stored_even_when_the_reply_repeats_it(hearth) -> None:
    llm = ScriptedLLM([facts_answer(("puppy_name", "Biscuit", "personal"))])
    pipeline = LearningPipeline(hearth.learning(), llm, quiet_seconds=3600)
    pipeline.exchange_completed(exchange(
        hearth, "s1", "We finally picked a name for the puppy: Biscuit.",
        "Biscuit is a lovely name for a puppy!"), "s1")
    assert pipeline.drain(timeout=60)

    fact = hearth.facts.get("puppy_name")
    assert (fact.value, fact.source) == ("Biscuit", "agent")
    assert [e.source_metadata["fact_key"] for e in events(hearth)] == ["puppy_name"]
    assert pipeline.stats.dropped_ungrounded == 0
    pipeline.shutdown()


def test_a_fact_about_someone_only_the_assistant_named_is_not_stored(hearth) -> None:
    """"Tom" is the user's word, "brother" only the assistant's guess."""
    llm = ScriptedLLM([facts_answer(("brother_name", "Tom", "personal"))])
    pipeline = LearningPipeline(hearth.learning(), llm, quiet_seconds=3600)
    pipeline.exchange_completed(exchange(hearth, "s1", "Tom is coming to stay next week.",
                                         "Is Tom your brother? How lovely."), "s1")
    assert pipeline.drain(timeout=60)
    assert hearth.facts.list() == []
    assert pipeline.stats.dropped_ungrounded == 1
    pipeline.shutdown()


def test_memory_candidates_from_the_assistants_lines_are_dropped_at_session_close(
        hearth) -> None:
    """The digest's candidate taken from the assistant's suggestion queues nothing; the one
    from the user's own line is queued; the summary (history, both sides) is written."""
    llm = ScriptedLLM([NOTHING, NOTHING, digest(
        ("Dinner party", "The user is cooking for eight guests on Saturday; Hearth suggested "
                         "a Thai green curry."),
        candidates=[
            {"content": "The user loves Thai green curry", "memory_type": "semantic",
             "priority": "medium", "namespace": "user"},
            {"content": "The user is cooking for eight guests on Saturday",
             "memory_type": "episodic", "priority": "medium", "namespace": "user"}])])
    pipeline = LearningPipeline(hearth.learning(), llm, quiet_seconds=3600)
    for user, reply in (("I'm cooking for eight guests on Saturday.", "Eight guests, lovely!"),
                        ("Any ideas for dinner?", "A Thai green curry would feed everyone.")):
        pipeline.exchange_completed(exchange(hearth, "s1", user, reply), "s1")
    pipeline.session_ended("s1")
    assert pipeline.drain(timeout=60)

    queued = [json.loads(e.content)["content"] for e in events(hearth)
              if e.event_type == "memory_candidate"]
    assert queued == ["The user is cooking for eight guests on Saturday"]
    assert pipeline.stats.dropped_ungrounded == 1
    assert pipeline.stats.summaries_written == 1
    transcript = llm.requests[-1].messages[-1].content
    assert "Assistant: A Thai green curry would feed everyone." in transcript  # seen as context
    pipeline.shutdown()


def test_what_the_user_stated_is_stored_before_the_model_is_asked(hearth) -> None:
    """On the embedded model an extraction takes half a minute or more: "My sister Priya
    lives in Lisbon" is in the facts (and the change feed told so) while the model still
    thinks, and the model's own facts follow for other keys only."""
    asked, answer = threading.Event(), threading.Event()

    def slow_model(kind: str, _messages: object, _extra: object) -> str:
        asked.set()
        assert answer.wait(30)
        return json.dumps({"facts": [
            {"key": "sister_name", "value": "Lisbon", "category": "personal"},
            {"key": "sister_city", "value": "Lisbon", "category": "location"}]})

    told: list[Changes] = []  # of the change feed
    pipeline = LearningPipeline(hearth.learning(), ScriptedLLM(slow_model), quiet_seconds=3600)
    hearth.storage.changes.subscribe(told.append)
    interaction_id = exchange(hearth, "s1", "My sister Priya lives in Lisbon")
    pipeline.exchange_completed(interaction_id, "s1")
    assert asked.wait(30)
    assert {f.key: f.value for f in hearth.facts.list()} == {
        "sister_name": "Priya", "sister_home_city": "Lisbon"}
    assert any(changes.touches(Domain.FACTS) for changes in told)
    told.clear()
    answer.set()
    assert pipeline.drain(timeout=30)
    assert {f.key: f.value for f in hearth.facts.list()} == {
        "sister_name": "Priya", "sister_home_city": "Lisbon", "sister_city": "Lisbon"}
    assert any(changes.touches(Domain.FACTS) for changes in told)
    pipeline.shutdown()


