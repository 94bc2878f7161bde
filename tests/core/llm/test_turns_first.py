"""The user's turn goes first: learning's model calls give way to a reply and run again after.

The model double answers one request at a time, like the embedded model's single llama.cpp
slot (and Ollama's queue): without the give-way a reply waits behind the learning's fact
extraction, here for ever, on a busy machine with the embedded model for minutes. Storage,
embeddings and the pipeline are real.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from core.app import Hearth
from core.conversation import ConversationService
from core.conversation.events import TurnFinished
from core.learning.pipeline import LearningPipeline
from core.llm import CancelToken, ChatChunk, LLMCancelled, Message, ToolSpec
from core.llm.turns_first import TurnsFirst
from core.storage.orm import ChatSession
from support.scripted_llm import ScriptedLLM

WAIT = 30


NO_FACTS = json.dumps({"facts": []})


class OneSlotModel(ScriptedLLM):
    """Serves one request at a time. The next ``slow`` structured requests take until they
    are cancelled (the model "thinking" for minutes), the rest answer at once: ``facts``
    to a fact extraction, ``digest`` to a chat summary."""

    def __init__(self, *, facts: str = NO_FACTS, digest: str = "", slow: int = 1) -> None:
        def answer(kind: str, _messages: object, extra: dict[str, Any]) -> str:
            if kind == "chat":
                return "Nice, a beagle!"
            return digest if "summaries" in extra["schema"]["properties"] else facts

        super().__init__(answer, supports_tools=False)
        self._slot = threading.Lock()
        self._slow = slow
        self.thinking = threading.Event()
        self.cut_short = 0

    def think_long_next(self) -> None:
        """The next structured request takes until it is cancelled."""
        self._slow = 1

    def structured(self, messages: Sequence[Message], schema: dict[str, Any], *,
                   max_tokens: int | None = None, cancel: CancelToken | None = None) -> str:
        with self._slot:
            if self._slow:
                self._slow -= 1
                self.thinking.set()
                while not (cancel is not None and cancel.cancelled):
                    threading.Event().wait(0.01)
                self.cut_short += 1
                raise LLMCancelled("cancelled", "")
            return super().structured(messages, schema, max_tokens=max_tokens, cancel=cancel)

    def chat_stream(self, messages: Sequence[Message], *, tools: Sequence[ToolSpec] = (),
                    cancel: CancelToken | None = None, max_tokens: int | None = None,
                    temperature: float | None = None) -> Iterator[ChatChunk]:
        with self._slot:
            yield from super().chat_stream(messages, tools=tools, cancel=cancel,
                                           max_tokens=max_tokens, temperature=temperature)


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, embedder=embedder) as opened:
        yield opened


def wired(hearth: Hearth, model: OneSlotModel) -> tuple[ConversationService, LearningPipeline,
                                                        TurnsFirst]:
    """As ``core.assistant.Assistant.start`` wires them."""
    turns = TurnsFirst()
    learning = LearningPipeline(hearth.learning(), model, quiet_seconds=3600, turns=turns)
    return hearth.conversation(model, listener=learning, turns=turns), learning, turns


def reply_within(chat: ConversationService, session_id: str, text: str) -> TurnFinished:
    """The turn's last event, or a failure if it has not finished in ``WAIT`` seconds."""
    events: list[object] = []
    worker = threading.Thread(target=lambda: events.extend(chat.send(session_id, text)),
                              daemon=True)
    worker.start()
    worker.join(WAIT)
    assert not worker.is_alive(), "the reply waited behind the learning's model call"
    assert isinstance(events[-1], TurnFinished), events[-1]
    return events[-1]


def test_a_reply_does_not_wait_for_the_learning_and_nothing_is_lost(hearth) -> None:
    model = OneSlotModel(facts=json.dumps({"facts": [
        {"key": "dog_name", "value": "Biscuit", "category": "personal"}]}))
    chat, learning, turns = wired(hearth, model)
    session_id = chat.sessions.new_session()

    reply_within(chat, session_id, "We adopted a beagle and called him Biscuit.")
    assert model.thinking.wait(WAIT)  # the extraction of that exchange is under way
    second = reply_within(chat, session_id, "Any tips for the first week?")

    assert second.reply == "Nice, a beagle!"
    assert learning.drain(timeout=WAIT)
    # the extraction cut short ran again after the reply, and its fact is stored
    assert model.cut_short == 1 and turns.gave_way == 1
    assert hearth.facts.get("dog_name").value == "Biscuit"
    assert learning.stats.failures == 0
    learning.shutdown()


def chat_about_the_dog(hearth: Hearth, digest: str) -> tuple[
        OneSlotModel, ConversationService, LearningPipeline, TurnsFirst, str]:
    """A chat of two exchanges, learned from; the model's next structured request (the
    chat's summary) will think until a turn cuts it short."""
    model = OneSlotModel(digest=digest, slow=0)
    chat, learning, turns = wired(hearth, model)
    session_id = chat.sessions.new_session()
    for text in ("We adopted a beagle.", "His name is Biscuit."):
        reply_within(chat, session_id, text)
    assert learning.drain(timeout=WAIT)
    model.think_long_next()
    return model, chat, learning, turns, session_id


def test_a_chat_summary_cut_short_by_a_turn_in_another_chat_is_written_after_it(hearth) -> None:
    digest = json.dumps({"summaries": [{"topic": "New dog", "summary":
                                        "The user adopted a beagle called Biscuit."}],
                         "candidates": []})
    model, chat, learning, turns, first = chat_about_the_dog(hearth, digest)
    second = chat.sessions.new_session()
    learning.session_ended(first)  # "New chat"
    assert model.thinking.wait(WAIT)
    reply_within(chat, second, "What's the weather like for walks?")

    assert learning.drain(timeout=WAIT)
    assert turns.gave_way == 1
    (summary,) = hearth.notes.list(summaries_only=True)
    assert summary.title == "Summary: New dog"
    with hearth.storage.read() as session:
        assert session.get(ChatSession, first).closed_at is not None
        assert session.get(ChatSession, second).closed_at is None
    learning.shutdown(close_sessions=False)


def test_a_message_in_the_chat_being_summarised_keeps_it_open(hearth) -> None:
    """The summary gives way to a turn of the same chat, which reopened it: it is not closed
    behind the user's back (its quiet timer closes it later, summarising everything)."""
    model, chat, learning, _, session_id = chat_about_the_dog(
        hearth, json.dumps({"summaries": [], "candidates": []}))
    learning.session_ended(session_id)
    assert model.thinking.wait(WAIT)
    reply_within(chat, session_id, "Oh, and he is four months old.")

    assert learning.drain(timeout=WAIT)
    with hearth.storage.read() as session:
        assert session.get(ChatSession, session_id).closed_at is None
    assert learning.stats.failures == 0
    learning.shutdown(close_sessions=False)


def test_quitting_still_stops_background_work_waiting_for_a_turn() -> None:
    turns, stop = TurnsFirst(), CancelToken()
    with turns.turn():
        stop.cancel()
        with pytest.raises(LLMCancelled):
            turns.run(lambda _token: "never called", stop)
