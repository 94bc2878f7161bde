"""A deleted imported turn or note never comes back: importing the same (or a newer)
export, transcript or notes folder again leaves it out and says so; only a hash of its
external id is kept, never its words."""

from __future__ import annotations

import shutil
from types import SimpleNamespace
from pathlib import Path

import pytest
from sqlalchemy import select

from core.home.paths import HearthPaths
from core.forgetting.imported import key_hash
from core.forgetting.service import ForgetService
from core.knowledge.memories import MemoryService
from core.storage import former_names
from core.storage.sqlite.engine import dbapi_module
from core.storage.orm import (
    AuditEntry,
    ChatSession,
    ForgottenImport,
    ImportRun,
    Interaction,
    Memory,
)
from core.transfer import batches
from core.transfer.chat_export import import_chat_export
from core.transfer.chatgpt import CHATGPT
from core.transfer.claude import CLAUDE
from core.transfer.notes import import_notes
from core.transfer.transcript import import_transcript
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)

DATA = Path(__file__).parents[2] / "data"
CHATGPT_FILE = DATA / "chat_exports" / "chatgpt-conversations.json"
CLAUDE_FILE = DATA / "chat_exports" / "claude-conversations.json"
TRANSCRIPT = {"conversation_id": "maya-sam", "participants": ["Maya", "Sam"], "sessions": [
    {"session_id": "s1", "started_at": "2024-03-02T18:30:00+01:00", "turns": [
        {"turn_id": "D1:1", "speaker": "Maya", "text": "I moved to Porto last week."},
        {"turn_id": "D1:2", "speaker": "Sam", "text": "Nice! How is the flat?"}]}]}


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


@pytest.fixture
def forgetting(storage, embedder, tmp_path) -> ForgetService:
    home = tmp_path / "home"
    home.mkdir()
    return ForgetService(storage, embedder, HearthPaths(home))


def memory_rows(storage) -> dict[str, tuple[int, str]]:
    with storage.read() as session:
        return {row.external_id: (row.id, row.content) for row in session.execute(
            select(Memory.id, Memory.external_id, Memory.content))}


@pytest.mark.parametrize("service, path", [(CHATGPT, CHATGPT_FILE), (CLAUDE, CLAUDE_FILE)],
                         ids=["chatgpt", "claude"])
def test_a_deleted_chat_turn_stays_out_of_every_later_import(storage, memories, forgetting,
                                                             service, path) -> None:
    first = import_chat_export(path, service, storage, memories)
    stored = memory_rows(storage)
    gone_key, (gone_id, gone_text) = min(item for item in stored.items()
                                         if item[0].startswith("turn:"))

    forgetting.delete_memories([gone_id])
    again = import_chat_export(path, service, storage, memories)

    assert again.forgotten == 1
    assert again.memories_created == 0
    assert again.turns == first.turns - 1
    after = memory_rows(storage)
    assert gone_key not in after
    assert gone_text not in {text for _, text in after.values()}
    with storage.read() as session:
        kept = list(session.scalars(select(ForgottenImport.key_sha256)))
    assert kept == [key_hash(gone_key)]  # a hash of ids, not the words


def test_a_deleted_transcript_turn_stays_out_and_the_others_come_back(
        tmp_path, storage, memories, forgetting) -> None:
    import json

    file = tmp_path / "t.json"
    file.write_text(json.dumps(TRANSCRIPT), encoding="utf-8")
    import_transcript(file, storage, memories)
    stored = memory_rows(storage)
    forgetting.delete_memories([row_id for row_id, _ in stored.values()])  # every turn
    # a newer transcript of the same conversation, with one more turn
    newer = json.loads(file.read_text(encoding="utf-8"))
    newer["sessions"][0]["turns"].append(
        {"turn_id": "D1:3", "speaker": "Maya", "text": "It has a view of the river."})
    file.write_text(json.dumps(newer), encoding="utf-8")

    report = import_transcript(file, storage, memories)

    assert (report.forgotten, report.memories_created, report.turns) == (2, 1, 1)
    assert [text for _, text in memory_rows(storage).values()] == [
        "Maya: It has a view of the river."]


def test_a_deleted_note_stays_out_until_it_is_edited(tmp_path, storage, memories,
                                                      forgetting) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(DATA / "notes_vault", vault)
    import_notes(vault, storage, memories)
    with storage.read() as session:
        garden = session.scalar(select(Memory.id).where(
            Memory.origin["path"].as_string() == "Garden.md"))
    assert garden is not None
    forgetting.delete_memories([garden])

    unchanged = import_notes(vault, storage, memories)
    assert (unchanged.forgotten, unchanged.added) == (1, 0)
    with storage.read() as session:
        paths = set(session.scalars(select(Memory.origin["path"].as_string())))
    assert "Garden.md" not in paths

    note = vault / "Garden.md"
    note.write_text(note.read_text(encoding="utf-8") + "\nPlanted basil today.\n",
                    encoding="utf-8")
    edited = import_notes(vault, storage, memories)
    assert (edited.forgotten, edited.added) == (0, 1)


def test_each_import_is_a_run_and_undoing_it_removes_what_it_added(
        tmp_path, storage, memories, forgetting) -> None:
    from core.operations.imports import undo_import

    first = import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)
    second = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    runs = batches.runs(storage)
    assert [(run.id, run.source, run.added, run.present) for run in runs] == [
        (second.batch, "claude", second.memories_created + second.attachments_created,
         second.memories_created + second.attachments_created),
        (first.batch, "chatgpt", first.memories_created, first.memories_created)]

    ids = batches.memories_of(storage, first.batch)
    hearth = SimpleNamespace(storage=storage, forgetting=forgetting)  # what undo_import uses
    undone = undo_import(hearth, first.batch).value
    assert (undone.removed, undone.exchanges, undone.chats) == (len(ids), 13, 3)

    with storage.read() as session:
        services = {origin["service"] for origin in session.scalars(select(Memory.origin))}
        run = session.get(ImportRun, first.batch)
        assert run is not None and run.undone_at is not None
        assert session.scalar(select(AuditEntry.arguments).where(
            AuditEntry.action == "memory.delete"))["count"] == len(ids)
    assert services == {"claude"}
    with storage.read() as session:  # the chats and exchanges it added went too
        chats = set(session.scalars(select(ChatSession.id)))
        exchanges = {key.split(":")[1] for key in session.scalars(
            select(Interaction.external_id))}
    assert chats and all(chat.startswith("import:claude:") for chat in chats)
    assert exchanges == {"claude"}
    again = import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)
    assert (again.memories_created, again.forgotten) == (0, first.memories_created)


def test_the_commands_list_runs_and_undo_one_after_confirmation(capsys, migrated_home) -> None:
    import json

    from cli.main import run

    home = ["--home", str(migrated_home)]
    assert run([*home, "import", "chatgpt", str(CHATGPT_FILE), "--json"]) == 0
    imported = json.loads(capsys.readouterr().out)
    assert run([*home, "imports", "--json"]) == 0
    [listed] = json.loads(capsys.readouterr().out)
    assert (listed["id"], listed["source"], listed["added"], listed["present"]) == (
        imported["batch"], "chatgpt", 13, 13)

    assert run([*home, "imports", "undo", str(listed["id"])]) != 0  # no terminal to ask
    assert "only done when confirmed" in capsys.readouterr().err
    assert run([*home, "imports", "undo", str(listed["id"]), "--yes", "--json"]) == 0
    undone = json.loads(capsys.readouterr().out)
    assert (undone["removed"], undone["exchanges"], undone["chats"]) == (13, 13, 3)
    assert run([*home, "imports", "undo", "99", "--yes"]) != 0
    assert "There is no import run 99." in capsys.readouterr().err

    assert run([*home, "import", "chatgpt", str(CHATGPT_FILE), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["memories_created"], again["forgotten"]) == (0, 13)
    assert run([*home, "imports"]) == 0
    table = capsys.readouterr().out
    assert "removed" in table and "chatgpt" in table


def test_a_deleted_imported_chat_does_not_come_back(hearth) -> None:
    from support.scripted_llm import ScriptedLLM

    from core.storage.orm import ChatSession, Interaction

    first = import_chat_export(CLAUDE_FILE, CLAUDE, hearth.storage, hearth.memories)
    with hearth.storage.read() as session:
        doomed = session.scalars(select(ChatSession.id).order_by(ChatSession.id)).first()
        turns = len(session.scalars(select(Interaction.id).where(
            Interaction.session_id == doomed)).all())
    assert doomed is not None and turns > 0

    hearth.conversation(ScriptedLLM([])).sessions.delete_session(doomed)
    again = import_chat_export(CLAUDE_FILE, CLAUDE, hearth.storage, hearth.memories)

    assert (again.forgotten, again.interactions_created) == (turns, 0)
    assert again.turns == first.turns - turns
    with hearth.storage.read() as session:
        assert session.get(ChatSession, doomed) is None
        assert session.scalars(select(Interaction.id).where(
            Interaction.session_id == doomed)).all() == []


def test_backups_rewritten_without_a_deleted_turn_record_it_too_older_ones_included(
        hearth) -> None:
    import_chat_export(CLAUDE_FILE, CLAUDE, hearth.storage, hearth.memories)
    stored = memory_rows(hearth.storage)
    key, (memory_id, _text) = min(item for item in stored.items()
                                  if item[0].startswith("turn:"))
    current = hearth.backup().path
    older = hearth.backup().path
    with dbapi_module().connect(older) as copy:  # as a backup taken before migration 0016
        # (a rewrite opens it upgraded, so it gets the record too)
        copy.execute("DROP TABLE forgotten_imports")
        copy.execute("DROP TABLE import_runs")
        copy.execute("DROP TABLE agent_tokens")  # migration 0017
        copy.execute("DROP INDEX ix_memories_import_batch")  # migration 0018
        copy.execute("DROP TABLE deleted_entries")  # migration 0020
        copy.execute("DROP TABLE change_log")  # migration 0021
        for column in ("scope", "hidden_categories", "asked_at", "answered_at"):  # 0022
            copy.execute(f"ALTER TABLE agents DROP COLUMN {column}")
        for old, new in former_names.TABLES.items():  # 0023
            copy.execute(f"ALTER TABLE {new} RENAME TO {old}")
        copy.execute("DROP INDEX ix_follow_ups_follow_up_at")
        copy.execute("CREATE INDEX ix_pending_intentions_follow_up_at "
                     "ON pending_intentions (follow_up_at)")
        copy.execute("UPDATE alembic_version SET version_num = '0015'")

    deleted = hearth.forgetting.delete_memories([memory_id])
    rewrites = deleted.remove_from_backups()

    assert sorted((rewrite.path, rewrite.ok) for rewrite in rewrites) == sorted(
        [(current, True), (older, True)])
    for path in (current, older):
        with dbapi_module().connect(f"file:{path}?mode=ro", uri=True) as copy:
            assert copy.execute("SELECT key_sha256 FROM forgotten_imports").fetchall() == [
                (key_hash(key),)]
