"""``hearth import chatgpt`` / ``claude``: the current branch, provenance, idempotent,
resumable, all-or-nothing on bad files."""

from __future__ import annotations

import copy
import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from core.embedding import EmbeddingCancelled
from core.errors import InvalidInputError
from core.knowledge.memories import MemoryService
from core.recall import RecallQuery
from core.storage.orm import ChatSession, Interaction, Memory, MemoryEdge
from core.transfer import turns
from core.transfer.chat_export import ChatImportReport, import_chat_export
from core.transfer.chatgpt import CHATGPT
from core.transfer.claude import CLAUDE
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from support.row_counts import row_counts
from support.interrupted import Killed, KilledAfter

DATA = Path(__file__).parents[2] / "data" / "chat_exports"
CHATGPT_FILE = DATA / "chatgpt-conversations.json"
CLAUDE_FILE = DATA / "claude-conversations.json"
PORTO = "6601a1b2-0c3d-4e5f-8a9b-0c1d2e3f4a5b"
CAT = "3d9a4b32-5e6f-4071-9c2d-3e4f5a6b7c8d"


@pytest.fixture
def memories(storage, embedder) -> MemoryService:
    return MemoryService(storage, embedder)


def load(path: Path) -> list[dict[str, Any]]:
    return json.loads(path.read_text(encoding="utf-8"))


def write(tmp_path: Path, data: Any, name: str = "conversations.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def stored_memories(storage) -> dict[str, Memory]:
    with storage.read() as session:
        rows = {m.origin["message_id"]: m for m in session.scalars(select(Memory))
                if m.external_id.startswith("turn:")}  # attached files: see their own test
        session.expunge_all()
    return rows


# --- ChatGPT ----------------------------------------------------------------------------


def test_chatgpt_keeps_the_current_branch_of_each_conversation_with_its_provenance(
        storage, memories) -> None:
    report = import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)

    assert report == ChatImportReport(service="chatgpt", conversations=3, turns=13,
                                      left_out=9, interactions_created=13,
                                      memories_created=13, skipped_existing=0)
    stored = stored_memories(storage)
    porto = sorted((m for m in stored.values() if m.origin["conversation_id"] == PORTO),
                   key=lambda m: m.created_at)
    # the edited message's branch (900 euros) won over the abandoned one (2000 euros);
    # the hidden system and custom-instruction messages, the python call and its output
    # and the blank message are left out
    assert [m.content for m in porto] == [
        "User: I moved to Porto last week and I need a flat near the river.",
        "ChatGPT: Congratulations! Ribeira and Miragaia are close to the Douro.",
        "User: Sorry, my budget is 900 euros a month. Here is the listing I liked.",
        "ChatGPT: That is 10,800 euros a year; a T1 in Miragaia fits.",
        "User: What do you think of this view from the balcony?",
        "ChatGPT: Lovely: that is the Ponte Luís I at dusk.",
        "ChatGPT: Noted.",
    ]
    budget = stored["u-2"]
    assert budget.origin == {
        "service": "chatgpt", "conversation_id": PORTO,
        "conversation_title": "Moving to Porto 🏠", "message_id": "u-2", "turn_id": "u-2",
        "speaker": "User", "attachments": ["listing-rua-das-flores.pdf"],
        "import_batch": report.batch}
    assert stored["u-3"].origin["attachments"] == ["image"]
    assert (budget.memory_type, budget.source, budget.namespace, budget.external_id) == (
        "episodic", "import", f"import/chatgpt/{PORTO}", f"turn:chatgpt:{PORTO}:u-2")
    assert budget.created_at == datetime(2024, 3, 2, 17, 31, 30, tzinfo=timezone.utc)
    # a message without a time follows the one before it by a second
    assert (stored["a-6"].created_at - stored["a-5"].created_at).total_seconds() == 1
    assert all(m.embedding_model for m in stored.values())
    assert not {"u-2-old", "a-2-old", "a-2", "a-3", "sys-1", "ctx-1", "u-4"} & set(stored)

    unicode = stored["m3"].content
    assert "Zoe\u0308" in unicode and "👩\u200d👩\u200d👧" in unicode
    assert "שלום" in stored["m1"].content and "مرحبا" in stored["m1"].content
    assert stored["d4"].content == "ChatGPT: Here is a cake for Inês's 30th 🎂."

    with storage.read() as session:
        sessions = {s.id: s for s in session.scalars(select(ChatSession))}
        interaction = session.scalars(select(Interaction).where(
            Interaction.external_id == f"turn:chatgpt:{PORTO}:u-1")).one()
        session.expunge_all()
    chat = sessions[f"import:chatgpt:{PORTO}"]
    assert (chat.title, chat.source, chat.conversation_id) == (
        "ChatGPT: Moving to Porto 🏠", "import", f"chatgpt:{PORTO}")
    assert chat.started_at == datetime(2024, 3, 2, 17, 30, tzinfo=timezone.utc)
    assert chat.last_message_at == stored["a-6"].created_at
    assert sessions["import:chatgpt:7702b2c3-1d4e-4f60-9b0c-1d2e3f4a5b6c"].title == (
        "ChatGPT: Untitled")
    assert (interaction.speaker, interaction.channel, interaction.session_id) == (
        "User", "import", chat.id)
    assert stored["u-1"].interaction_id == interaction.id


def test_the_export_zip_is_read_as_it_is(tmp_path, storage, memories) -> None:
    archive = tmp_path / "chatgpt-export.zip"
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as zipped:
        zipped.writestr("chat.html", "<html></html>")
        zipped.write(CHATGPT_FILE, "conversations.json")
        zipped.writestr("user.json", "{}")

    report = import_chat_export(archive, CHATGPT, storage, memories)

    assert (report.conversations, report.memories_created) == (3, 13)


def test_the_same_export_twice_adds_nothing_and_a_newer_one_only_what_is_new(
        tmp_path, storage, memories) -> None:
    import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)
    before = row_counts(storage)
    again = import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)
    assert (again.memories_created, again.interactions_created, again.skipped_existing) == (
        0, 0, 13)
    assert row_counts(storage) == {**before, "import_runs": before["import_runs"] + 1}

    newer = load(CHATGPT_FILE)
    porto = newer[0]
    porto["mapping"]["a-6"]["children"] = ["u-5"]
    porto["mapping"]["u-5"] = {
        "id": "u-5", "parent": "a-6", "children": [], "message": {
            "id": "u-5", "author": {"role": "user"}, "create_time": 1709500000.0,
            "content": {"content_type": "text", "parts": ["I signed the lease today!"]},
            "metadata": {}, "recipient": "all"}}
    porto["current_node"] = "u-5"
    fresh = copy.deepcopy(newer[2])
    fresh.update(conversation_id="9904d4e5-3f60-4b82-9d2e-3f4a5b6c7d8e",
                 id="9904d4e5-3f60-4b82-9d2e-3f4a5b6c7d8e", title="Another one")
    newer.append(fresh)

    report = import_chat_export(write(tmp_path, newer), CHATGPT, storage, memories)

    assert (report.conversations, report.turns, report.memories_created,
            report.interactions_created, report.skipped_existing) == (4, 16, 3, 3, 13)
    with storage.read() as session:
        chat = session.get(ChatSession, f"import:chatgpt:{PORTO}")
        assert chat is not None
        assert chat.last_message_at == datetime.fromtimestamp(1709500000, timezone.utc)
    assert row_counts(storage)["chat_sessions"] == before["chat_sessions"] + 1


def test_a_cancelled_import_is_completed_by_importing_again(storage, memories) -> None:
    with pytest.raises(EmbeddingCancelled):
        import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories, cancel=lambda: True)
    assert row_counts(storage)["memories"] == 0

    report = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)

    assert report.memories_created == report.turns == 8


def test_an_import_killed_between_transactions_resumes_without_duplicates(
        storage, memories, monkeypatch) -> None:
    monkeypatch.setattr(turns, "WritePacer",
                        lambda store: KilledAfter(store, transactions=1, first_size=4))
    with pytest.raises(Killed):
        import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)
    assert (row_counts(storage)["interactions"], row_counts(storage)["memories"]) == (4, 0)
    monkeypatch.undo()

    report = import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories)

    assert (report.interactions_created, report.memories_created) == (9, 13)
    with storage.read() as session:
        keys = session.scalars(select(Interaction.external_id)).all()
    assert len(keys) == len(set(keys)) == 13


def test_progress_counts_turns_up_to_the_whole_export(storage, memories) -> None:
    seen: list[tuple[int, int]] = []
    import_chat_export(CHATGPT_FILE, CHATGPT, storage, memories,
                       progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (13, 13)
    assert {total for _, total in seen} == {13}
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)


# --- Claude -------------------------------------------------------------------------------


def test_claude_keeps_words_of_both_sides_the_current_branch_and_file_names(
        storage, memories) -> None:
    report = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)

    assert (report.conversations, report.turns, report.left_out, report.memories_created) == (
        3, 8, 2, 8)
    stored = stored_memories(storage)
    # text blocks joined; thinking, tool use and tool result left out
    assert stored["c1-m2"].content == (
        "Claude: Drop your bags at the Alfama Patio, then walk up to the Miradouro de Santa "
        "Luzia.\n\nEnd with dinner in Mouraria.")
    assert stored["c1-m1"].origin == {
        "service": "claude", "conversation_id": "1b7e2f10-3c4d-4e5f-9a0b-1c2d3e4f5a6b",
        "conversation_title": "Planning the Lisbon trip ✈️", "message_id": "c1-m1",
        "turn_id": "c1-m1", "speaker": "User", "attachments": ["itinerary.txt"],
        "import_batch": report.batch}
    assert "Alfama Patio" not in stored["c1-m1"].content  # the file's content stays out
    assert "c1-m3" not in stored  # an image without words
    # the older export's flat text, with an offset; a message without a time follows
    assert stored["c2-m1"].content == (
        "User: Mein Arzt heißt Dr. Müller; ist Ibuprofen mit Aspirin ok? 💊")
    assert stored["c2-m1"].created_at == datetime(2023, 11, 2, 20, 15, 5, tzinfo=timezone.utc)
    assert (stored["c2-m3"].created_at - stored["c2-m2"].created_at).total_seconds() == 1
    # the retried reply the user went on from (Smokey) won over the first (Cinder)
    cat = sorted((m for m in stored.values() if m.origin["conversation_id"] == CAT),
                 key=lambda m: m.created_at)
    assert [m.content for m in cat] == [
        "User: Suggest a name for my grey cat.", "Claude: How about Smokey?",
        "User: Smokey it is — the cat is called Smokey now."]
    with storage.read() as session:
        titles = set(session.scalars(select(ChatSession.title)))
    assert titles == {"Claude: Planning the Lisbon trip ✈️", "Claude: Untitled",
                      "Claude: Name for the cat"}


def test_claude_reimport_adds_nothing(storage, memories) -> None:
    import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    before = row_counts(storage)
    report = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    assert (report.memories_created, report.skipped_existing) == (0, 8)
    assert row_counts(storage) == {**before, "import_runs": before["import_runs"] + 1}


# --- bad files ----------------------------------------------------------------------------


def chatgpt_broken(change) -> list[dict[str, Any]]:
    data = load(CHATGPT_FILE)
    change(data)
    return data


def claude_broken(change) -> list[dict[str, Any]]:
    data = load(CLAUDE_FILE)
    change(data)
    return data


def _loop(data) -> None:
    data[1]["mapping"]["m1"]["parent"] = "m3"


@pytest.mark.parametrize("service, data, says", [
    (CHATGPT, chatgpt_broken(lambda d: d[1].pop("mapping")), "[1].mapping is missing"),
    (CHATGPT, chatgpt_broken(lambda d: d[2].update(create_time="yesterday")),
     "[2].create_time must be a number of seconds since 1970"),
    (CHATGPT, chatgpt_broken(lambda d: d[2].update(current_node="nowhere")),
     "[2].current_node names no node of mapping"),
    (CHATGPT, chatgpt_broken(lambda d: d[0]["mapping"]["u-1"]["message"].pop("author")),
     "[0].mapping.u-1.message.author is missing"),
    (CHATGPT, chatgpt_broken(_loop), "[1].mapping.m1.parent leads round in a loop"),
    (CHATGPT, chatgpt_broken(lambda d: (d[2].pop("id"), d[2].pop("conversation_id"))),
     "[2].conversation_id is missing"),
    (CHATGPT, chatgpt_broken(lambda d: d.append(d[0])),
     "[3] repeats the conversation id of [0]"),
    (CHATGPT, chatgpt_broken(lambda d: d[1].update(conversation_id="x" * 60)),
     "[1] has a conversation id longer than"),
    (CLAUDE, claude_broken(lambda d: d[2]["chat_messages"][1].pop("sender")),
     "[2].chat_messages[1].sender is missing"),
    (CLAUDE, claude_broken(lambda d: d[0].update(created_at="3 June")),
     "[0].created_at must be an ISO-8601 date-time string"),
    (CLAUDE, claude_broken(lambda d: d[1]["chat_messages"].append(d[1]["chat_messages"][0])),
     "[1] has the message id 'c2-m1' twice"),
    (CLAUDE, {"conversations": []}, "must be a list of conversations"),
    (CLAUDE, [[1, 2]], "[0] must be an object"),
])
def test_malformed_exports_name_the_position_and_import_nothing(
        tmp_path, storage, memories, service, data, says) -> None:
    """The broken conversation is never the first: nothing before it is imported either."""
    with pytest.raises(InvalidInputError) as error:
        import_chat_export(write(tmp_path, data), service, storage, memories)
    assert says in str(error.value)
    assert "\n" not in str(error.value)
    assert set(row_counts(storage).values()) == {0}


def test_files_that_are_not_an_export(tmp_path, storage, memories) -> None:
    text = CHATGPT_FILE.read_bytes()
    cases = {
        "cut.json": (text[:len(text) // 2], "is not valid JSON (parse error: premature EOF"),
        "latin1.json": (b'[{"uuid": "caf\xe9"}]', "is not UTF-8 text"),
        "empty.json": (b"  \n", "is empty"),
        "nan.json": (b'[{"uuid": NaN}]', "is not valid JSON"),
        "utf16.json": ("[]".encode("utf-16"), "is UTF-16 text, not UTF-8"),
        "bad.zip": (b"PK\x03\x04 not really a zip", "is a zip file Hearth cannot read"),
    }
    for name, (content, says) in cases.items():
        path = tmp_path / name
        path.write_bytes(content)
        with pytest.raises(InvalidInputError) as error:
            import_chat_export(path, CHATGPT, storage, memories)
        assert says in str(error.value), name
    without = tmp_path / "other.zip"
    with zipfile.ZipFile(without, "w") as zipped:
        zipped.writestr("chat.html", "<html></html>")
    with pytest.raises(InvalidInputError, match="zip file without a conversations.json"):
        import_chat_export(without, CHATGPT, storage, memories)
    with pytest.raises(InvalidInputError, match="does not exist"):
        import_chat_export(tmp_path / "missing.json", CHATGPT, storage, memories)
    assert set(row_counts(storage).values()) == {0}


def test_a_bom_and_an_empty_list_are_fine(tmp_path, storage, memories) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + CLAUDE_FILE.read_bytes())
    assert import_chat_export(path, CLAUDE, storage, memories).memories_created == 8
    empty = write(tmp_path, [], "empty.json")
    assert import_chat_export(empty, CLAUDE, storage, memories).conversations == 0


# --- the command --------------------------------------------------------------------------


def test_the_command_imports_and_search_cites_the_message(capsys, migrated_home,
                                                           tmp_path) -> None:
    from cli.main import run

    assert run(["--home", str(migrated_home), "import", "chatgpt", str(CHATGPT_FILE),
                "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["service"], report["memories_created"]) == ("chatgpt", 13)

    assert run(["--home", str(migrated_home), "search", "how much rent can I afford",
                "--k", "3", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert any(r["provenance"]["origin"]["message_id"] == "u-2" for r in results)
    assert all(r["provenance"]["origin"]["service"] == "chatgpt" for r in results)

    broken = write(tmp_path, [{"uuid": "x", "created_at": "now", "chat_messages": []}])
    assert run(["--home", str(migrated_home), "import", "claude", str(broken)]) != 0
    err = capsys.readouterr().err
    assert "[0].created_at must be an ISO-8601 date-time string" in err
    assert "Traceback" not in err


# --- Claude: attached files' text -----------------------------------------------------------

LEASE = "Übergabeprotokoll – Wohnung 3ª.md"
DOCTOR = "2c8f3a21-4d5e-4f60-8b1c-2d3e4f5a6b7c"


def attachment_memories(storage) -> dict[str, Memory]:
    with storage.read() as session:
        rows = {m.origin["file_name"]: m for m in session.scalars(
            select(Memory).where(Memory.external_id.like("attachment:%")))}
        session.expunge_all()
    return rows


def attached_edges(storage) -> set[tuple[str, str]]:
    """(file name, message id) of each ``attached_to`` edge."""
    with storage.read() as session:
        origins = {row.id: row.origin for row in session.execute(
            select(Memory.id, Memory.origin))}
        return {(origins[row.from_id]["file_name"], origins[row.to_id]["message_id"])
                for row in session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id)
                                           .where(MemoryEdge.kind == "attached_to"))}


def test_claude_attachment_text_is_found_by_recall_and_cites_the_file(hearth) -> None:
    report = import_chat_export(CLAUDE_FILE, CLAUDE, hearth.storage, hearth.memories)
    assert (report.attachments, report.attachments_created, report.memories_created) == (
        3, 3, 8)

    found = hearth.recall.recall(RecallQuery(
        text="where is the spare key hidden, under the ceramic hedgehog?", k=5, graph=0))
    best = found[0]
    origin = best.provenance["origin"]
    assert (origin["file_name"], origin["message_id"], origin["conversation_id"],
            origin["service"]) == (LEASE, "c2-m1", DOCTOR, "claude")
    assert (origin["file_type"], origin["attached_by"], best.provenance["turn_id"]) == (
        "text/markdown", "User", "c2-m1")
    assert "blue ceramic hedgehog by the door 🦔" in (best.excerpt or "")  # its window
    assert best.text.startswith(f"Attached file “{LEASE}”:\n\nWohnungsübergabe, Seite 1:")
    assert "\u200e" in best.text and "naïve Frage von Zoë" in best.text  # as written

    stored = attachment_memories(hearth.storage)
    assert set(stored) == {LEASE, "itinerary.txt", "tram-notes.txt"}
    lease = stored[LEASE]
    assert lease.origin["import_batch"] == report.batch
    assert (lease.memory_type, lease.namespace, lease.source) == (
        "semantic", f"import/claude/{DOCTOR}", "import")
    assert lease.created_at == datetime(2023, 11, 2, 20, 15, 5, tzinfo=timezone.utc)
    assert lease.interaction_id is None  # not an exchange: nobody said it
    # linked to its message's turn; the message with a file and no words has no turn
    assert attached_edges(hearth.storage) == {(LEASE, "c2-m1"), ("itinerary.txt", "c1-m1")}


def test_claude_attachments_are_idempotent_stay_deleted_and_go_with_their_run(
        storage, memories, embedder, tmp_path) -> None:
    from types import SimpleNamespace

    from core.home.paths import HearthPaths
    from core.forgetting.service import ForgetService
    from core.operations.imports import undo_import

    first = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    before = row_counts(storage)
    again = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    assert (again.attachments_created, again.attachments_forgotten) == (0, 0)
    assert row_counts(storage) == {**before, "import_runs": before["import_runs"] + 1}

    forgetting = ForgetService(storage, embedder, HearthPaths(tmp_path))
    forgetting.delete_memories([attachment_memories(storage)[LEASE].id])
    third = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    assert (third.attachments_created, third.attachments_forgotten) == (0, 1)
    assert set(attachment_memories(storage)) == {"itinerary.txt", "tram-notes.txt"}

    hearth = SimpleNamespace(storage=storage, forgetting=forgetting)  # what undo_import uses
    undone = undo_import(hearth, first.batch).value
    assert undone.removed == first.memories_created + first.attachments_created - 1
    assert attachment_memories(storage) == {} and attached_edges(storage) == set()
    fourth = import_chat_export(CLAUDE_FILE, CLAUDE, storage, memories)
    assert (fourth.attachments_created, fourth.attachments_forgotten) == (0, 3)
