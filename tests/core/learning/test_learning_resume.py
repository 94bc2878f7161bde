"""Learning that quitting cut short is kept, and the next start does it.

The window quits without waiting for the model (``LearningPipeline.stop``): an exchange is
``learning_due`` from the moment it is saved until its learning is done, a chat summary cut
short opens its chat again, and ``resume`` at the next start learns what is due and closes
the chats left open past their quiet time. Storage and embeddings are real; the model is
scripted.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.learning.pipeline import LearningPipeline
from core.storage.liveness import LEARNING
from core.llm import CancelToken, LLMCancelled, Message
from core.storage.orm import ChatSession, Interaction, utcnow

NOTHING = json.dumps({"facts": []})
DIGEST = json.dumps({"summaries": [{"topic": "Family", "summary": "Priya moved to Lisbon."}],
                     "candidates": []})
QUIET = 1800.0


class StallingLLM(ScriptedLLM):
    """Every structured request waits, like a slow model, until it is cancelled."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = threading.Event()

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        self.asked.set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if cancel is not None and cancel.cancelled:
                raise LLMCancelled("Cancelled.", "The test stopped learning.")
            time.sleep(0.01)
        raise AssertionError("stop did not cancel the model call")


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def said(hearth: Hearth, session_id: str, *messages: str, ago: timedelta = timedelta(0)
         ) -> list[int]:
    """Exchanges saved as the conversation saves them: due for learning."""
    with hearth.storage.write() as session:
        chat = session.get(ChatSession, session_id)
        if chat is None:
            chat = ChatSession(id=session_id, title="test", source="chat")
            session.add(chat)
        chat.last_message_at = utcnow() - ago
        rows = [Interaction(session_id=session_id, user_message=text, agent_response="Noted.",
                            learning_due=True) for text in messages]
        session.add_all(rows)
        session.flush()
        return [row.id for row in rows]


def due(hearth: Hearth) -> list[int]:
    with hearth.storage.read() as session:
        return list(session.scalars(select(Interaction.id).where(
            Interaction.learning_due.is_(True)).order_by(Interaction.id)))


def closed_at(hearth: Hearth, session_id: str):
    with hearth.storage.read() as session:
        return session.get(ChatSession, session_id).closed_at


def test_stopping_mid_extraction_keeps_exchanges_due_and_the_next_start_learns_them(
        hearth) -> None:
    ids = said(hearth, "s1", "My sister Priya lives in Lisbon", "I moved to Porto last week")
    stalling = StallingLLM()
    pipeline = LearningPipeline(hearth.learning(), stalling, quiet_seconds=QUIET)
    for interaction_id in ids:
        pipeline.exchange_completed(interaction_id, "s1")
    assert stalling.asked.wait(30)

    started = time.monotonic()
    assert pipeline.stop(timeout=5)
    assert time.monotonic() - started < 1.0
    assert due(hearth) == ids  # neither finished nor dropped
    # what the first message stated outright was stored before the model was asked; the
    # second message was never reached
    assert hearth.facts.get("sister_name").value == "Priya"
    assert hearth.facts.get("home_city") is None
    assert pipeline.stats.failures == 0  # a cancel is not a failure

    later = LearningPipeline(hearth.learning(),
                             ScriptedLLM([NOTHING, NOTHING]), quiet_seconds=QUIET)
    assert later.resume() == 2
    assert later.drain(timeout=60)
    later.shutdown(close_sessions=False)
    assert due(hearth) == []
    assert hearth.facts.get("sister_name").value == "Priya"
    assert hearth.facts.get("home_city").value == "Porto"


def test_an_exchange_learned_or_whose_answer_was_unusable_is_no_longer_due(
        hearth) -> None:
    ids = said(hearth, "s1", "I moved to Porto last week", "My dog is called Biscuit")
    pipeline = LearningPipeline(hearth.learning(), ScriptedLLM([NOTHING, "not json at all",
                                                     "still not json"]),
                                quiet_seconds=QUIET)
    for interaction_id in ids:
        pipeline.exchange_completed(interaction_id, "s1")
    assert pipeline.drain(timeout=60)
    pipeline.shutdown(close_sessions=False)
    assert due(hearth) == []


def test_a_summary_cut_short_reopens_its_chat_and_the_next_start_summarises_it(
        hearth) -> None:
    said(hearth, "s1", "My sister Priya lives in Lisbon", "She moved there in May",
         ago=timedelta(hours=2))
    with hearth.storage.write() as session:  # learned already: only the closing is left
        for row in session.scalars(select(Interaction)):
            row.learning_due = False
    stalling = StallingLLM()
    pipeline = LearningPipeline(hearth.learning(), stalling, quiet_seconds=QUIET)
    pipeline.session_ended("s1")  # "new chat", then quit while the summary is written
    assert stalling.asked.wait(30)
    assert pipeline.stop(timeout=5)
    assert closed_at(hearth, "s1") is None  # open again, not closed without its summary
    assert hearth.notes.list(summaries_only=True) == []

    later = LearningPipeline(hearth.learning(), ScriptedLLM([DIGEST]), quiet_seconds=QUIET)
    assert later.resume() == 0
    assert later.drain(timeout=60)
    later.shutdown(close_sessions=False)
    assert closed_at(hearth, "s1") is not None
    assert [note.title for note in hearth.notes.list(summaries_only=True)] == [
        "Summary: Family"]


def test_a_chat_still_within_its_quiet_time_is_left_open(hearth) -> None:
    said(hearth, "recent", "Hello", "How are you", ago=timedelta(minutes=5))
    with hearth.storage.write() as session:
        for row in session.scalars(select(Interaction)):
            row.learning_due = False
    later = LearningPipeline(hearth.learning(), ScriptedLLM([]), quiet_seconds=QUIET)
    later.resume()
    assert later.drain(timeout=60)
    later.shutdown(close_sessions=False)
    assert closed_at(hearth, "recent") is None


def test_an_exchange_a_live_process_has_queued_is_left_to_it(hearth) -> None:
    (interaction_id,) = said(hearth, "s1", "I moved to Porto last week")
    claim = hearth.storage.claims.hold(LEARNING, interaction_id)  # another window
    try:
        later = LearningPipeline(hearth.learning(), ScriptedLLM([]), quiet_seconds=QUIET)
        assert later.resume() == 0
        later.shutdown(close_sessions=False)
        assert due(hearth) == [interaction_id]
    finally:
        claim.release()
