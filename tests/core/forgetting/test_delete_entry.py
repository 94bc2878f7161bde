"""Deleting one entry is not erasing words: a delete removes the fact (the memories, the
note) alone, touches nothing else and can be undone until its window ends; an erase
rewrites the words where the person ticked, never another fact unless asked
(``core.forgetting.recently_deleted``, ``core.forgetting.preview``).

The case that made the difference matter: the first message "My sister Priya lives in
Lisbon and works as a nurse" left a junk fact ``priya: Lisbon`` beside the right one,
``sister_home_city: Lisbon``. Deleting the junk one rewrote the right fact, the message,
the chat's title and the learning note as ``[forgotten]``, with no way back."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from core.app import Hearth
from cli.main import run
from core.errors import InvalidInputError, NotFoundError
from core.forgetting.matching import PLACEHOLDER
from core.forgetting.recently_deleted import UNDO_WINDOW
from core.learning.events import add_event
from core.storage.orm import (
    ChatSession,
    ContextEvent,
    DeletedEntry,
    FactHistory,
    Interaction,
    Memory,
    MemoryEdge,
    UserFact,
    utcnow,
)
from core.storage.port import IndexedKind, SearchFilters
from core.transfer.transcript import import_transcript
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)

MESSAGE = "My sister Priya lives in Lisbon and works as a nurse."


def rows(hearth: Hearth, model: type) -> list[Any]:
    with hearth.storage.read() as session:
        found = list(session.scalars(select(model).order_by(model.id)))
        session.expunge_all()
    return found


def first_message(hearth: Hearth) -> int:
    """The exchange, its chat, and what learning took from it: a junk fact and a right
    one, each with its learning record (the chat's "Remembered: …" line)."""
    with hearth.storage.write() as session:
        session.add(ChatSession(id="chat-1", title="Priya in Lisbon"))
        session.flush()
        exchange = Interaction(session_id="chat-1", user_message=MESSAGE,
                               agent_response="How lovely! Does she like the city?")
        session.add(exchange)
        session.flush()
        exchange_id = exchange.id
    hearth.facts.remember("priya", "Lisbon", source="learning")
    hearth.facts.remember("sister_home_city", "Porto", category="location", source="learning")
    hearth.facts.remember("sister_home_city", "Lisbon", category="location", source="learning")
    for key in ("priya", "sister_home_city"):
        add_event(hearth.storage, "fact", f"{key}: Lisbon",
                  {"fact_key": key, "interaction_id": exchange_id, "session_id": "chat-1"})
    return exchange_id


def fact_hits(hearth: Hearth, text: str) -> list[int]:
    vector = hearth.embedder.embed_query(text)
    with hearth.storage.read() as session:
        return [hit.id for hit in hearth.storage.search.vector_search(
            session, IndexedKind.FACT, vector, SearchFilters(), 5)]


def test_deleting_a_junk_fact_touches_nothing_else_and_can_be_undone(hearth: Hearth) -> None:
    first_message(hearth)
    junk = hearth.facts.get("priya")
    assert junk is not None and junk.id in fact_hits(hearth, "priya Lisbon")

    deleted = hearth.deleted.delete_fact("Priya")
    assert (deleted.kind, deleted.title, deleted.count) == ("fact", "priya: Lisbon", 1)
    assert deleted.purge_after - deleted.deleted_at == UNDO_WINDOW

    assert [(f.key, f.value) for f in rows(hearth, UserFact)] == [("sister_home_city",
                                                                   "Lisbon")]
    assert [h.value for h in rows(hearth, FactHistory)] == ["Porto"]
    (exchange,) = rows(hearth, Interaction)
    assert exchange.user_message == MESSAGE
    assert rows(hearth, ChatSession)[0].title == "Priya in Lisbon"
    assert [e.content for e in rows(hearth, ContextEvent)] == ["sister_home_city: Lisbon"]
    assert junk.id not in fact_hits(hearth, "priya Lisbon")
    assert PLACEHOLDER not in json.dumps([e.rows for e in rows(hearth, DeletedEntry)])

    restored = hearth.deleted.restore(deleted.id)
    assert (restored.kind, restored.note) == ("fact", "")
    back = hearth.facts.get("priya")
    assert back is not None and (back.value, back.source) == ("Lisbon", "learning")
    assert back.id in fact_hits(hearth, "priya Lisbon")  # embedded again
    assert sorted(e.content for e in rows(hearth, ContextEvent)) == [
        "priya: Lisbon", "sister_home_city: Lisbon"]
    assert rows(hearth, DeletedEntry) == []
    with pytest.raises(NotFoundError, match="can no longer be brought back"):
        hearth.deleted.restore(deleted.id)


def test_a_fact_set_again_meanwhile_gets_the_deleted_values_as_its_earlier_ones(
        hearth: Hearth) -> None:
    hearth.facts.remember("home_city", "Porto")
    hearth.facts.remember("home_city", "Lisbon")
    deleted = hearth.deleted.delete_fact("home_city")
    hearth.facts.remember("home_city", "Madrid")

    restored = hearth.deleted.restore(deleted.id)
    assert "put back as its earlier values" in restored.note
    assert hearth.facts.get("home_city").value == "Madrid"
    assert sorted(h.value for h in hearth.facts.history("home_city")) == ["Lisbon", "Porto"]


def test_an_entry_is_purged_when_its_undo_ends(hearth: Hearth) -> None:
    hearth.facts.remember("locker_code", "4471")
    deleted = hearth.deleted.delete_fact("locker_code")
    assert hearth.deleted.purge_expired(now=utcnow() + UNDO_WINDOW - timedelta(seconds=5)) == 0
    assert [item.id for item in hearth.deleted.listed()] == [deleted.id]

    assert hearth.deleted.purge_expired(now=utcnow() + UNDO_WINDOW + timedelta(seconds=1)) == 1
    assert rows(hearth, DeletedEntry) == []
    with pytest.raises(NotFoundError):
        hearth.deleted.restore(deleted.id)
    assert hearth.facts.get("locker_code") is None


def test_memories_come_back_with_their_links_and_what_they_replaced(hearth: Hearth) -> None:
    first, second, third = (hearth.memories.add(text).id for text in (
        "The user plays the cello on Sundays.", "The user's cello teacher is Mrs Okafor.",
        "The user took cello lessons."))
    with hearth.storage.write() as session:
        session.add(MemoryEdge(from_id=first, to_id=second, kind="knn", weight=0.8))
        session.get(Memory, third).superseded_by = second

    deleted = hearth.deleted.delete_memories([second])
    assert [m.id for m in rows(hearth, Memory)] == [first, third]
    assert rows(hearth, MemoryEdge) == []
    assert rows(hearth, Memory)[1].superseded_by is None

    restored = hearth.deleted.restore(deleted.id)
    (back,) = restored.ids
    assert [(e.from_id, e.to_id) for e in rows(hearth, MemoryEdge)] == [(first, back)]
    assert {m.id: m.superseded_by for m in rows(hearth, Memory)}[third] == back
    vector = hearth.embedder.embed_query("who teaches the user the cello")
    with hearth.storage.read() as session:
        found = hearth.storage.search.vector_search(session, IndexedKind.MEMORY, vector,
                                                    SearchFilters(), 1)
    assert [hit.id for hit in found] == [back]  # embedded again


def test_an_imported_message_deleted_stays_out_of_a_reimport_until_its_delete_is_undone(
        hearth: Hearth, tmp_path: Path) -> None:
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps({
        "conversation_id": "c1", "participants": ["user", "assistant"],
        "sessions": [{"session_id": "s1", "started_at": "2026-02-01T09:00:00+00:00",
                      "turns": [{"turn_id": "t1", "speaker": "user", "text": MESSAGE}]}]}))
    import_transcript(transcript, hearth.storage, hearth.memories)
    (memory,) = rows(hearth, Memory)
    deleted = hearth.deleted.delete_memories([memory.id])

    again = import_transcript(transcript, hearth.storage, hearth.memories)
    assert rows(hearth, Memory) == [] and again.forgotten == 1

    hearth.deleted.restore(deleted.id)
    assert [m.content for m in rows(hearth, Memory)] == [f"user: {MESSAGE}"]
    hearth.deleted.delete_memories([rows(hearth, Memory)[0].id])
    hearth.deleted.restore(hearth.deleted.listed()[0].id)
    import_transcript(transcript, hearth.storage, hearth.memories)
    assert len(rows(hearth, Memory)) == 1  # back once, never twice


def test_an_erase_leaves_another_fact_unless_it_is_ticked(hearth: Hearth) -> None:
    exchange_id = first_message(hearth)
    preview = hearth.forgetting.preview("priya")
    by_token = {place.token: place for place in preview.found}
    message = by_token[f"interactions:{exchange_id}"]
    assert message.ticked and message.where == "your message in the chat “Priya in Lisbon”"
    assert [str(excerpt) for excerpt in message.excerpts] == [
        "My sister Priya lives in «Lisbon» and works as a nurse."]
    other = [place for place in preview.found if not place.ticked]
    assert {place.where for place in other} == {
        "the fact “sister home city”", "what learning noted about “sister home city”"}

    with pytest.raises(InvalidInputError, match="not among the places"):
        hearth.forgetting.forget("priya", skip=["interactions:999"])
    assert hearth.facts.get("priya") is not None  # a typo erased nothing

    report = hearth.forgetting.forget("priya", skip=[message.token]).report
    assert hearth.facts.get("priya") is None
    assert hearth.facts.get("sister_home_city").value == "Lisbon"
    assert rows(hearth, Interaction)[0].user_message == MESSAGE  # kept, as chosen
    assert rows(hearth, ChatSession)[0].title == f"Priya in {PLACEHOLDER}"
    assert report.kept == {"chat messages": 1, "other facts": 1, "events": 1}


def test_an_erase_rewrites_another_fact_when_it_is_included(hearth: Hearth) -> None:
    first_message(hearth)
    other = next(place.token for place in hearth.forgetting.preview("priya").found
                 if place.where == "the fact “sister home city”")
    hearth.forgetting.forget("priya", include=[other])
    assert hearth.facts.get("sister_home_city").value == PLACEHOLDER


def test_an_erase_reaches_a_recently_deleted_entry_too(hearth: Hearth) -> None:
    hearth.facts.remember("locker_code", "Qzvrt-4471")
    hearth.facts.remember("gym_locker", "Qzvrt-4471")
    deleted = hearth.deleted.delete_fact("gym_locker")
    hearth.forgetting.forget("locker_code")
    assert "Qzvrt" not in json.dumps([e.rows for e in rows(hearth, DeletedEntry)])
    hearth.deleted.restore(deleted.id)
    assert hearth.facts.get("gym_locker").value == PLACEHOLDER


# --- the command ------------------------------------------------------------------------------


def hearth_cli(capsys: pytest.CaptureFixture[str], home: Path, *args: str) -> tuple[int, str]:
    code = run(["--home", str(home), *args])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return code, captured.out + captured.err


def test_the_commands_name_the_two_acts_plainly(capsys, migrated_home: Path) -> None:
    for args in (["facts", "set", "priya", "Lisbon"],
                 ["facts", "set", "sister_home_city", "Lisbon", "--category", "location"]):
        assert hearth_cli(capsys, migrated_home, *args)[0] == 0
    code, said = hearth_cli(capsys, migrated_home, "facts", "delete", "priya")
    assert code == 0
    assert "Deleted the fact “priya: Lisbon”. Nothing else changed." in said
    assert "`hearth deleted restore 1`" in said
    assert "`hearth facts forget priya --preview`" in said

    code, said = hearth_cli(capsys, migrated_home, "deleted", "--json")
    assert [item["title"] for item in json.loads(said)] == ["priya: Lisbon"]
    assert hearth_cli(capsys, migrated_home, "deleted", "restore", "1")[0] == 0

    code, said = hearth_cli(capsys, migrated_home, "facts", "forget", "priya", "--preview")
    assert code == 0
    assert "An erase cannot be undone." in said
    assert "[ ] user_facts:" in said and "(another fact: left unless --include)" in said
    code, said = hearth_cli(capsys, migrated_home, "facts", "forget", "priya", "--yes")
    assert code == 0 and "It cannot be brought back." in said
    assert "Left as they were: 1 place (other facts 1)." in said
    code, said = hearth_cli(capsys, migrated_home, "facts", "list", "--json")
    assert [(f["key"], f["value"]) for f in json.loads(said)] == [("sister_home_city",
                                                                   "Lisbon")]


def test_an_import_brings_back_what_was_removed_only_when_asked(capsys, migrated_home: Path,
                                                                   tmp_path: Path) -> None:
    transcript = tmp_path / "t.json"
    transcript.write_text(json.dumps({
        "conversation_id": "c1", "participants": ["user", "assistant"],
        "sessions": [{"session_id": "s1", "started_at": "2026-02-01T09:00:00+00:00",
                      "turns": [{"turn_id": "t1", "speaker": "user", "text": MESSAGE}]}]}))
    assert hearth_cli(capsys, migrated_home, "import", "transcript", str(transcript))[0] == 0
    assert hearth_cli(capsys, migrated_home, "memories", "forget", "1", "--yes")[0] == 0

    code, said = hearth_cli(capsys, migrated_home, "import", "transcript", str(transcript))
    assert code == 0 and "1 message left out because you deleted it before (the same " \
        "command with --include-removed brings them back)." in said
    code, said = hearth_cli(capsys, migrated_home, "import", "transcript", str(transcript),
                            "--include-removed", "--json")
    assert json.loads(said)["memories_created"] == 1
    code, said = hearth_cli(capsys, migrated_home, "search", "sister Priya nurse", "--json")
    assert [result["text"] for result in json.loads(said)] == [f"user: {MESSAGE}"]
