"""The window's operations for chats, consolidation, models, settings and data: each hands
back plain frozen records (never an ORM row, a provider or a service) and, when it changed
something, the ``Changes`` naming what, so a view reloads only what moved."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from types import ModuleType

import pytest
from sqlalchemy import update
from support.dream_folder import REFLECTION, dreaming_model, prepare
from support.fake_ollama import FakeOllama
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.assistant import Assistant
from core.config import load_settings
from core.errors import HearthError, InvalidInputError
from core.operations import chats, consolidation, data, models, settings
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import Base, Memory

MODULES = (chats, consolidation, models, settings, data)


def exported(module: ModuleType) -> dict[str, object]:
    return {name: getattr(module, name) for name in module.__all__}


@pytest.mark.parametrize("module", MODULES, ids=lambda module: module.__name__)
def test_every_record_an_operation_returns_is_frozen_and_none_is_a_row(module) -> None:
    records = [value for value in exported(module).values()
               if isinstance(value, type) and dataclasses.is_dataclass(value)]
    assert records  # each module hands back records of its own or re-exported ones
    for record in records:
        assert record.__dataclass_params__.frozen, f"{record.__name__} can be changed"
    rows = [name for name, value in exported(module).items()
            if isinstance(value, type) and issubclass(value, Base)]
    assert rows == []


def told(hearth: Hearth) -> list[Changes]:
    """What the change feed tells from now on (the views reload on it, not on what an
    operation returns)."""
    heard: list[Changes] = []
    hearth.storage.changes.subscribe(heard.append)
    return heard


def touched(heard: list[Changes], *domains: Domain) -> bool:
    return all(any(changes.touches(domain) for changes in heard) for domain in domains)


def is_frozen(value: object) -> bool:
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, dataclasses.fields(value)[0].name, None)  # type: ignore[arg-type]
    return True


# --- chats -------------------------------------------------------------------------------------


def noting() -> ScriptedLLM:
    """Replies "Noted." and extracts nothing itself: what is learned comes from the rules
    reading the user's words."""
    return ScriptedLLM(lambda kind, _messages, extra: json.dumps(
        {name: [] for name in extra["schema"].get("properties", {})})
        if kind == "structured" else "Noted.")


def test_a_chat_from_its_first_message_to_its_deletion(hearth: Hearth) -> None:
    llm = ScriptedLLM(lambda kind, _messages, extra: json.dumps(
        {name: [] for name in extra["schema"].get("properties", {})})
        if kind == "structured" else "Hello there, Ana!")
    assistant = Assistant.start(hearth, provider=llm)
    heard = told(hearth)
    try:
        events = list(chats.send(assistant, None, "Hi, I am Ana", models.CancelToken()))
        *streamed, result = events
        assert isinstance(result, chats.TurnResult) and is_frozen(result)
        assert isinstance(result.outcome, chats.TurnFinished)
        assert touched(heard, Domain.CHATS)
        assert "".join(event.text for event in streamed
                       if isinstance(event, chats.TextDelta)) == "Hello there, Ana!"
        chat = result.session_id

        [listed] = chats.recent(assistant, 10)
        assert listed.id == chat and listed.exchanges == 1 and is_frozen(listed)
        assert [info.id for info in chats.search(assistant, "Ana", 10)] == [chat]
        [exchange] = chats.history(assistant, chat)
        assert exchange.agent_response == "Hello there, Ana!" and is_frozen(exchange)

        again = list(chats.answer_again(assistant, chat, exchange.interaction_id, "Hi, I am Bo",
                                        models.CancelToken()))[-1]
        assert isinstance(again, chats.TurnResult) and again.session_id == chat
        assert chats.history(assistant, chat)[0].user_message == "Hi, I am Bo"
        assert chats.reply_context(hearth, exchange.interaction_id) is not None

        renamed = chats.rename(assistant, chat, "  Meeting   Ana ")
        assert renamed == chats.Stored("Meeting Ana")
        with pytest.raises(InvalidInputError):
            chats.rename(assistant, chat, "   ")
        assert chats.set_learning(assistant, chat, False) == chats.Stored(False)
        assert chats.recent(assistant, 10)[0].learns is False

        heard.clear()
        incognito = chats.start(assistant, incognito=True)
        assert touched(heard, Domain.CHATS)
        assert chats.discard_incognito(assistant, keep=incognito.session_id) == chats.Stored(0)
        assert chats.discard_incognito(assistant).value == 1

        heard.clear()
        deleted = chats.delete(assistant, chat)
        assert deleted.deletion.exchanges == 1 and touched(heard, Domain.CHATS)
        assert chats.recent(assistant, 10) == []
    finally:
        assert assistant.close(timeout=60)


def test_what_a_chat_taught_is_read_and_undone_through_the_operations(hearth: Hearth) -> None:
    assistant = Assistant.start(hearth, provider=noting())
    try:
        *_events, result = chats.send(assistant, None, "My sister Priya lives in Lisbon",
                                      models.CancelToken())
        assert assistant.learning.drain(timeout=60) and chats.learning_settled(assistant)
        [(interaction_id, items)] = chats.learned(hearth, result.session_id).items()
        assert {item.key for item in items} == {"sister_name", "sister_home_city"}
        city = next(item for item in items if item.key == "sister_home_city")
        heard = told(hearth)
        unlearned = chats.undo_learned(hearth, city.event_id)
        assert touched(heard, Domain.FACTS) and is_frozen(unlearned)
        assert unlearned.item.state == "undone" and hearth.facts.get("sister_home_city") is None
        with pytest.raises(HearthError):  # its record went with the fact it added
            chats.undo_learned(hearth, city.event_id)
        assert [item.key for item in chats.learned(hearth, result.session_id)[
            interaction_id]] == ["sister_name"]
    finally:
        assert assistant.close(timeout=60)


# --- consolidation -------------------------------------------------------------------------------


def test_a_dream_is_reviewed_and_undone_through_its_operations(hearth: Hearth) -> None:
    ids = prepare(hearth)
    seen: list[tuple[int, int, str]] = []
    heard = told(hearth)
    outcome = consolidation.dream(hearth, dreaming_model(),
                                  progress=lambda *step: seen.append(step))
    assert outcome.kind == consolidation.DREAM and not outcome.cancelled and is_frozen(outcome)
    assert touched(heard, Domain.MEMORIES, Domain.ABOUT_YOU, Domain.RUNS)
    assert "marathon" in outcome.about_you_diff  # the dream's reflection rewrote a section
    assert seen and all(total > 0 for _done, total, _label in seen)

    [away] = consolidation.unreviewed(hearth)
    assert away.run_id == outcome.report.run_id and is_frozen(away)
    assert [run.id for run in consolidation.runs(hearth, "dream")] == [away.run_id]
    heard.clear()
    consolidation.mark_reviewed(hearth, [away.run_id])
    consolidation.mark_reviewed(hearth, [])
    assert heard == [Changes.of(Domain.RUNS)]
    assert consolidation.unreviewed(hearth) == []

    merged = next(change for change in away.changes if change.kind == "merged")
    heard.clear()
    undone = consolidation.undo_change(hearth, away.run_id, merged.index)
    assert [change.index for change in undone.undone] == [merged.index]
    assert undone.run.changes[merged.index].undone and touched(heard, Domain.MEMORIES)
    with hearth.storage.read() as session:
        assert all(session.get(Memory, memory_id).is_valid for memory_id in ids["marathon"])

    rest = consolidation.undo_run(hearth, away.run_id)
    assert rest.run.open_changes == [] and merged.index not in [
        change.index for change in rest.undone]
    assert consolidation.changes_of(hearth, away.run_id) == rest.run


def test_a_reflection_by_its_operation_reports_the_profile_it_changed(hearth: Hearth) -> None:
    prepare(hearth)
    outcome = consolidation.reflect(hearth, ScriptedLLM([REFLECTION]))
    assert outcome.kind == consolidation.REFLECT
    assert "+Wants to run the Porto marathon in May." in outcome.about_you_diff


def test_the_event_queue_and_its_retry(hearth: Hearth) -> None:
    queue = consolidation.queue(hearth)
    assert queue == consolidation.Queue((), 0)
    assert consolidation.retry_failed_events(hearth) == Done(0, Changes())
    with pytest.raises(HearthError):
        consolidation.retry_event(hearth, 12345)


# --- models ------------------------------------------------------------------------------------


def test_ollama_is_surveyed_and_a_model_pulled_through_the_operations(hearth: Hearth) -> None:
    with FakeOllama(models=["llama3.2:3b"], pull_steps=3) as server:
        survey = models.survey_ollama(hearth.settings, server.url, "llama3.2:3b")
        assert survey.running and survey.has_model and is_frozen(survey)
        assert [model.name for model in survey.models] == ["llama3.2:3b"]
        missing = models.survey_ollama(hearth.settings, server.url, "qwen2.5:7b")
        assert missing.running and not missing.has_model

        steps: list[tuple[str, int | None, int | None]] = []
        pulled = models.pull_model(hearth.settings, server.url, "qwen2.5:7b",
                                   lambda *step: steps.append(step))
        assert pulled == models.Pulled("qwen2.5:7b", server.url, configured=False)
        assert any(total for _status, _done, total in steps)
        assert models.survey_ollama(hearth.settings, server.url, "qwen2.5:7b").has_model

        hearth.settings.ollama_host, hearth.settings.ollama_model = server.url, "mistral"
        assert models.pull_model(hearth.settings, server.url, "mistral:latest",
                                 lambda *_step: None).configured
        address = server.url
    gone = models.survey_ollama(hearth.settings, address, "llama3.2")
    assert not gone.running and gone.models == () and gone.detail


def test_addresses_and_model_files_are_judged_in_sentences(tmp_path: Path) -> None:
    assert models.host_problem("localhost:11434") is None
    assert "port" in (models.host_problem("http://localhost:99999") or "")
    not_gguf = tmp_path / "model.gguf"
    not_gguf.write_bytes(b"nope")
    assert models.embedded_model_problem(not_gguf) == f"{not_gguf} is not a GGUF model file."
    assert models.same_model("llama3.2", "llama3.2:latest")


def test_vectors_from_another_model_are_counted_and_rebuilt(hearth: Hearth, embedder) -> None:
    hearth.memories.add("Ana swims on Tuesdays.", source="manual")
    assert models.count_stale_vectors(hearth) == models.StaleVectors(embedder.model_id, 0)
    with hearth.storage.write() as session:
        session.execute(update(Memory).values(embedding_model="an-older-model"))
    assert models.count_stale_vectors(hearth).count == 1
    heard = told(hearth)
    rebuilt = models.rebuild_vectors(hearth)
    assert rebuilt == models.Rebuilt(1, None) and touched(heard, Domain.MEMORIES)
    assert models.count_stale_vectors(hearth).count == 0
    assert models.embedding_model_in_use(hearth) == embedder.model_dir
    assert models.check_embedding_model(embedder.model_dir, 1)
    with pytest.raises(HearthError):
        models.check_embedding_model(Path("/nonexistent/model"), 1)


# --- settings ------------------------------------------------------------------------------------


def test_a_saved_setting_is_stored_applied_and_named(hearth: Hearth) -> None:
    heard = told(hearth)
    saved = settings.save(hearth, dream_time="04:30")
    assert saved.fields == {"dream_time"} and not saved.model_changed and is_frozen(saved)
    assert saved.changes == Changes.of(Domain.SETTINGS, Domain.SCHEDULE) == heard[0]
    assert hearth.settings.dream_time == "04:30"
    assert load_settings(hearth.paths).dream_time == "04:30"

    model = settings.save(hearth, ollama_model="qwen2.5:7b")
    assert model.model_changed and model.changes == Changes.of(Domain.SETTINGS)

    with pytest.raises(ValueError):
        settings.save(hearth, dream_time="25:99")
    assert hearth.settings.dream_time == "04:30"  # a refused value changes nothing

    copy = settings.read(hearth)
    copy.dream_time = "01:00"
    assert hearth.settings.dream_time == "04:30"


# --- data ----------------------------------------------------------------------------------------


def test_backup_export_and_import_through_the_operations(hearth: Hearth, embedder,
                                                         tmp_path: Path) -> None:
    hearth.memories.add("Ana swims on Tuesdays.", source="manual")
    made = data.backup(hearth)
    assert made.path.is_file() and made.path.parent == hearth.paths.backups and is_frozen(made)

    exported = data.export(hearth, tmp_path / "out.json")
    assert exported.counts["memories"] == 1 and is_frozen(exported)
    assert exported.warning is None  # a private folder: nobody else can read it
    with pytest.raises(InvalidInputError):
        data.export(hearth, hearth.paths.database)

    with Hearth.open(tmp_path / "elsewhere", embedder=embedder) as other:
        steps: list[tuple[int, int]] = []
        heard = told(other)
        imported = data.import_file(other, tmp_path / "out.json",
                                    progress=lambda *step: steps.append(step))
        assert imported.counts["memories"] == 1 and imported.stopped_at is None
        assert touched(heard, Domain.MEMORIES)
        assert steps and steps[-1][0] == steps[-1][1]
        assert other.memories.count() == 1
