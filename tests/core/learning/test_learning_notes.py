"""What learning changed, per exchange, read back from the database, and Undo.

Storage, embeddings and the rules are real; the model is scripted to find nothing more."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.errors import InvalidInputError, NotFoundError
from core.learning.notes import learned_in_session, undo
from core.learning.pipeline import LearningPipeline
from core.storage.orm import AuditEntry, ChatSession, ContextEvent, Interaction

NOTHING = json.dumps({"facts": []})


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def say(hearth: Hearth, *messages: str, session_id: str = "s1") -> list[int]:
    """Each message as an exchange of ``session_id``, learned from; their ids."""
    pipeline = LearningPipeline(hearth.learning(),
                                ScriptedLLM(lambda *_: NOTHING), quiet_seconds=3600)
    ids = []
    for message in messages:
        with hearth.storage.write() as session:
            if session.get(ChatSession, session_id) is None:
                session.add(ChatSession(id=session_id, title="t"))
            row = Interaction(session_id=session_id, user_message=message,
                              agent_response="Noted.")
            session.add(row)
            session.flush()
            ids.append(row.id)
        pipeline.exchange_completed(ids[-1], session_id)
    assert pipeline.drain(timeout=60)
    pipeline.shutdown(close_sessions=False)
    return ids


def facts(hearth: Hearth) -> dict[str, str]:
    return {fact.key: fact.value for fact in hearth.facts.list()}


def test_each_exchange_lists_what_it_added_and_changed(hearth) -> None:
    first, second, third = say(hearth, "My sister Priya lives in Lisbon.",
                               "How are you today?", "My sister Priya moved to Porto.")
    learned = learned_in_session(hearth.storage, "s1")
    assert set(learned) == {first, third}
    assert [(i.key, i.action, i.before, i.after, i.state) for i in learned[first]] == [
        ("sister_name", "added", None, "Priya", "kept"),
        ("sister_home_city", "added", None, "Lisbon", "changed")]
    assert [(i.key, i.action, i.before, i.after, i.current) for i in learned[third]] == [
        ("sister_home_city", "updated", "Lisbon", "Porto", "Porto")]
    assert learned_in_session(hearth.storage, "another chat") == {}
    assert second not in learned


def test_undo_of_an_added_fact_removes_it_and_its_events(hearth) -> None:
    (first,) = say(hearth, "My sister Priya lives in Lisbon.")
    home = next(i for i in learned_in_session(hearth.storage, "s1")[first]
                if i.key == "sister_home_city")
    undone = undo(home.event_id, storage=hearth.storage, facts=hearth.facts)
    assert undone.state == "undone" and undone.current is None
    assert facts(hearth) == {"sister_name": "Priya"}
    with hearth.storage.read() as session:
        keys = [e.source_metadata["fact_key"] for e in session.scalars(select(ContextEvent))]
        audit = session.scalars(select(AuditEntry.result_summary).where(
            AuditEntry.action == "fact.undo_learned")).all()
        message = session.scalar(select(Interaction.user_message))
    assert keys == ["sister_name"]
    assert audit == ["removed"]
    assert message == "My sister Priya lives in Lisbon."  # what the user wrote stays
    assert [i.key for i in learned_in_session(hearth.storage, "s1")[first]] == ["sister_name"]
    with pytest.raises(NotFoundError):
        undo(home.event_id, storage=hearth.storage, facts=hearth.facts)


def test_undo_of_an_update_restores_the_previous_value_and_keeps_history(hearth) -> None:
    hearth.facts.remember("home_city", "Lisbon", category="location")
    (moved,) = say(hearth, "I moved to Porto.")
    (change,) = learned_in_session(hearth.storage, "s1")[moved]
    assert (change.action, change.before, change.after) == ("updated", "Lisbon", "Porto")

    undo(change.event_id, storage=hearth.storage, facts=hearth.facts)
    assert facts(hearth) == {"home_city": "Lisbon"}
    assert hearth.facts.get("home_city").category == "location"
    assert [h.value for h in hearth.facts.history("home_city")] == ["Lisbon", "Porto"]
    (after,) = learned_in_session(hearth.storage, "s1")[moved]
    assert after.state == "undone" and not after.can_undo
    with hearth.storage.read() as session:
        assert session.get(ContextEvent, change.event_id).processed  # never consolidated
    with pytest.raises(InvalidInputError):
        undo(change.event_id, storage=hearth.storage, facts=hearth.facts)


def test_undo_is_refused_once_the_fact_changed_since(hearth) -> None:
    (said,) = say(hearth, "I live in Lisbon.")
    hearth.facts.remember("home_city", "Lisbon, Alfama", category="location")
    (learned,) = learned_in_session(hearth.storage, "s1")[said]
    assert learned.state == "changed" and learned.current == "Lisbon, Alfama"
    with pytest.raises(InvalidInputError, match="changed since"):
        undo(learned.event_id, storage=hearth.storage, facts=hearth.facts)
    assert facts(hearth) == {"home_city": "Lisbon, Alfama"}


def test_a_forgotten_fact_leaves_no_note(hearth) -> None:
    say(hearth, "I live in Lisbon.")
    hearth.forgetting.forget("home_city")
    assert learned_in_session(hearth.storage, "s1") == {}
