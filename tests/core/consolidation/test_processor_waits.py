"""The processor and a model that is away: an outage is not the events' fault (no attempt,
the run stops at once), and a poisoned event gets one automatic retry, after a change of
model or once the model answers again.

The model is scripted; storage, embeddings and the deduplicator are real.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update
from support.scripted_llm import ScriptedLLM
from test_processor import answer, rows, run_record, scripted

from core.app import Hearth
from core.config import Settings
from core.consolidation import processor as processor_module
from core.consolidation.processor import (
    WAITING_PREFIX,
    MemoryProcessor,
    retry_event,
    retry_failed_events,
)
from core.learning.events import add_event
from core.llm import (
    LLMError,
    LLMModelMissingError,
    LLMOutage,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
)
from core.storage.orm import ContextEvent

MAX_ATTEMPTS = 2
OUTAGES = [
    LLMUnavailableError("Ollama is not running at http://127.0.0.1:1.", "Start it."),
    LLMTimeoutError("Ollama did not answer within 120 seconds.", "Try again."),
    LLMModelMissingError("The model llama3.2:3b is not installed in Ollama.", "Pull it."),
    LLMServerError("Ollama failed to answer (model is loading).", "Try again."),
]


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    settings = Settings(event_max_attempts=MAX_ATTEMPTS)
    with Hearth.open(migrated_home, settings=settings, embedder=embedder) as opened:
        yield opened


def events(hearth: Hearth) -> dict[int, ContextEvent]:
    return {event.id: event for event in rows(hearth, ContextEvent)}


def down(outage: LLMOutage) -> ScriptedLLM:
    return ScriptedLLM(lambda *_: outage)


def poison(hearth: Hearth, event_id: int, model: str = "small-1") -> None:
    """Fail ``event_id`` on its content until it is poisoned, with the model ``model``."""
    for _ in range(MAX_ATTEMPTS):
        MemoryProcessor(hearth.consolidation(), ScriptedLLM(["no JSON here"] * 2,
                                                            model=model)).run()
    assert events(hearth)[event_id].attempts == MAX_ATTEMPTS


# --- an outage -----------------------------------------------------------------------------


@pytest.mark.parametrize("outage", OUTAGES, ids=lambda e: type(e).__name__)
def test_an_outage_counts_no_attempt_and_stops_the_run(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch, outage: LLMOutage) -> None:
    monkeypatch.setattr(processor_module, "BATCH_SIZE", 1)
    ids = [add_event(hearth.storage, "observation", f"Observation {n}.", {}) for n in range(3)]
    llm = down(outage)

    for _ in range(MAX_ATTEMPTS + 1):  # more runs than it takes to poison
        report = MemoryProcessor(hearth.consolidation(), llm).run()
        assert report.status == "unavailable"
        assert report.unavailable.startswith(outage.message)
        assert (report.failed, report.poisoned, report.processed) == (0, 0, 0)

    assert len(llm.requests) == MAX_ATTEMPTS + 1  # one request per run: it stopped at once
    stored = events(hearth)
    assert [stored[i].attempts for i in ids] == [0, 0, 0]
    assert stored[ids[0]].last_error == WAITING_PREFIX + report.unavailable
    assert stored[ids[1]].last_error is None  # never tried
    run = run_record(hearth, report.run_id)
    assert (run.status, run.error) == ("unavailable", report.unavailable)

    back = MemoryProcessor(hearth.consolidation(),
                           scripted([answer({"n": n}) for n in range(3)])).run()
    assert (back.status, back.processed) == ("done", 3)
    assert all(event.processed and event.last_error is None
               for event in events(hearth).values())


def test_an_outage_while_deduplicating_is_not_counted_either(hearth: Hearth) -> None:
    hearth.memories.add("The user is allergic to peanuts.", memory_type="semantic",
                        namespace="user")
    event = add_event(hearth.storage, "observation", "Peanuts make the user ill.", {})
    outage = LLMUnavailableError("Ollama is not running at http://127.0.0.1:1.", "Start it.")

    def respond(_kind, _messages, extra):  # type: ignore[no-untyped-def]
        if extra["schema"].get("title") == "ProcessorOutput":
            return answer({}, "", ["The user has a peanut allergy."])
        raise outage  # the deduplicator's verdict

    report = MemoryProcessor(hearth.consolidation(), ScriptedLLM(respond)).run()
    assert (report.status, report.failed) == ("unavailable", 0)
    row = events(hearth)[event]
    assert (row.processed, row.attempts) == (False, 0)
    assert row.last_error.startswith(WAITING_PREFIX)


def test_a_failure_of_the_request_still_counts(hearth: Hearth) -> None:
    event = add_event(hearth.storage, "observation", "Likes tea.", {})
    refused = LLMError("Ollama refused the request: invalid format (HTTP 400).", "Check it.")
    report = MemoryProcessor(hearth.consolidation(), ScriptedLLM([refused])).run()
    assert (report.status, report.failed) == ("done", 1)
    row = events(hearth)[event]
    assert row.attempts == 1 and row.failed_with == "scripted · scripted-1"


# --- one automatic retry -------------------------------------------------------------------


def test_a_poisoned_event_gets_one_retry_from_another_model(hearth: Hearth) -> None:
    event = add_event(hearth.storage, "observation", "Learning Portuguese.", {})
    poison(hearth, event, model="small-1")
    same = ScriptedLLM([], model="small-1")
    assert MemoryProcessor(hearth.consolidation(), same).run().status == "skipped"
    assert same.requests == []  # the model that failed it is not asked again

    other = ScriptedLLM(["still no JSON"] * 2, model="large-1")
    report = MemoryProcessor(hearth.consolidation(), other).run()
    assert (report.events_seen, report.poisoned) == (1, 1)  # tried once more, failed again
    row = events(hearth)[event]
    assert (row.attempts, row.auto_retried, row.failed_with) == (
        MAX_ATTEMPTS, True, "scripted · large-1")

    third = ScriptedLLM([], model="huge-1")
    assert MemoryProcessor(hearth.consolidation(), third).run().status == "skipped"
    assert third.requests == []  # once: now it waits for the user

    retry_event(hearth.storage, event)
    done = MemoryProcessor(hearth.consolidation(),
                           scripted([answer({"Languages": "Portuguese"})])).run()
    assert done.processed == 1


def test_a_poisoned_event_is_retried_once_the_model_answers_again(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processor_module, "BATCH_SIZE", 1)
    poisoned = add_event(hearth.storage, "observation", "Plays the cello.", {})
    poison(hearth, poisoned, model="scripted-1")
    fresh = add_event(hearth.storage, "observation", "Has a cat called Miso.", {})

    report = MemoryProcessor(hearth.consolidation(), scripted([answer({"Pets": "Miso"}),
                                                               answer({"Music": "cello"})])).run()

    assert (report.status, report.events_seen, report.processed) == ("done", 2, 2)
    stored = events(hearth)
    assert stored[fresh].processed and stored[poisoned].processed
    assert stored[poisoned].auto_retried


def test_an_event_poisoned_in_a_run_is_not_retried_by_the_same_run(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processor_module, "BATCH_SIZE", 1)
    failing_event = add_event(hearth.storage, "observation", "Plays the cello.", {})
    MemoryProcessor(hearth.consolidation(), scripted(["no JSON"] * 2)).run()  # attempt 1 of 2
    add_event(hearth.storage, "observation", "Has a cat called Miso.", {})

    report = MemoryProcessor(hearth.consolidation(), scripted(["no JSON", "no JSON",
                                                               answer({"Pets": "Miso"})])).run()
    assert (report.events_seen, report.processed, report.poisoned) == (2, 1, 1)
    row = events(hearth)[failing_event]
    assert (row.attempts, row.auto_retried) == (MAX_ATTEMPTS, False)  # retry still unused


def test_events_poisoned_before_the_model_was_recorded_get_their_retry(
        hearth: Hearth) -> None:
    """Events an Ollama outage poisoned before this version (no model recorded)."""
    event = add_event(hearth.storage, "observation", "Learning Portuguese.", {})
    with hearth.storage.write() as session:
        session.execute(update(ContextEvent).values(
            attempts=MAX_ATTEMPTS, last_error="Ollama is not running at http://x:1."))
    report = MemoryProcessor(hearth.consolidation(),
                             scripted([answer({"Languages": "Portuguese"})])).run()
    assert report.processed == 1 and events(hearth)[event].processed


def test_an_unreadable_memory_candidate_is_never_retried_automatically(
        hearth: Hearth) -> None:
    bad = add_event(hearth.storage, "memory_candidate", "{\"content\": \"\"}", {})
    add_event(hearth.storage, "observation", "Likes tea.", {})
    MemoryProcessor(hearth.consolidation(), scripted([answer({"Drinks": "tea"})])).run()
    other = ScriptedLLM([], model="large-1")
    assert MemoryProcessor(hearth.consolidation(), other).run().status == "skipped"
    assert other.requests == [] and events(hearth)[bad].auto_retried


def test_retry_all_gives_every_failed_event_fresh_attempts(hearth: Hearth) -> None:
    first = add_event(hearth.storage, "observation", "One.", {})
    second = add_event(hearth.storage, "observation", "Two.", {})
    poison(hearth, first, model="small-1")
    add_event(hearth.storage, "observation", "Three.", {})  # pending: not failed, untouched
    assert retry_failed_events(hearth.storage) == 2
    stored = events(hearth)
    for event_id in (first, second):
        row = stored[event_id]
        assert (row.attempts, row.last_error, row.failed_with, row.auto_retried) == (
            0, None, None, False)
