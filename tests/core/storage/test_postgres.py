"""The PostgreSQL adapter's own behaviour, against a real server with pgvector
(``support.postgres``): migrations from an empty database, errors as sentences, writers
taking turns, read-only connections, vacuuming what a forget deleted, the HNSW path.

What both adapters share (sessions, search semantics, triggers) is tested by every test
that takes the ``storage`` fixture, which runs on both.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import numpy as np
import psycopg
import pytest
from sqlalchemy import select, text
from sqlalchemy.engine import make_url
from support.backends import search_index
from support.postgres import PostgresServer, free_port

from core.errors import DatabaseError, DatabaseLockedError, InvalidInputError, ReadOnlyError
from core.storage import migrate, orm
from core.storage.port import IndexedKind, SearchFilters
from core.storage.postgres.adapter import PostgresStorage
from core.storage.postgres.engine import WRITE_LOCK_KEY, describe, open_engine

MEMORY = IndexedKind.MEMORY


@pytest.fixture
def empty_database(postgres_server: PostgresServer) -> Iterator[str]:
    """A database with nothing in it but pgvector (created by the superuser, as the home
    server instructions say), owned by the role Hearth connects as."""
    name = postgres_server.create_database(template=None)
    with postgres_server.superuser(name) as connection:
        connection.execute("CREATE EXTENSION vector")
    yield postgres_server.url(name)
    postgres_server.drop_database(name)


@pytest.fixture
def db(postgres_url: str) -> Iterator[PostgresStorage]:
    opened = PostgresStorage(postgres_url)
    yield opened
    opened.close()


def test_the_whole_history_runs_on_an_empty_database_and_keeps_older_data(
        empty_database: str) -> None:
    """`alembic upgrade head` on PostgreSQL, from revision 0001 with a row in it: every
    revision runs (types, server defaults, booleans, JSON), and the full-text column of
    0002 indexes the rows written before it."""
    engine = open_engine(empty_database)
    migrate.upgrade(engine, "0001")
    with engine.begin() as connection:
        connection.execute(text(
            "INSERT INTO memories (content, memory_type, namespace, priority, source, tier, "
            "category, tags, entities, importance, strength, access_count, search_hit_count, "
            "is_valid, created_at, updated_at) VALUES ('My sister Ines lives in Porto', "
            "'semantic', 'user', 'high', 'user', 'recall', 'personal', '[]', '{}', 0.7, 1.0, "
            "0, 0, true, :t, :t)"), {"t": datetime(2025, 5, 1, 10)})
        connection.execute(text(
            "INSERT INTO chat_sessions (id, title, source, started_at) "
            "VALUES ('s1', 'old chat', 'chat', :t)"), {"t": datetime(2025, 5, 1, 10)})
    engine.dispose()

    upgraded = PostgresStorage(empty_database)
    try:
        assert upgraded.schema_revision() == migrate.head_revision()
        with upgraded.read() as session:
            memory = session.scalars(select(orm.Memory)).one()
            assert memory.created_at == datetime(2025, 5, 1, 10, tzinfo=timezone.utc)
            assert memory.freshness == 1.0 and memory.learned_at == memory.updated_at
            chat = session.get(orm.ChatSession, "s1")
            assert chat.learn_from is True and chat.incognito is False
            hits = upgraded.search.text_search(session, MEMORY, "porto", SearchFilters(), 5)
        assert [hit.id for hit in hits] == [memory.id]
    finally:
        upgraded.close()


def test_user_text_is_split_into_words_as_on_sqlite(db: PostgresStorage) -> None:
    """PostgreSQL's parser alone would read "XK-4471" as "xk" and the number -4471, and an
    e-mail address as one word; the documents are split like the query, into letters and
    digits."""
    with db.write() as session:
        session.add_all([orm.Memory(content="Printer cartridge XK-4471, order from "
                                            "ink@shop.example"),
                         orm.Memory(content="Part XK-7144 fits the kettle.")])
    with db.read() as session:
        def found(query: str) -> list[int]:
            return [hit.id for hit in db.search.text_search(session, MEMORY, query,
                                                            SearchFilters(), 5)]

        assert found("4471") == [1]
        assert found("XK-4471")[0] == 1
        assert found("shop") == [1]
        assert found("who is it") == []  # function words alone: searched, found nowhere


# --- errors as sentences -------------------------------------------------------------------


def test_a_wrong_password_is_a_sentence_that_never_shows_it(
        postgres_server: PostgresServer, postgres_url: str) -> None:
    url = postgres_server.url(postgres_url.rsplit("/", 1)[1], password="not-the-password")
    with pytest.raises(DatabaseError) as caught:
        PostgresStorage(url)
    assert "refused the password" in caught.value.message
    assert "not-the-password" not in str(caught.value)


def test_a_server_that_is_not_running_is_a_sentence() -> None:
    url = f"postgresql://hearth:secret@127.0.0.1:{free_port()}/hearth"
    with pytest.raises(DatabaseError) as caught:
        PostgresStorage(url)
    assert "is not answering" in caught.value.message
    assert "secret" not in str(caught.value)


def test_a_missing_database_is_a_sentence(postgres_server: PostgresServer) -> None:
    with pytest.raises(DatabaseError, match="does not exist"):
        PostgresStorage(postgres_server.url("no_such_database"))


def test_a_database_without_pgvector_says_who_must_enable_it(
        postgres_server: PostgresServer) -> None:
    name = postgres_server.create_database(template=None)
    try:
        with pytest.raises(DatabaseError) as caught:
            PostgresStorage(postgres_server.url(name))
        assert "not enabled" in caught.value.message
        assert "CREATE EXTENSION vector" in caught.value.hint
    finally:
        postgres_server.drop_database(name)


def test_messages_name_the_database_without_its_password() -> None:
    assert describe("postgresql://me:pa%40ss@db.home:5433/hearth") == (
        "postgresql://me@db.home:5433/hearth")


# --- writers take turns ----------------------------------------------------------------


def hold_write_lock(url: str) -> psycopg.Connection:
    """Another program's write transaction on the database (its advisory lock held)."""
    holder = psycopg.connect(url)
    holder.execute("SELECT pg_advisory_xact_lock(%s)", (WRITE_LOCK_KEY,))
    return holder


def test_a_write_waits_for_another_writer_and_is_saved(postgres_url: str) -> None:
    storage = PostgresStorage(postgres_url)
    waiting = threading.Event()

    class Notice(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "Waiting for another Hearth process" in record.getMessage():
                waiting.set()

    notice = Notice()
    logging.getLogger("core.storage").addHandler(notice)
    outcome: list[BaseException | str] = []

    def save() -> None:
        try:
            with storage.write() as session:
                session.add(orm.Note(title="waited", content="and was saved"))
            outcome.append("saved")
        except BaseException as exc:  # reported below, in the test's thread
            outcome.append(exc)

    holder = hold_write_lock(postgres_url)
    try:
        writer = threading.Thread(target=save)
        writer.start()
        assert waiting.wait(30), f"the write never waited: {outcome}"
        with storage.read() as session:  # readers never wait for writers
            assert session.scalars(select(orm.Note)).all() == []
        holder.rollback()
        writer.join(30)
    finally:
        holder.close()
        logging.getLogger("core.storage").removeHandler(notice)
    assert outcome == ["saved"]
    with storage.read() as session:
        assert session.scalars(select(orm.Note.title)).all() == ["waited"]
    storage.close()


def test_a_write_that_waited_past_its_limit_fails_with_a_sentence(postgres_url: str) -> None:
    storage = PostgresStorage(postgres_url, write_wait_seconds=0.3)
    holder = hold_write_lock(postgres_url)
    try:
        with pytest.raises(DatabaseLockedError) as caught:
            with storage.write() as session:
                session.add(orm.Note(title="t", content="c"))
        assert "stayed locked by another program's write" in caught.value.message
        assert "not saved" in caught.value.message
    finally:
        holder.close()
    with storage.write() as session:
        session.add(orm.Note(title="after", content="the lock was released"))
    with storage.read() as session:
        assert session.scalars(select(orm.Note.title)).all() == ["after"]
    storage.close()


def test_a_read_session_sees_one_snapshot(db: PostgresStorage) -> None:
    """As a SQLite read transaction: a write committed meanwhile is not half seen."""
    with db.read() as session:
        assert session.scalar(select(orm.Note.id)) is None
        with db.write() as writer:
            writer.add(orm.Note(title="later", content="committed meanwhile"))
        assert session.scalar(select(orm.Note.id)) is None
    with db.read() as session:
        assert session.scalar(select(orm.Note.title)) == "later"


def test_a_read_only_connection_reads_and_refuses_every_write(postgres_url: str,
                                                              db: PostgresStorage) -> None:
    with db.write() as session:
        session.add(orm.Note(title="kept", content="written before"))
    reader = PostgresStorage(postgres_url, read_only=True)
    try:
        assert reader.path is None
        with reader.read() as session:
            assert session.scalars(select(orm.Note.title)).all() == ["kept"]
        with pytest.raises(ReadOnlyError), reader.write() as session:
            session.add(orm.Note(title="refused", content="never written"))
    finally:
        reader.close()


# --- what a forget leaves ------------------------------------------------------------------


def test_erasing_vacuums_and_says_when_an_open_snapshot_kept_old_rows(
        postgres_url: str, db: PostgresStorage) -> None:
    with db.write() as session:
        session.add_all([orm.Memory(content="My locker code is 4471"),
                         orm.Memory(content="Something to keep")])
    with db.write() as session:
        session.execute(text("DELETE FROM memories WHERE content LIKE 'My locker%'"))
    assert db.erase_deleted() is True
    assert db.erase_deleted(compact=True) is True
    other = psycopg.connect(postgres_url)
    try:
        other.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        other.execute("SELECT count(*) FROM memories").fetchone()  # holds a snapshot
        assert db.erase_deleted() is False
    finally:
        other.close()
    with db.read() as session:
        assert session.scalars(select(orm.Memory.content)).all() == ["Something to keep"]


PIN = "4471-cobalt"
HELD_IN = ("user_facts", "interactions", "chat_sessions")


def remember_a_pin(storage: PostgresStorage, embedder, server: PostgresServer) -> str:
    """The fact "pin" among others, a chat titled with it and a message holding it, written
    out to the tables' files (a checkpoint: as on any server a few minutes later); the
    database's name."""
    from core.knowledge.facts import FactService

    facts = FactService(storage, embedder)
    facts.remember("home_city", "Porto")
    facts.remember("pin", PIN)
    facts.remember("partner_name", "Ana")
    with storage.write() as session:
        session.add(orm.ChatSession(id="s1", title=f"Your pin {PIN}"))
        session.flush()
        session.add(orm.Interaction(session_id="s1", user_message=f"My pin is {PIN}",
                                    agent_response="Noted."))
    database = make_url(storage.engine.url).database
    assert database is not None
    with server.superuser(database) as connection:
        connection.execute("CHECKPOINT")
    return database


def heap_files(server: PostgresServer, database: str) -> dict[str, list[Path]]:
    """Per table of ``HELD_IN``, the files of its rows and of its TOAST table's, found with
    ``pg_relation_filepath`` (each segment past the first is ``<file>.<n>``)."""
    data = server.base / "data"
    found: dict[str, list[Path]] = {}
    with server.superuser(database) as connection:
        for table in HELD_IN:
            names = connection.execute(
                "SELECT pg_relation_filepath(oid), pg_relation_filepath(NULLIF(reltoastrelid, "
                "0)) FROM pg_class WHERE oid = %s::regclass", (table,)).fetchone()
            files = [data / name for name in names if name]
            found[table] = [segment for file in files
                            for segment in [file, *sorted(file.parent.glob(f"{file.name}.*"))]]
    return found


def holding(files: dict[str, list[Path]], value: str) -> set[str]:
    """The tables one of whose ``files`` holds ``value``'s bytes."""
    return {table for table, paths in files.items()
            if any(path.is_file() and value.encode() in path.read_bytes() for path in paths)}


def test_compacting_after_a_forget_leaves_no_copy_in_the_tables_files(
        postgres_server: PostgresServer, postgres_url: str, tmp_path, embedder) -> None:
    """A forget's ``VACUUM`` leaves the value in the heap files of every table that held it
    (the pages as they were until the server writes them out, and the bytes it frees
    without zeroing); ``hearth compact`` rewrites the tables (``VACUUM FULL``), leaving it in
    neither the old files nor the new. Hearth's own role may not ask for a checkpoint."""
    from core.home.paths import HearthPaths
    from core.forgetting.service import FileCheck, ForgetService

    storage = PostgresStorage(postgres_url)
    try:
        database = remember_a_pin(storage, embedder, postgres_server)
        old = heap_files(postgres_server, database)
        assert holding(old, PIN) == set(HELD_IN)
        forgetting = ForgetService(storage, embedder, HearthPaths(tmp_path))

        assert forgetting.forget("pin").report.files is FileCheck.ON_SERVER
        assert holding(old, PIN) == set(HELD_IN)  # what the forget's report warns of

        assert forgetting.compact() is FileCheck.REWRITTEN_WITHOUT_CHECKPOINT
        new = heap_files(postgres_server, database)
        assert all(new[table] != old[table] for table in HELD_IN)  # new files
        assert holding(old, PIN) == holding(new, PIN) == set()
    finally:
        storage.close()


def test_a_forget_with_compact_rewrites_the_tables_and_checkpoints_where_it_may(
        postgres_server: PostgresServer, tmp_path, embedder) -> None:
    """``hearth facts forget KEY --compact`` as a role that may ask for a checkpoint (here
    the superuser): the report says the tables were rewritten and what stays beyond
    Hearth's reach."""
    from core.home.paths import HearthPaths
    from core.forgetting import wording
    from core.forgetting.service import FileCheck, ForgetService

    name = postgres_server.create_database()
    storage = PostgresStorage(postgres_server.superuser_url(name))
    try:
        remember_a_pin(storage, embedder, postgres_server)
        old = heap_files(postgres_server, name)
        report = ForgetService(storage, embedder, HearthPaths(tmp_path)).forget(
            "pin", compact=True).report

        assert report.files is FileCheck.REWRITTEN_ON_SERVER
        assert holding(old, PIN) == holding(heap_files(postgres_server, name), PIN) == set()
        said = wording.FILES[report.files]
        assert "VACUUM FULL" in said and "checkpoint" in said
        assert "archives, replicas" in said and PIN not in said
    finally:
        storage.close()
        postgres_server.drop_database(name)


# --- the HNSW path ---------------------------------------------------------------------------


def test_the_hnsw_index_answers_and_agrees_with_exact_search(db: PostgresStorage) -> None:
    """On data this small the planner would scan; with scans priced out it must use the
    HNSW index, and its shortlist, rescored, agrees with the exact search."""
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(2000, 32)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    db.search.ensure_dimensions(32)
    with db.write() as session:
        session.add_all([orm.Memory(content=f"memory {n}") for n in range(len(vectors))])
        session.flush()
        ids = list(session.scalars(select(orm.Memory.id).order_by(orm.Memory.id)))
        db.search.store_embeddings(session, MEMORY, ids, vectors, "random")
    forced = search_index(db, exact_max_rows=0, shortlist_factor=5, min_shortlist=100)
    forced.ensure_dimensions(32)
    overlaps = []
    with db.read() as session:
        session.execute(text("SET LOCAL enable_seqscan = off"))
        plan = "\n".join(session.execute(text(
            "EXPLAIN SELECT id FROM memories_vec ORDER BY embedding <=> "
            "CAST(:q AS vector) LIMIT 100"), {"q": str(vectors[0].tolist())}).scalars())
        assert "memories_vec_hnsw" in plan
        for query in vectors[:20] + rng.normal(scale=0.1, size=(20, 32)).astype(np.float32):
            exact = db.search.vector_search(session, MEMORY, query, SearchFilters(), 10)
            approx = forced.vector_search(session, MEMORY, query, SearchFilters(), 10)
            assert approx[0].score == pytest.approx(exact[0].score, abs=1e-5)
            overlaps.append(len({h.id for h in exact} & {h.id for h in approx}) / 10)
    assert float(np.mean(overlaps)) >= 0.95


def test_a_write_lock_is_released_when_its_connection_dies(postgres_url: str,
                                                           db: PostgresStorage) -> None:
    """A killed process never leaves the lock held: the server drops it with the
    connection."""
    holder = hold_write_lock(postgres_url)
    holder.close()
    started = time.monotonic()
    with db.write() as session:
        session.add(orm.Note(title="next", content="got the lock at once"))
    assert time.monotonic() - started < 5


def test_a_text_too_long_for_a_tsvector_is_saved_and_found_by_its_beginning(
        db: PostgresStorage) -> None:
    """A tsvector holds at most 1 MB; 2 MB of unique tokens (a pasted log of hashes) is
    still saved, and found by words in its first half million characters."""
    import hashlib

    tokens = [hashlib.md5(str(n).encode()).hexdigest() for n in range(60_000)]
    with db.write() as session:
        session.add(orm.Memory(content=" ".join(tokens)))
    with db.read() as session:
        def found(word: str) -> list[int]:
            return [hit.id for hit in db.search.text_search(session, MEMORY, word,
                                                            SearchFilters(), 5)]

        assert found(tokens[10]) == [1]
        assert found(tokens[-1]) == []


def test_text_with_a_nul_character_is_refused_with_a_sentence(db: PostgresStorage) -> None:
    """SQLite stores U+0000; PostgreSQL's text cannot hold it, so saying so beats a driver
    error (and nothing of the write is kept)."""
    with pytest.raises(InvalidInputError, match="NUL character"):
        with db.write() as session:
            session.add(orm.Note(title="fine", content="kept"))
            session.add(orm.Memory(content="Ines\x00Porto"))
    with db.read() as session:
        assert session.scalars(select(orm.Note)).all() == []
