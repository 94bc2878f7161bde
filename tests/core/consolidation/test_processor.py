"""The memory processor: pending events → scaffold, working memory and deduplicated
memories in one transaction; failures leave events unprocessed with attempts and errors.

The model is scripted (pipeline logic); storage, embeddings and the deduplicator are real.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
import typer
from sqlalchemy import func, select
from typer.testing import CliRunner

from core.app import Hearth
from cli import consolidation_cmd
from core.config import Settings
from core.consolidation import processor as processor_module
from core.consolidation.dedupe import Deduplicator
from core.consolidation.processor import MemoryProcessor, merge_scaffold
from core.learning.events import add_event
from core.learning.schemas import MemoryCandidate
from core.llm import CancelToken, Message
from core.storage.orm import ContextEvent, Memory, Run, NotesAboutYouVersion, WorkingMemoryVersion
from support.scripted_llm import ScriptedLLM, failing

PROCESSOR_SCHEMA = "ProcessorOutput"


def answer(scaffold: dict[str, Any] | str, working_memory: str = "",
           facts: Sequence[str] = ()) -> str:
    return json.dumps({"updated_scaffold": scaffold, "updated_working_memory": working_memory,
                       "facts_to_embed": list(facts)})


def scripted(processor_answers: list[Any], dedupe_answer: str | None = None) -> ScriptedLLM:
    """Processor requests get the scripted answers in order; any request with another
    schema (the deduplicator's) gets ``dedupe_answer`` and fails the test without one."""

    def respond(_kind: str, _messages: Sequence[Message], extra: dict[str, Any]) -> Any:
        if extra["schema"].get("title") == PROCESSOR_SCHEMA:
            assert processor_answers, "the processor asked the model more often than scripted"
            return processor_answers.pop(0)
        assert dedupe_answer is not None, f"unexpected request for {extra['schema']}"
        return dedupe_answer

    return ScriptedLLM(respond)


def candidate_event(hearth: Hearth, content: str, priority: str = "medium") -> int:
    return add_event(hearth.storage, "memory_candidate",
                     MemoryCandidate(content=content, priority=priority).model_dump_json(),
                     {"source": "session_close", "session_id": None, "priority": priority})


def rows(hearth: Hearth, model: type) -> list[Any]:
    with hearth.storage.read() as session:
        return list(session.scalars(select(model).order_by(model.id)))


def count(hearth: Hearth, model: type) -> int:
    with hearth.storage.read() as session:
        return session.scalar(select(func.count()).select_from(model)) or 0


def run_record(hearth: Hearth, run_id: int) -> Run:
    with hearth.storage.read() as session:
        run = session.get(Run, run_id)
    assert run is not None
    return run


# --- the happy path --------------------------------------------------------------------


def test_a_batch_is_consolidated_end_to_end(hearth: Hearth) -> None:
    add_event(hearth.storage, "observation", "Training for the Lisbon marathon in May.",
              {"source": "tool"})
    add_event(hearth.storage, "fact", "sister_name: Ines", {"source": "explicit_rule"})
    candidate_event(hearth, "The user is allergic to peanuts.", priority="high")
    llm = scripted([answer(
        # values stringified by the model, one of them twice
        {"Family": json.dumps({"sister": "Ines"}),
         "Goals": json.dumps(json.dumps(["Lisbon marathon in May"])), "Health": "peanut allergy"},
        "The user is training for the Lisbon marathon in May.",
        ["The user is training for the Lisbon marathon in May."])])
    progress: list[tuple[int, int]] = []

    processor = MemoryProcessor(hearth.consolidation(), llm)
    report = processor.run(trigger="test", progress=lambda d, t: progress.append((d, t)))

    (scaffold,) = rows(hearth, NotesAboutYouVersion)
    assert scaffold.data == {"Family": {"sister": "Ines"}, "Goals": ["Lisbon marathon in May"],
                             "Health": "peanut allergy"}
    assert scaffold.run_id == report.run_id
    (memory,) = rows(hearth, WorkingMemoryVersion)
    assert memory.content == "The user is training for the Lisbon marathon in May."
    events = rows(hearth, ContextEvent)
    assert all(e.processed and e.processed_at is not None and e.attempts == 0 for e in events)
    stored = {m.content: m for m in rows(hearth, Memory)}
    assert set(stored) == {"The user is allergic to peanuts.",
                           "The user is training for the Lisbon marathon in May."}
    allergy = stored["The user is allergic to peanuts."]
    assert (allergy.priority, allergy.source, allergy.event_id) == (
        "high", "session_close", events[2].id)
    fact = stored["The user is training for the Lisbon marathon in May."]
    assert (fact.namespace, fact.priority, fact.source) == ("user", "medium", "processor")
    assert (report.status, report.events_seen, report.processed, report.failed) == (
        "done", 3, 3, 0)
    assert (report.memories_added, report.scaffold_keys) == (2, 3)
    assert progress == [(3, 3)]

    # The prompt framed the observations as data, with their types, candidates as sentences.
    (request,) = llm.requests
    prompt = request.messages[-1].content
    observations = prompt.split("<observations>")[1].split("</observations>")[0]
    assert "- [observation] Training for the Lisbon marathon in May." in observations
    assert "- [fact] sister_name: Ines" in observations
    assert "- [memory_candidate] The user is allergic to peanuts. (semantic, high priority)" \
        in observations

    run = run_record(hearth, report.run_id)
    assert (run.kind, run.trigger, run.status) == ("processor", "test", "done")
    assert set(run.stages) == {"consolidate", "dedupe", "apply"}
    assert run.stages["consolidate"]["counts"]["events"] == 3
    assert run.stages["dedupe"]["counts"]["candidates"] == 2
    assert run.counts["memories_added"] == 2


def test_the_next_run_merges_into_the_scaffold_and_sees_the_current_state(hearth) -> None:
    add_event(hearth.storage, "observation", "Works at Acme as an engineer.", {})
    llm = scripted([answer({"Role": "engineer", "Employer": "Acme",
                            "Family": {"sister": "Ines", "brother": "Rui"}}, "Busy at Acme.")])
    MemoryProcessor(hearth.consolidation(), llm).run()
    add_event(hearth.storage, "observation", "Left Acme; now at Globex. Rui moved away.", {})
    # A small model returns only what changed: left-out keys stay, null removes.
    llm = scripted([answer({"Employer": "Globex", "Family": {"brother": None}},
                           "Settling in at Globex.")])
    MemoryProcessor(hearth.consolidation(), llm).run()

    prompt = llm.requests[0].messages[-1].content
    assert "Busy at Acme." in prompt.split("<working_memory>")[1].split("</working_memory>")[0]
    assert '"Employer": "Acme"' in prompt.split("<scaffold>")[1].split("</scaffold>")[0]
    versions = rows(hearth, NotesAboutYouVersion)
    assert [v.data for v in versions] == [
        {"Role": "engineer", "Employer": "Acme", "Family": {"sister": "Ines", "brother": "Rui"}},
        {"Role": "engineer", "Employer": "Globex", "Family": {"sister": "Ines"}}]
    assert [v.content for v in rows(hearth, WorkingMemoryVersion)] == [
        "Busy at Acme.", "Settling in at Globex."]


def test_merge_scaffold_rules() -> None:
    previous = {"a": 1, "b": {"x": 1, "y": [1]}, "c": "keep"}
    assert merge_scaffold(previous, {"a": None, "b": {"y": [2], "z": None}, "d": {"n": None}}) \
        == {"b": {"x": 1, "y": [2]}, "c": "keep", "d": {}}
    assert merge_scaffold({"b": "text"}, {"b": {"now": "object"}}) == {"b": {"now": "object"}}
    assert previous == {"a": 1, "b": {"x": 1, "y": [1]}, "c": "keep"}  # not mutated


def test_an_unchanged_answer_writes_no_new_versions(hearth: Hearth) -> None:
    add_event(hearth.storage, "observation", "Likes tea.", {})
    MemoryProcessor(hearth.consolidation(), scripted([answer({"Drinks": "tea"},
                                                             "Likes tea.")])).run()
    add_event(hearth.storage, "observation", "Still likes tea.", {})
    report = MemoryProcessor(hearth.consolidation(), scripted([answer({}, "Likes tea.")])).run()
    assert report.processed == 1
    assert (count(hearth, NotesAboutYouVersion), count(hearth, WorkingMemoryVersion)) == (1, 1)


# --- failures ---------------------------------------------------------------------------


def test_model_down_or_garbage_mid_run_leaves_those_batches_untouched(
        hearth: Hearth, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processor_module, "BATCH_SIZE", 1)
    first = add_event(hearth.storage, "observation", "Has a cat called Miso.", {})
    down = add_event(hearth.storage, "observation", "Plays the cello.", {})
    garbage = candidate_event(hearth, "The user plays the cello on Sundays.")
    llm = scripted([answer({"Pets": "cat Miso"}, "Has a cat.", ["The user has a cat, Miso."]),
                    failing("Ollama is not running"),
                    "I am sorry, I cannot do that.", "{\"updated_scaffold\": [1, 2]}"])

    report = MemoryProcessor(hearth.consolidation(), llm).run()

    events = {e.id: e for e in rows(hearth, ContextEvent)}
    assert events[first].processed
    for failed in (down, garbage):
        assert not events[failed].processed and events[failed].processed_at is None
        assert events[failed].attempts == 1
    assert "Ollama is not running" in events[down].last_error
    assert "updated_scaffold" in events[garbage].last_error
    # Only the first batch was written: its versions and its one memory.
    assert [v.data for v in rows(hearth, NotesAboutYouVersion)] == [{"Pets": "cat Miso"}]
    assert count(hearth, WorkingMemoryVersion) == 1
    assert [m.content for m in rows(hearth, Memory)] == ["The user has a cat, Miso."]
    assert (report.processed, report.failed, report.poisoned) == (1, 2, 0)
    run = run_record(hearth, report.run_id)
    assert run.status == "done" and run.counts["failed"] == 2
    assert run.stages["consolidate"]["status"] == "failed"


class FailingApply(Deduplicator):
    """The real deduplicator, whose writes are followed by a failure in the same
    transaction: everything the batch wrote must roll back."""

    def apply(self, session, decisions):  # type: ignore[no-untyped-def]
        super().apply(session, decisions)
        session.flush()
        from core.errors import DatabaseError
        raise DatabaseError("disk full", "Free some space.")


def test_a_failure_while_applying_writes_nothing(hearth: Hearth) -> None:
    event = candidate_event(hearth, "The user's passport expires in June.")
    llm = scripted([answer({"Documents": "passport"}, "Passport renewal.")])
    services = hearth.consolidation()
    report = MemoryProcessor(services, llm, FailingApply(services, llm)).run()

    assert (count(hearth, NotesAboutYouVersion), count(hearth, WorkingMemoryVersion),
            count(hearth, Memory)) == (0, 0, 0)
    (row,) = rows(hearth, ContextEvent)
    assert (row.id, row.processed, row.attempts) == (event, False, 1)
    assert "disk full" in row.last_error
    assert report.failed == 1


def test_events_are_poisoned_after_max_attempts_and_can_be_retried(
        isolated_home: Path, embedder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HEARTH_EVENT_MAX_ATTEMPTS", "2")  # for the CLI's own Hearth too
    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        assert hearth.settings.event_max_attempts == 2
        event = add_event(hearth.storage, "observation", "Learning Portuguese.", {})
        for _ in range(2):
            MemoryProcessor(hearth.consolidation(), scripted([failing("model missing")])).run()
        idle = scripted([])
        report = MemoryProcessor(hearth.consolidation(), idle).run()
        assert (report.status, report.events_seen) == ("skipped", 0)
        assert idle.requests == []  # a poisoned event is not retried
        assert run_record(hearth, report.run_id).status == "skipped"

    cli = command_line()
    failed = json.loads(cli.invoke(cli_app(), ["events", "--failed", "--json"]).stdout)
    assert [(e["id"], e["state"], e["attempts"]) for e in failed] == [(event, "poisoned", 2)]
    assert "model missing" in failed[0]["last_error"]
    assert json.loads(cli.invoke(cli_app(), ["events", "--json"]).stdout) == []
    table = cli.invoke(cli_app(), ["events", "--failed"])
    assert "poisoned" in table.stdout and "--retry" in table.stderr

    retried = cli.invoke(cli_app(), ["events", "--retry", str(event), "--json"])
    assert retried.exit_code == 0 and json.loads(retried.stdout)["state"] == "pending"
    pending = json.loads(cli.invoke(cli_app(), ["events", "--json"]).stdout)
    assert [(e["id"], e["attempts"], e["last_error"]) for e in pending] == [(event, 0, None)]

    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        report = MemoryProcessor(hearth.consolidation(),
                                 scripted([answer({"Languages": "Portuguese"})])).run()
        assert report.processed == 1


def test_an_unreadable_memory_candidate_is_poisoned_at_once_and_the_rest_proceeds(
        hearth: Hearth) -> None:
    bad = add_event(hearth.storage, "memory_candidate", "{\"content\": \"\"}", {})
    good = add_event(hearth.storage, "observation", "Moved to Porto.", {})
    report = MemoryProcessor(hearth.consolidation(), scripted([answer({"City": "Porto"})])).run()
    events = {e.id: e for e in rows(hearth, ContextEvent)}
    assert events[good].processed
    assert not events[bad].processed
    assert events[bad].attempts == hearth.settings.event_max_attempts
    assert "not a valid memory candidate" in events[bad].last_error
    assert (report.processed, report.poisoned) == (1, 1)


def test_excluded_topics_never_reach_the_model_or_memory(isolated_home: Path, embedder) -> None:
    settings = Settings(exclusions=["divorce"])
    with Hearth.open(isolated_home, settings=settings, embedder=embedder) as hearth:
        hidden = add_event(hearth.storage, "observation", "Going through a divorce.", {})
        add_event(hearth.storage, "observation", "Started pottery classes.", {})
        llm = scripted([answer({"Hobbies": "pottery"}, "Pottery.",
                               ["The user is going through a divorce.",
                                "The user started pottery classes."])])
        report = MemoryProcessor(hearth.consolidation(), llm).run()
        assert "divorce" not in llm.requests[0].messages[-1].content
        assert [m.content for m in rows(hearth, Memory)] == ["The user started pottery classes."]
        row = next(e for e in rows(hearth, ContextEvent) if e.id == hidden)
        assert row.processed and "exclusion list" in row.last_error
        assert report.excluded == 2


def test_cancelling_stops_between_batches(hearth: Hearth,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processor_module, "BATCH_SIZE", 1)
    add_event(hearth.storage, "observation", "One.", {})
    add_event(hearth.storage, "observation", "Two.", {})
    cancel = CancelToken()
    report = MemoryProcessor(hearth.consolidation(), scripted([answer({"n": 1})])).run(
        progress=lambda _done, _total: cancel.cancel(), cancel=cancel)
    assert (report.status, report.processed) == ("cancelled", 1)
    assert [e.processed for e in rows(hearth, ContextEvent)] == [True, False]
    assert [e.attempts for e in rows(hearth, ContextEvent)] == [0, 0]
    assert run_record(hearth, report.run_id).status == "cancelled"


# --- the command line ---------------------------------------------------------------------


def cli_app() -> typer.Typer:
    app = typer.Typer()
    app.command()(consolidation_cmd.events)
    app.command()(consolidation_cmd.runs)
    return app


def command_line() -> CliRunner:
    return CliRunner()


def test_runs_lists_recorded_runs_with_stages(hearth: Hearth) -> None:
    add_event(hearth.storage, "observation", "Likes jazz.", {})
    report = MemoryProcessor(hearth.consolidation(), scripted([answer({"Music": "jazz"})])).run()
    cli = command_line()
    listed = json.loads(cli.invoke(cli_app(), ["runs", "--kind", "processor", "--json"]).stdout)
    assert [r["id"] for r in listed] == [report.run_id]
    assert listed[0]["status"] == "done" and listed[0]["seconds"] >= 0
    assert listed[0]["stages"]["consolidate"]["counts"]["events"] == 1
    assert json.loads(cli.invoke(cli_app(), ["runs", "--kind", "dream", "--json"]).stdout) == []
    table = cli.invoke(cli_app(), ["runs"])
    assert table.exit_code == 0 and "consolidate" in table.stdout


def test_retrying_an_unknown_event_is_a_clear_error(hearth: Hearth) -> None:
    result = command_line().invoke(cli_app(), ["events", "--retry", "999"])
    assert result.exit_code != 0
    assert "Nothing numbered 999 is waiting to be learned" in str(result.exception)


def test_the_scaffold_is_bounded_in_depth_and_size() -> None:
    from pydantic import ValidationError

    from core.consolidation.processor import ProcessorOutput

    babble = {"a": {"b": {"c": {"d": {"e": "too deep"}}}}}
    with pytest.raises(ValidationError, match="nests 5 levels deep"):
        ProcessorOutput(updated_scaffold=babble)
    with pytest.raises(ValidationError, match="characters long"):
        ProcessorOutput(updated_scaffold={"Notes": "x" * 7000})
    fine = ProcessorOutput(updated_scaffold={"Family": '{"sister": {"name": "Ines"}}'})
    assert fine.updated_scaffold == {"Family": {"sister": {"name": "Ines"}}}
