"""``hearth import transcript``: sessions, turns and memories; idempotent; all-or-nothing."""

from __future__ import annotations

import copy
import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from core.embedding import EmbeddingCancelled
from core.embedding.chunking import MAX_CHUNKED_CHARS
from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.storage.orm import ChatSession, Interaction, Memory
from core.storage.port import IndexedKind
from core.transfer import turns
from core.transfer.transcript import ImportReport, import_transcript
from support.interrupted import Killed, KilledAfter
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from support.row_counts import row_counts

TRANSCRIPT: dict[str, Any] = {
    "conversation_id": "maya-sam",
    "participants": ["Maya", "Sam"],
    "sessions": [
        {
            "session_id": "s1",
            "started_at": "2024-03-02T18:30:00+01:00",
            "turns": [
                {"turn_id": "D1:1", "speaker": "Maya", "text": "I moved to Porto last week."},
                {"turn_id": "D1:2", "speaker": "Sam", "text": "Nice! How is the flat? 🏠"},
                {"turn_id": "D1:3", "speaker": "Maya", "text": "Small, but it has a view.",
                 "timestamp": "2024-03-02T18:45:00+01:00"},
            ],
        },
        {
            "session_id": "s2",
            "started_at": "2024-03-09T09:00:00",  # naive: taken as UTC
            "turns": [
                {"turn_id": "D2:1", "speaker": "Sam", "text": "Did you find a café nearby?"},
                {"turn_id": "D2:2", "speaker": "Maya", "text": "Yes — Café Çandeia, ☕ " * 3},
            ],
        },
    ],
}


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


def write(tmp_path: Path, data: Any, name: str = "transcript.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_import_creates_sessions_interactions_and_turn_memories(tmp_path, storage,
                                                                memories) -> None:
    report = import_transcript(write(tmp_path, TRANSCRIPT), storage, memories)

    assert report == ImportReport(sessions=2, turns=5, interactions_created=5,
                                  memories_created=5, skipped_existing=0)
    with storage.read() as session:
        sessions = {s.id: s for s in session.scalars(select(ChatSession))}
        interactions = {i.external_id: i for i in session.scalars(select(Interaction))}
        stored = {m.origin["turn_id"]: m for m in session.scalars(select(Memory))}
        session.expunge_all()

    s1 = sessions["import:maya-sam:s1"]
    assert (s1.source, s1.conversation_id) == ("import", "maya-sam")
    assert s1.started_at == datetime(2024, 3, 2, 17, 30, tzinfo=timezone.utc)
    assert s1.last_message_at == datetime(2024, 3, 2, 17, 45, tzinfo=timezone.utc)
    assert sessions["import:maya-sam:s2"].started_at == datetime(2024, 3, 9, 9,
                                                                 tzinfo=timezone.utc)

    turn = interactions["turn:maya-sam:D1:2"]
    assert (turn.user_message, turn.speaker, turn.channel) == (
        "Nice! How is the flat? 🏠", "Sam", "import")
    assert turn.created_at == s1.started_at + timedelta(seconds=1)
    assert turn.session_id == s1.id

    memory = stored["D1:1"]
    assert memory.content == "Maya: I moved to Porto last week."
    assert (memory.memory_type, memory.namespace, memory.source) == (
        "episodic", "import/maya-sam", "import")
    assert memory.created_at == s1.started_at
    assert memory.interaction_id == interactions["turn:maya-sam:D1:1"].id
    assert memory.session_id == s1.id
    assert memory.external_id == "turn:maya-sam:D1:1"
    assert memory.origin == {"conversation_id": "maya-sam", "session_id": "s1",
                             "turn_id": "D1:1", "speaker": "Maya",
                             "import_batch": report.batch}
    assert stored["D1:3"].created_at == datetime(2024, 3, 2, 17, 45, tzinfo=timezone.utc)
    assert stored["D2:2"].content.startswith("Maya: Yes — Café Çandeia, ☕")
    assert all(m.embedding_model for m in stored.values())


def test_reimport_changes_nothing(tmp_path, storage, memories) -> None:
    path = write(tmp_path, TRANSCRIPT)
    import_transcript(path, storage, memories)
    before = row_counts(storage)

    again = import_transcript(path, storage, memories)

    assert again == ImportReport(sessions=2, turns=5, interactions_created=0,
                                 memories_created=0, skipped_existing=5)
    assert row_counts(storage) == {**before, "import_runs": before["import_runs"] + 1}


def test_a_cancelled_import_is_completed_by_importing_again(storage, memories) -> None:
    with pytest.raises(EmbeddingCancelled):
        import_transcript(TRANSCRIPT, storage, memories, cancel=lambda: True)
    assert (row_counts(storage)["interactions"], row_counts(storage)["memories"]) == (5, 0)

    report = import_transcript(TRANSCRIPT, storage, memories)

    assert (report.interactions_created, report.memories_created,
            report.skipped_existing) == (0, 5, 0)
    assert row_counts(storage)["memories"] == 5


def test_an_import_killed_between_its_transactions_is_completed_without_duplicates(
        storage, memories, monkeypatch) -> None:
    """The turns are written in short transactions (so nobody waits long for the import):
    killed after the first, the import keeps those turns and the next run adds the rest."""
    monkeypatch.setattr(turns, "WritePacer",
                        lambda store: KilledAfter(store, transactions=1, first_size=2))
    with pytest.raises(Killed):
        import_transcript(TRANSCRIPT, storage, memories)
    assert (row_counts(storage)["interactions"], row_counts(storage)["memories"]) == (2, 0)
    monkeypatch.undo()

    report = import_transcript(TRANSCRIPT, storage, memories)

    assert (report.interactions_created, report.memories_created) == (3, 5)
    with storage.read() as session:
        external_ids = session.scalars(select(Interaction.external_id)).all()
    assert sorted(external_ids) == sorted(f"turn:maya-sam:{turn}" for turn in
                                          ("D1:1", "D1:2", "D1:3", "D2:1", "D2:2"))


def test_conversations_that_reuse_turn_ids_import_side_by_side(storage, memories) -> None:
    import_transcript(TRANSCRIPT, storage, memories)
    other = copy.deepcopy(TRANSCRIPT)
    other["conversation_id"] = "someone-else"

    report = import_transcript(other, storage, memories)

    assert report.memories_created == report.turns == 5
    with storage.read() as session:
        cited = sorted((m.origin["conversation_id"], m.origin["turn_id"])
                       for m in session.scalars(select(Memory)))
    assert cited.count(("maya-sam", "D1:1")) == cited.count(("someone-else", "D1:1")) == 1


def broken(change) -> dict[str, Any]:
    data = copy.deepcopy(TRANSCRIPT)
    change(data)
    return data


@pytest.mark.parametrize("data, position", [
    (broken(lambda d: d["sessions"][1]["turns"][1].pop("text")),
     "sessions[1].turns[1].text is missing"),
    (broken(lambda d: d["sessions"][0]["turns"][2].update(text="   ")),
     "sessions[0].turns[2].text is empty"),
    (broken(lambda d: d["sessions"][0]["turns"][0].update(speaker=7)),
     "sessions[0].turns[0].speaker must be a string"),
    (broken(lambda d: d["sessions"][1].update(started_at="last Tuesday")),
     "sessions[1].started_at must be an ISO-8601 date-time string"),
    (broken(lambda d: d["sessions"][1].update(started_at=1700000000)),
     "sessions[1].started_at must be an ISO-8601 date-time string"),
    (broken(lambda d: d["sessions"][0].update(turns={"turn_id": "x"})),
     "sessions[0].turns must be a list"),
    (broken(lambda d: d.pop("conversation_id")), "conversation_id is missing"),
    (broken(lambda d: d.update(sessions=[])), "sessions must not be empty"),
    (broken(lambda d: d["sessions"][1]["turns"][0].update(turn_id="D1:2")),
     "sessions[1].turns[0].turn_id repeats sessions[0].turns[1].turn_id"),
    (broken(lambda d: d["sessions"][1].update(session_id="s1")),
     "sessions[1].session_id repeats sessions[0].session_id"),
    (broken(lambda d: d["sessions"][1].update(session_id="x" * 60)),
     "sessions[1].session_id is too long"),
    ([TRANSCRIPT], "the transcript must be an object"),
])
def test_malformed_transcripts_name_the_position_and_import_nothing(
        tmp_path, storage, memories, data, position) -> None:
    with pytest.raises(InvalidInputError) as error:
        import_transcript(write(tmp_path, data), storage, memories)
    assert position in str(error.value)
    assert set(row_counts(storage).values()) == {0}


def test_every_problem_is_reported_at_once(storage, memories) -> None:
    data = broken(lambda d: (d["sessions"][0]["turns"][0].pop("speaker"),
                             d["sessions"][1]["turns"][1].pop("turn_id")))
    with pytest.raises(InvalidInputError) as error:
        import_transcript(data, storage, memories)
    assert "sessions[0].turns[0].speaker is missing" in str(error.value)
    assert "sessions[1].turns[1].turn_id is missing" in str(error.value)


def test_files_that_are_not_json(tmp_path, storage, memories) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"conversation_id": "x",', encoding="utf-8")
    with pytest.raises(InvalidInputError, match="not valid JSON.*line 1"):
        import_transcript(path, storage, memories)
    path.write_bytes(b'{"conversation_id": "caf\xe9"}')  # Latin-1
    with pytest.raises(InvalidInputError, match="UTF-8"):
        import_transcript(path, storage, memories)
    with pytest.raises(InvalidInputError, match="does not exist"):
        import_transcript(tmp_path / "missing.json", storage, memories)


def test_a_huge_turn_imports(storage, memories) -> None:
    """A megabyte turn, past every size limit (one inference, the chunked prefix). Its words
    are longer than the tokenizer's longest word, so each is one token and its 200,000
    chunked characters make 8 windows to embed rather than 310 of "word word ...": the size
    is the point here, many windows are ``test_chunking.py``'s."""
    huge = ("x" * 150 + " ") * 6600
    assert len(huge) > 4 * MAX_CHUNKED_CHARS
    data = broken(lambda d: d["sessions"][0]["turns"][0].update(text=huge))
    data["sessions"] = data["sessions"][:1]
    report = import_transcript(data, storage, memories)
    assert report.memories_created == 3


def test_turns_are_embedded_as_their_views_and_reembedding_keeps_them(storage, embedder,
                                                                        memories) -> None:
    """A turn's vector is the mean of its dated and windowed views, not its bare text; the
    backfill (a model change, ``hearth reembed``) rebuilds exactly the same vector."""
    import numpy as np
    from sqlalchemy import text as sql

    from core.embedding.reembed import backfill_embeddings

    import_transcript(TRANSCRIPT, storage, memories)

    def vectors() -> dict[str, np.ndarray]:
        with storage.read() as session:
            ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY, valid_only=False)
            content = dict(session.execute(sql("SELECT id, content FROM memories")).all())
        return {content[row_id]: vector
                for row_id, vector in zip(ids.tolist(), matrix, strict=True)}

    imported = vectors()
    turn = "Maya: Small, but it has a view."
    bare = embedder.embed_documents([turn])[0]
    dated = embedder.embed_documents(["Session of 2 March 2024, Maya said: Small, but it has a "
                                      "view."])[0]
    assert float(imported[turn] @ bare) < 0.99  # not the bare text's vector
    assert float(imported[turn] @ dated) > float(imported[turn] @ bare) - 0.2

    with storage.write() as session:  # as after a model change: every vector is stale
        session.execute(sql("UPDATE memories SET embedding_model = NULL"))
    assert backfill_embeddings(storage, embedder)[IndexedKind.MEMORY] == 5
    for content, vector in vectors().items():
        assert np.allclose(vector, imported[content], atol=1e-6), content
