"""A user's forget (``core.forgetting``): the fact, its history and every value it had, gone
from every table, index, vector, file and log, and from backups when asked; nothing else
touched."""

from __future__ import annotations

import json
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sqlalchemy import JSON, String, Text, func, insert, select
from sqlalchemy.exc import IntegrityError

from core import clock
from core.app import Hearth
from core.errors import DatabaseError, DatabaseLockedError, InvalidInputError, NotFoundError
from core.forgetting import database, wording
from core.storage.sqlite import copies as sqlite_copies
from core.forgetting.matching import PLACEHOLDER, ValueMatcher, is_distinctive
from core.forgetting.places import MACHINE_COLUMNS, PLACES
from core.forgetting.service import FileCheck
from core.llm import ToolCall
from core.storage.orm import (
    Agent,
    Habit,
    AgentWrite,
    AuditEntry,
    Base,
    ChatSession,
    ContextEvent,
    ContextLog,
    FactHistory,
    Interaction,
    JournalEntry,
    Memory,
    PendingAction,
    FollowUp,
    AboutYouVersion,
    ReadLaterItem,
    Reminder,
    Run,
    NotesAboutYouVersion,
    ScheduledPrompt,
    Task,
    UserFact,
    WorkingMemoryVersion,
)
from core.storage.port import IndexedKind, SearchFilters, document_text
from core.transfer.export import export_all
from support.reused_embeddings import reused_per_module  # noqa: F401 (the module's embedder)
from support.scripted_llm import Reply, ScriptedLLM

VALUE = "Qzvrt-93817446"
EARLIER = "Qzvrt-11112222"
KEY = "passport_number"


def rows(hearth: Hearth, model: type) -> list[Any]:
    with hearth.storage.read() as session:
        found = list(session.scalars(select(model).order_by(model.id)))
        session.expunge_all()
    return found


def db_bytes(hearth: Hearth) -> bytes:
    path = hearth.storage.path
    wal = path.with_name(path.name + "-wal")
    return (path.read_bytes() + (wal.read_bytes() if wal.exists() else b"")).lower()


def exported(hearth: Hearth, tmp_path: Path) -> str:
    target = tmp_path / "export.json"
    export_all(hearth.storage, target)
    return target.read_text(encoding="utf-8")


def vector_of(hearth: Hearth, table: str, row_id: int) -> np.ndarray:
    with hearth.storage.read() as session:
        blob = session.connection().exec_driver_sql(
            f"SELECT embedding FROM {table}_vec WHERE id = ?", (row_id,)).scalar_one()
    return np.frombuffer(blob, dtype=np.float32)


def fts_terms(hearth: Hearth, table: str) -> bytes:
    """The raw segments of a full-text index (what a byte search of the file would see)."""
    with hearth.storage.read() as session:
        blocks = session.connection().exec_driver_sql(f"SELECT block FROM {table}_fts_data")
        return b"".join(block for (block,) in blocks if isinstance(block, bytes)).lower()


def plant_everywhere(hearth: Hearth) -> dict[str, Any]:
    """The fact (changed once) and its values in every kind of place a user's words reach."""
    hearth.facts.remember(KEY, EARLIER, category="personal")
    hearth.facts.remember(KEY, VALUE, category="personal")
    memory = hearth.memories.add(f"The user's passport number is {VALUE}.",
                                 tags=[VALUE.lower()], entities={"documents": [EARLIER]})
    note = hearth.notes.save_summary("Travel", f"Renewed the passport ({EARLIER} expired).",
                                     session_id=None)
    with hearth.storage.write() as session:
        chat = ChatSession(id="chat-1", title=f"my passport is {VALUE}",
                           compaction_summary=f"They talked about {EARLIER}.")
        session.add(chat)
        session.flush()
        exchange = Interaction(session_id="chat-1", user_message=f"My passport is {VALUE}",
                               agent_response=f"Noted: {VALUE.upper()}.", tools_used=[
                                   {"type": "tool", "name": "search_memory",
                                    "arguments": {"query": VALUE}, "summary": "1 results"}])
        session.add(exchange)
        session.flush()
        session.add_all([
            ContextEvent(event_type="observation", content=f"Mentioned {VALUE} twice.",
                         source_metadata={"interaction_id": exchange.id, "note": EARLIER}),
            ContextEvent(event_type="fact", content=f"{KEY}: {VALUE}",
                         source_metadata={"fact_key": KEY, "previous_value": EARLIER}),
            AboutYouVersion(content=f"Travels often; passport {VALUE}."),
            WorkingMemoryVersion(content=f"Waiting for passport {EARLIER} to be replaced."),
            NotesAboutYouVersion(data={"documents": {"passport": VALUE, EARLIER: "old"}}),
            Habit(rule=f"Never read {VALUE} aloud."),
            FollowUp(text=f"Photocopy passport {VALUE}", context=EARLIER),
            AuditEntry(action="tool.record_observation", arguments={"content": VALUE},
                       result_summary=f"recorded {VALUE}"),
            ContextLog(interaction_id=exchange.id, session_id="chat-1", system_prompt_sha256="0",
                       items=[{"type": "meta", "retrieval_error": f"bad {VALUE}"}]),
            Run(kind="processor", error=f"could not parse {VALUE}",
                stages={"process": {"error": EARLIER}}),
            Task(title=f"Renew passport {VALUE}", details=f"Old one: {EARLIER}"),
            Reminder(message=f"Bring passport {VALUE}", remind_at=clock.now(), zone="UTC"),
            ScheduledPrompt(name=f"Check {VALUE}", prompt=f"Is {EARLIER} still valid?",
                            cron="0 9 * * *", zone="UTC"),
            JournalEntry(content=f"Found passport {VALUE} in a drawer.", title=EARLIER),
            ReadLaterItem(url=f"https://example.org/{VALUE}", title=f"About {VALUE}",
                          note=EARLIER, text=f"Passport {VALUE}.", summary=VALUE,
                          tags=[VALUE.lower()]),
            PendingAction(action="task.create", arguments={"title": VALUE},
                          preview=f"Add the task {VALUE}.", source_message=EARLIER,
                          result=f"Added {VALUE}", expires_at=clock.now()),
        ])
        agent = Agent(name="notes-app", access="write")
        session.add(agent)
        session.flush()
        session.add(AgentWrite(agent_id=agent.id, action="remember_fact",
                               arguments={"key": KEY, "value": VALUE},
                               preview=f"Remember {KEY} = {VALUE}.", result=EARLIER))
    hearth.facts.remember("passport_copy", f"scan of {VALUE}")
    hearth.deleted.delete_fact("passport_copy")  # deleted, its undo not over yet
    from core.embedding.reembed import backfill_embeddings

    backfill_embeddings(hearth.storage, hearth.embedder)
    return {"memory": memory.id, "note": note.id, "exchange": exchange.id}


# --- the matching rule -------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "text", "redacted"), [
    ("Ana", "Ana and Banana met ANA's friend Anabel.",
     "[forgotten] and Banana met [forgotten]'s friend Anabel."),
    ("4471", "pin=4471, pin_4471, 44712 and 4471.", "pin=[forgotten], pin_[forgotten], 44712 "
                                                    "and [forgotten]."),
    ("12 Rua Nova", "at 12 rua\n  NOVA, Porto", "at [forgotten], Porto"),
    ("+351 912", "call +351 912 now", "call [forgotten] now"),
    ("Łódź", "moved to ŁÓDŹ; not Łódźka", "moved to [forgotten]; not Łódźka"),
    ("東京都", "住所は東京都です", "住所は[forgotten]です"),
])
def test_the_matching_rule_is_whole_words_in_any_case(value, text, redacted) -> None:
    assert ValueMatcher([value]).redact(text) == redacted


def test_json_is_read_string_by_string_keys_included() -> None:
    matcher = ValueMatcher(["Łódź"])
    data = json.loads(json.dumps({"łódź": ["in Łódź", 3, None], "n": {"x": "ok"}}))
    assert matcher.found_in(data) and not matcher.found_in({"n": ["Łódźka", 1.5]})
    assert matcher.redact_data(data) == {PLACEHOLDER: [f"in {PLACEHOLDER}", 3, None],
                                         "n": {"x": "ok"}}
    assert b"\\u0141\\u00f3d\\u017a" in matcher.byte_forms()  # as JSON escapes it


@pytest.mark.parametrize(("value", "distinctive"), [
    ("7", False), ("O", False), ("no", False), ("Yes", False), ("the", False),
    ("Ana", True), ("4471", True), ("blue", True), (VALUE, True)])
def test_short_or_common_values_are_not_searched_everywhere(value, distinctive) -> None:
    assert is_distinctive(value) is distinctive


def test_every_text_column_is_searched_or_known_to_hold_no_user_text() -> None:
    searched = {(place.table, column) for place in PLACES for column in place.columns}
    textual = {(table.name, column.name) for table in Base.metadata.sorted_tables
               for column in table.columns if isinstance(column.type, (String, Text, JSON))}
    assert textual - searched - MACHINE_COLUMNS == set()
    assert searched - textual == set() and not searched & MACHINE_COLUMNS


# --- the database ------------------------------------------------------------------------------


def test_forget_replaces_every_value_everywhere_and_reembeds_what_changed(
        hearth: Hearth, tmp_path: Path) -> None:
    planted = plant_everywhere(hearth)
    old_memory_vector = vector_of(hearth, "memories", planted["memory"])
    assert VALUE.lower().encode() in db_bytes(hearth)
    preview = hearth.forgetting.preview(KEY)

    report = hearth.forgetting.forget(KEY).report

    assert report.values == 2 and report.searched_everywhere
    assert report.files is FileCheck.VERIFIED
    expected = {place.label for place in PLACES} - {"other facts",
                                                    "earlier values of other facts"}
    assert set(report.places) == expected and dict(report.places) == dict(preview.places)
    text = exported(hearth, tmp_path)
    assert VALUE not in text and EARLIER not in text and VALUE.lower() not in text
    assert text.count(PLACEHOLDER) >= 20
    for value in (VALUE, EARLIER):
        assert value.lower().encode() not in db_bytes(hearth)
        assert value.split("-")[0].lower().encode() not in fts_terms(hearth, "memories")
    assert hearth.facts.get(KEY) is None and rows(hearth, FactHistory) == []
    assert [e.event_type for e in rows(hearth, ContextEvent)] == ["observation"]
    memory = hearth.memories.get(planted["memory"])
    assert memory.content == f"The user's passport number is {PLACEHOLDER}."
    assert memory.embedding_model == hearth.embedder.model_id
    new_vector = hearth.embedder.embed_documents([memory.content])[0]
    assert np.allclose(vector_of(hearth, "memories", memory.id), new_vector, atol=1e-5)
    assert not np.allclose(old_memory_vector, new_vector, atol=1e-3)
    exchange = rows(hearth, Interaction)[0]
    assert exchange.embedding_model == hearth.embedder.model_id
    with hearth.storage.read() as session:
        hits = hearth.storage.search.text_search(session, IndexedKind.MEMORY, "Qzvrt 93817446",
                                                 SearchFilters(), 10)
    assert hits == []
    (audit,) = [entry for entry in rows(hearth, AuditEntry) if entry.action == "fact.forget"]
    assert audit.arguments == {"key": KEY} and "Qzvrt" not in audit.result_summary


def test_the_fact_its_history_and_its_index_entries_are_deleted(hearth: Hearth) -> None:
    hearth.facts.remember("phone_number", "+351 912 345 678", category="personal")
    hearth.facts.remember("phone_number", "+351 999 000 111", category="personal")
    hearth.facts.remember("birthday", "12 May")
    fact_id = hearth.facts.get("phone_number").id
    vector = hearth.embedder.embed_documents(["phone number: +351 999 000 111"])[0]

    hearth.forgetting.forget("Phone Number")

    assert hearth.facts.get("phone_number") is None and rows(hearth, FactHistory) == []
    with hearth.storage.read() as session:
        assert hearth.storage.search.text_search(session, IndexedKind.FACT, "999",
                                                 SearchFilters(), 10) == []
        found = [hit.id for hit in hearth.storage.search.vector_search(
            session, IndexedKind.FACT, vector, SearchFilters(), 10)]
    assert found == [hearth.facts.get("birthday").id] and fact_id not in found
    entry = rows(hearth, AuditEntry)[-1]
    assert (entry.action, entry.arguments) == ("fact.forget", {"key": "phone_number"})
    assert all("912" not in str(e.arguments) + e.result_summary
               and "999" not in str(e.arguments) + e.result_summary
               for e in rows(hearth, AuditEntry))


def test_changed_rows_get_new_vectors_in_the_forget_itself(hearth: Hearth, monkeypatch) -> None:
    """Nothing is left for a backfill that a crash right after the forget would skip; an
    imported turn beside the one that held the value is re-embedded too, because its vector
    is also made of its neighbours' words (``core.embedding.turn_views``)."""
    from core.transfer.transcript import import_transcript

    hearth.facts.remember(KEY, VALUE)
    import_transcript({"conversation_id": "c", "participants": ["Sam", "Ana"], "sessions": [
        {"session_id": "s", "started_at": "2025-03-02T10:00:00Z", "turns": [
            {"turn_id": "t1", "speaker": "Sam", "text": "Where is the travel folder?"},
            {"turn_id": "t2", "speaker": "Ana", "text": f"With passport {VALUE} in it."},
            {"turn_id": "t3", "speaker": "Sam", "text": "Thanks, found it."}]}]},
        hearth.storage, hearth.memories)
    turns = {m.content: m.id for m in rows(hearth, Memory)}
    beside = turns["Sam: Where is the travel folder?"]
    before = vector_of(hearth, "memories", beside)
    backfills: list[Any] = []
    monkeypatch.setattr(database, "backfill_embeddings", lambda *a, **k: backfills.append(a))

    hearth.forgetting.forget(KEY)

    assert backfills == []
    held = hearth.memories.get(turns[f"Ana: With passport {VALUE} in it."])
    assert held.content == f"Ana: With passport {PLACEHOLDER} in it."
    for memory in rows(hearth, Memory):
        assert memory.embedding_model == hearth.embedder.model_id
    assert not np.allclose(vector_of(hearth, "memories", beside), before, atol=1e-4)


def test_unrelated_rows_keep_their_text_vectors_and_place_in_search(hearth: Hearth) -> None:
    plant_everywhere(hearth)
    kept = hearth.memories.add("My sister Priya moved to Porto last spring.")
    hearth.facts.remember("home_city", "Lisbon", category="location")
    vector = vector_of(hearth, "memories", kept.id)

    hearth.forgetting.forget(KEY)

    assert hearth.memories.get(kept.id).content == kept.content
    assert np.array_equal(vector_of(hearth, "memories", kept.id), vector)
    assert hearth.facts.get("home_city").value == "Lisbon"
    from core.recall import RecallQuery

    found = hearth.recall.recall(RecallQuery(text="where did my sister move", k=3))
    assert found and found[0].id == kept.id


def test_a_short_value_is_redacted_only_where_the_fact_was_recorded(hearth: Hearth) -> None:
    with hearth.storage.write() as session:
        session.add(ChatSession(id="c", title="kids"))
        session.flush()
        said = Interaction(session_id="c", user_message="I have 2 kids", agent_response="2!")
        other = Interaction(session_id="c", user_message="Buy 2 melons", agent_response="ok")
        session.add_all([said, other])
        session.flush()
        event = ContextEvent(event_type="fact", content="number_of_kids: 2",
                             source_metadata={"fact_key": "number_of_kids",
                                              "interaction_id": said.id, "session_id": "c"})
        session.add(event)
        session.flush()
        session.add(Memory(content="The user has 2 kids.", event_id=event.id))
        session.add(Memory(content="Two of 2 things."))
    hearth.facts.remember("number_of_kids", "2", category="personal")

    report = hearth.forgetting.forget("number_of_kids").report

    assert not report.searched_everywhere and report.files is FileCheck.COMPACTED
    messages = {i.user_message: i.agent_response for i in rows(hearth, Interaction)}
    assert messages == {f"I have {PLACEHOLDER} kids": f"{PLACEHOLDER}!", "Buy 2 melons": "ok"}
    contents = sorted(m.content for m in rows(hearth, Memory))
    assert contents == [f"The user has {PLACEHOLDER} kids.", "Two of 2 things."]


def test_values_without_latin_letters_or_digits_are_found_too(hearth: Hearth) -> None:
    """Such a value gives the database nothing cheap to filter on: every row is read."""
    hearth.facts.remember("home_city", "東京都")
    held = hearth.memories.add("住所は東京都です")
    folded = hearth.memories.add("Moved to ŁÓDŹ in May.")
    hearth.facts.remember("home_city", "Łódź")

    hearth.forgetting.forget("home_city")

    assert hearth.memories.get(held.id).content == f"住所は{PLACEHOLDER}です"
    assert hearth.memories.get(folded.id).content == f"Moved to {PLACEHOLDER} in May."


def test_a_forget_that_fails_changes_nothing(hearth: Hearth, monkeypatch) -> None:
    planted = plant_everywhere(hearth)
    real_apply = database.apply

    def apply_then_fail(session: Any, found: Any) -> Any:
        real_apply(session, found)
        raise RuntimeError("power cut")

    monkeypatch.setattr(database, "apply", apply_then_fail)
    with pytest.raises(RuntimeError):
        hearth.forgetting.forget(KEY)

    assert hearth.facts.get(KEY).value == VALUE and len(hearth.facts.history(KEY)) == 1
    assert VALUE in hearth.memories.get(planted["memory"]).content
    assert not any(e.action == "fact.forget" for e in rows(hearth, AuditEntry))


def test_rules_that_differ_only_by_the_value_become_one(hearth: Hearth) -> None:
    hearth.facts.remember(KEY, VALUE)
    with hearth.storage.write() as session:
        session.add_all([Habit(rule=f"Never read {VALUE} aloud."),
                         Habit(rule=f"Never read {VALUE.upper()} aloud."),
                         Habit(rule="Answer briefly.")])

    hearth.forgetting.forget(KEY)

    assert sorted(r.rule for r in rows(hearth, Habit)) == [
        "Answer briefly.", f"Never read {PLACEHOLDER} aloud."]


def test_what_a_forget_left_behind_is_not_learned_as_a_fact(hearth: Hearth) -> None:
    from core.learning.pipeline import LearningPipeline

    with pytest.raises(InvalidInputError, match="forgotten value"):
        hearth.facts.remember("home_city", f"near {PLACEHOLDER}")
    with hearth.storage.write() as session:
        session.add(ChatSession(id="c", title=""))
        session.flush()
        said = Interaction(session_id="c", user_message=f"I live in {PLACEHOLDER}.",
                           agent_response="Noted.")
        session.add(said)
        session.flush()
    pipeline = LearningPipeline(hearth.learning(),
                                ScriptedLLM(lambda *_: json.dumps({"facts": []})))
    pipeline.exchange_completed(said.id, "c")
    assert pipeline.drain(timeout=60)
    pipeline.shutdown(close_sessions=False)

    assert hearth.facts.list() == [] and pipeline.stats.dropped_by_exclusion == 1


def test_unknown_keys_are_refused_and_change_nothing(hearth: Hearth) -> None:
    with pytest.raises(NotFoundError, match="no fact called 'never_said'"):
        hearth.forgetting.forget("never said")
    with pytest.raises(NotFoundError):
        hearth.forgetting.preview("never_said")
    assert rows(hearth, AuditEntry) == []


# --- files -------------------------------------------------------------------------------------


def test_deleted_text_is_zeroed_in_the_file_so_a_forget_rarely_needs_a_rebuild(
        hearth: Hearth) -> None:
    conversation = hearth.conversation(ScriptedLLM())
    session_id = conversation.sessions.new_session()
    with hearth.storage.write() as session:
        session.add(Interaction(session_id=session_id, user_message=f"It is {VALUE}.",
                                agent_response="Noted."))
    conversation.sessions.delete_session(session_id)

    assert hearth.storage.erase_deleted() is True  # merge the indexes, empty the log

    assert VALUE.split("-")[0].lower().encode() not in db_bytes(hearth)


def test_old_bytes_left_in_free_space_before_secure_delete_are_rebuilt_away(
        hearth: Hearth) -> None:
    with hearth.storage.read() as session:
        assert session.connection().exec_driver_sql("PRAGMA secure_delete").scalar() == 1
    hearth.facts.remember(KEY, EARLIER)
    hearth.facts.remember(KEY, VALUE)
    raw = hearth.storage.engine.raw_connection()  # as a Hearth before secure_delete wrote
    try:
        raw.driver_connection.execute("PRAGMA secure_delete=OFF")
        raw.driver_connection.execute("INSERT INTO notes(title, content, created_at, updated_at)"
                                      " VALUES ('n', ?, '2026-01-01', '2026-01-01')",
                                      (f"{EARLIER} " * 400,))
        raw.driver_connection.execute("DELETE FROM notes")
        raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        raw.close()
    assert EARLIER.lower().encode() in db_bytes(hearth)  # no table shows it, the file does

    report = hearth.forgetting.forget(KEY).report

    assert report.files is FileCheck.VERIFIED
    assert EARLIER.lower().encode() not in db_bytes(hearth)
    assert VALUE.lower().encode() not in db_bytes(hearth)


def test_logs_are_masked_in_place_without_moving_the_rest(hearth: Hearth) -> None:
    logs = hearth.paths.home / "logs"
    logs.mkdir(parents=True)
    line = f"ValueError: could not parse {VALUE.lower()} in 'Łódź'\n".encode()
    (logs / "daemon.log").write_bytes(b"start\n" + line + b"end\n")
    hearth.facts.remember(KEY, VALUE)

    report = hearth.forgetting.forget(KEY).report

    masked = (logs / "daemon.log").read_bytes()
    assert report.places["log files"] == 1
    assert len(masked) == len(b"start\n" + line + b"end\n")
    assert masked == b"start\nValueError: could not parse " + b"*" * len(VALUE) + \
        " in 'Łódź'\nend\n".encode()


def test_database_errors_never_quote_the_text_they_were_given(hearth: Hearth) -> None:
    """A traceback in ``<home>/logs`` must not keep a value the user later forgets."""
    hearth.facts.remember(KEY, "something else")
    with pytest.raises(IntegrityError) as raised, hearth.storage.write() as session:
        session.execute(insert(UserFact).values(key=KEY, value=VALUE))
    assert VALUE not in str(raised.value) and "hidden" in str(raised.value)


def test_what_cannot_be_cleaned_after_the_commit_is_said_not_raised(
        hearth: Hearth, monkeypatch) -> None:
    """The forget is committed: a locked database or a read-only log must not turn it into
    an error the user would read as "nothing was forgotten"."""
    logs = hearth.paths.home / "logs"
    logs.mkdir(parents=True)
    stuck = logs / "hearth.log"
    stuck.write_text(f"parsing {VALUE} failed\n", encoding="utf-8")
    hearth.facts.remember(KEY, VALUE)

    def locked(**_: Any) -> bool:
        raise DatabaseLockedError("locked", "")

    monkeypatch.setattr(hearth.storage, "erase_deleted", locked)
    subprocess.run(["chattr", "+i", str(stuck)], check=True)  # even root cannot write it
    try:
        report = hearth.forgetting.forget(KEY).report
    finally:
        subprocess.run(["chattr", "-i", str(stuck)], check=True)

    assert hearth.facts.get(KEY) is None
    assert report.files is FileCheck.IN_USE and report.unmasked_logs == (stuck,)
    assert wording.unmasked(report) == [f"Could not rewrite {stuck} (see the log); it may "
                                        "still hold it."]


# --- backups -----------------------------------------------------------------------------------


def test_backups_that_hold_it_are_named_and_rewritten_on_request(hearth: Hearth) -> None:
    planted = plant_everywhere(hearth)
    before = hearth.backup().path
    hearth.memories.add("The tomatoes need water.")

    forgotten = hearth.forgetting.forget(KEY)
    after = hearth.backup().path

    assert forgotten.report.backups == (before,)
    assert VALUE.lower().encode() in before.read_bytes().lower()
    assert VALUE.lower().encode() not in after.read_bytes().lower()
    mtime = before.stat().st_mtime_ns
    (rewrite,) = forgotten.remove_from_backups()
    assert rewrite.ok and rewrite.path == before
    for value in (VALUE, EARLIER, "93817446", "11112222"):
        assert value.lower().encode() not in before.read_bytes().lower()
    assert before.stat().st_mtime_ns == mtime
    assert [p.name for p in before.parent.iterdir() if "forgetting" in p.name] == []
    with sqlite3.connect(f"file:{before}?mode=ro", uri=True) as copy:
        assert copy.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert copy.execute("SELECT content FROM memories WHERE id = ?",
                            (planted["memory"],)).fetchone()[0].endswith(f"{PLACEHOLDER}.")
        assert copy.execute("SELECT count(*) FROM user_facts").fetchone()[0] == 0


def test_the_database_a_restore_moved_aside_counts_as_a_backup(hearth: Hearth) -> None:
    plant_everywhere(hearth)
    aside = hearth.paths.home / "hearth.db.before-restore-20260101T000000000000Z"
    aside.write_bytes(hearth.backup().path.read_bytes())

    forgotten = hearth.forgetting.forget(KEY)
    rewrites = forgotten.remove_from_backups()

    assert aside in forgotten.report.backups and all(rewrite.ok for rewrite in rewrites)
    assert VALUE.lower().encode() not in aside.read_bytes().lower()


def test_a_later_request_finds_the_values_in_the_backups_own_records(hearth: Hearth) -> None:
    plant_everywhere(hearth)
    backup = hearth.backup().path
    hearth.forgetting.forget(KEY)  # the window was closed: the values are gone from memory

    (rewrite,) = hearth.forgetting.remove_from_backups(KEY)

    assert rewrite.ok and VALUE.lower().encode() not in backup.read_bytes().lower()
    with pytest.raises(NotFoundError, match="Neither the database nor any backup"):
        hearth.forgetting.remove_from_backups(KEY)


def test_a_rewrite_that_fails_its_check_leaves_the_backup_as_it_was(
        hearth: Hearth, monkeypatch) -> None:
    plant_everywhere(hearth)
    backup = hearth.backup().path
    original = backup.read_bytes()
    forgotten = hearth.forgetting.forget(KEY)

    def damaged(path: Path) -> None:
        raise DatabaseError(f"{path.name} failed its integrity check.", "")

    monkeypatch.setattr(sqlite_copies, "verify_backup", damaged)
    (rewrite,) = forgotten.remove_from_backups()

    assert not rewrite.ok and "left as it was" in rewrite.message
    assert backup.read_bytes() == original
    assert [p.name for p in backup.parent.iterdir() if "forgetting" in p.name] == []


# --- through the assistant ---------------------------------------------------------------------


def test_a_forget_asked_in_chat_is_as_complete_and_the_reply_is_saved_without_it(
        hearth: Hearth) -> None:
    plant_everywhere(hearth)
    asked: list[str] = []
    llm = ScriptedLLM([Reply("", (ToolCall("forget_fact", {"key": KEY}),)),
                       f"Done: I no longer know {VALUE}."])
    conversation = hearth.conversation(llm, confirm=lambda q: asked.append(q) or True)
    session_id = conversation.sessions.new_session()

    events = list(conversation.send(session_id, "Please forget my passport number."))

    assert "will be replaced by “[forgotten]” in" in asked[0]
    assert hearth.facts.get(KEY) is None
    exchange = rows(hearth, Interaction)[-1]
    assert exchange.agent_response == f"Done: I no longer know {PLACEHOLDER}."
    assert events[-1].reply == f"Done: I no longer know {VALUE}."  # shown, never stored
    tool_result = llm.requests[1].messages[-1].content
    assert tool_result.startswith(f"deleted: {KEY}") and VALUE not in tool_result
    assert VALUE.lower().encode() not in db_bytes(hearth)


def test_the_report_counts_documented_places(hearth: Hearth) -> None:
    """``document_text`` is what is embedded: the forget keeps the fact's own key readable."""
    hearth.facts.remember("sister_home_city", f"near {VALUE}")
    hearth.facts.remember(KEY, VALUE)

    preview = hearth.forgetting.preview(KEY)
    assert [place.where for place in preview.found if not place.ticked] == [
        "the fact “sister home city”"]  # another fact: rewritten only when ticked
    report = hearth.forgetting.forget(
        KEY, include=[place.token for place in preview.found]).report

    sister = hearth.facts.get("sister_home_city")
    assert report.places == {"other facts": 1}
    assert sister.value == f"near {PLACEHOLDER}" and sister.embedding_model is not None
    assert vector_of(hearth, "user_facts", sister.id).shape == (hearth.embedder.dimensions,)
    assert document_text(IndexedKind.FACT, (sister.key, sister.value)) == \
        f"sister home city: near {PLACEHOLDER}"
    with hearth.storage.read() as session:
        assert session.scalar(select(func.count()).select_from(UserFact)) == 1
