"""The full-text index beside the database: it ranks as FTS5 does, follows every change made
by any process at once, is never trusted when it disagrees with the rows, and keeps no
trace of a forgotten row (``core.storage.sqlite.text_index``).

Real SQLite, FTS5 and tantivy; the threshold is lowered so a couple of thousand memories
take the index's path (``text_min_rows=500``).
"""

from __future__ import annotations

import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import delete, insert, text, update

from core.storage.orm import Memory
from core.storage.port import IndexedKind, IndexHit, SearchFilters
from core.storage.search_terms import term
from core.storage.sqlite import derived, text_index
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.search import SqliteSearchIndex
from support.templates import SqliteTemplate

ROWS = 2_000
TOPICS = ["garden", "tomatoes", "bicycle", "Lisbon", "violin", "marathon", "sourdough",
          "kayak", "chess", "pottery", "tax", "dentist", "Porto", "cat", "piano", "train"]
FILLER = ["today", "again", "with", "friends", "quite", "early", "later", "after", "work",
          "slowly", "weekend", "plans", "moving", "moved", "talked", "about", "the"]


def memory_text(row: int) -> str:
    rng = random.Random(row)
    words = rng.sample(TOPICS, 2) + rng.sample(FILLER, k=rng.randint(1, 5))
    rng.shuffle(words)
    return f"{' '.join(words)} number{row}"


def forced(storage: SqliteStorage) -> SqliteSearchIndex:
    """A search index on ``storage``'s file that takes the full-text index's path."""
    index = SqliteSearchIndex(storage.engine, database=storage.path, text_min_rows=500)
    index.ensure_dimensions(8)
    return index


def found(index: SqliteSearchIndex, storage: SqliteStorage, query: str,
          limit: int = 10) -> list[IndexHit]:
    with storage.read() as session:
        return index.text_search(session, IndexedKind.MEMORY, query, SearchFilters(), limit)


def ids(index: SqliteSearchIndex, storage: SqliteStorage, query: str,
        limit: int = 10) -> list[int]:
    return [hit.id for hit in found(index, storage, query, limit)]


def state(index: SqliteSearchIndex) -> derived.IndexState:
    return next(s for s in index.text_index_states() if s.table == "memories_fts")


def index_folder(storage: SqliteStorage) -> Path:
    assert storage.path is not None
    return text_index.index_folder(storage.path)


@pytest.fixture(scope="module")
def built_folder(tmp_path_factory: pytest.TempPathFactory,
                 sqlite_template: SqliteTemplate) -> Path:
    """A database of ``ROWS`` memories and the full-text index built over them, made once
    for the module (building it is what this fixture checks: progress, and the index going
    from missing to current); each test gets a copy."""
    folder = tmp_path_factory.mktemp("built")
    opened = SqliteStorage(sqlite_template.copy_database(folder / "hearth.db"))
    try:
        opened.search.ensure_dimensions(8)
        with opened.write() as session:
            session.execute(insert(Memory), [{"content": memory_text(row)}
                                             for row in range(ROWS)])
        index = forced(opened)
        assert state(index).state == "missing"
        reported: list[tuple[int, int]] = []
        assert index.refresh_search_indexes(
            progress=lambda done, total: reported.append((done, total)))
        assert reported[-1] == (ROWS, ROWS)
        assert state(index).state == "current"
    finally:
        opened.close()
    return folder


@pytest.fixture
def database(built_folder: Path, tmp_path: Path) -> Iterator[SqliteStorage]:
    """A copy of the built database and its index folder (a plain file copy keeps the
    database's generation, so the copied index is the copy's own). Not named ``storage``:
    that name would run every test again as a ``[postgresql]`` variant."""
    folder = Path(shutil.copytree(built_folder, tmp_path / "built"))
    opened = SqliteStorage(folder / "hearth.db")
    try:
        yield opened
    finally:
        opened.close()


def test_the_index_ranks_as_fts5_does(database: SqliteStorage) -> None:
    """Same terms, same BM25 (k1 1.2, b 0.75): the top 10 agree with FTS5's. Only the
    edges differ: tantivy's IDF is Lucene's (``ln(1 + ...)``, which weighs a common term a
    little more), its length norms take one byte, and ties fall differently."""
    index = forced(database)
    overlap = []
    for seed in range(40):
        rng = random.Random(seed)
        query = " ".join(rng.sample(TOPICS, 2) + rng.sample(FILLER, 2))
        ours = found(index, database, query)
        theirs = found(database.search, database, query, limit=100)  # FTS5 (small table)
        assert len(ours) == 10
        assert [hit.score for hit in ours] == sorted((hit.score for hit in ours),
                                                     reverse=True)
        scores = {hit.id: hit.score for hit in theirs}
        tenth = theirs[9].score  # a row tying FTS5's tenth is as good an answer as it
        overlap.append(sum(scores.get(hit.id, 0.0) >= tenth * (1 - 1e-6) for hit in ours) / 10)
    assert sum(overlap) / len(overlap) >= 0.9
    assert ids(index, database, "number1234") == [1235]  # a rare term: that row alone


def test_every_change_is_found_at_once_from_any_process(database: SqliteStorage) -> None:
    index = forced(database)
    other = SqliteStorage(database.path)
    try:
        with other.write() as session:  # another process's connection writes
            added = Memory(content="Ines keeps a zorblax by the kayak")
            session.add(added)
            session.flush()
            new_id = added.id
            session.execute(update(Memory).where(Memory.id == 7).values(
                content="the violin went to Porto with Quillon"))
            session.execute(delete(Memory).where(Memory.id == 8))
    finally:
        other.close()
    assert ids(index, database, "zorblax")[0] == new_id  # pending, scored in memory
    assert ids(index, database, "Ines")[0] == new_id  # a name, not "in"
    assert 7 not in ids(index, database, memory_text(6).split()[-1])  # its former text
    assert ids(index, database, "Quillon") == [7]
    assert 8 not in ids(index, database, memory_text(7).split()[-1], limit=50)
    assert state(index).state == "current"
    assert index.refresh_search_indexes()  # below COMPACT_AFTER: nothing rebuilt
    assert ids(index, database, "zorblax")[0] == new_id


def test_pending_changes_are_folded_by_a_rebuild_that_trims_the_log(
        database: SqliteStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    index = forced(database)
    with database.write() as session:
        session.execute(insert(Memory), [{"content": f"quokka sighting {n}"}
                                         for n in range(5)])
    before = ids(index, database, "quokka")
    monkeypatch.setattr(text_index, "COMPACT_AFTER", 5)
    assert index.refresh_search_indexes()
    with database.read() as session:
        logged = session.execute(text(
            f"SELECT count(*) FROM {derived.CHANGES_TABLE} WHERE vectors = 'memories_fts'"))
        assert logged.scalar_one() == 0
    fresh = forced(database)
    assert sorted(ids(fresh, database, "quokka")) == sorted(before)
    assert len(list(index_folder(database).glob("memories_fts-*"))) == 1


def test_a_filtered_search_keeps_only_passing_rows(database: SqliteStorage) -> None:
    index = forced(database)
    with database.write() as session:
        session.execute(update(Memory).where(Memory.id <= 1000).values(is_valid=False))
    hits = ids(index, database, "garden tomatoes", limit=20)
    assert len(hits) == 20 and all(hit > 1000 for hit in hits)

    with database.write() as session:  # a namespace that keeps 5 rows of 2,000
        session.execute(update(Memory).where(Memory.id.in_([1995, 1996, 1997, 1998, 1999]))
                        .values(namespace="travel", is_valid=True))
    travel = SearchFilters(namespaces=("travel",))
    with database.read() as session:
        narrowed = index.text_search(session, IndexedKind.MEMORY, "garden tomatoes violin "
                                     "kayak chess piano train cat", travel, 10)
        theirs = database.search.text_search(session, IndexedKind.MEMORY, "garden tomatoes "
                                             "violin kayak chess piano train cat", travel, 10)
    assert {hit.id for hit in narrowed} == {hit.id for hit in theirs} <= set(range(1995, 2000))
    assert narrowed


def test_a_missing_damaged_or_foreign_index_is_not_trusted(database: SqliteStorage,
                                                           tmp_path: Path) -> None:
    folder = index_folder(database)
    expected = ids(database.search, database, "piano marathon")  # FTS5's answer
    shutil.rmtree(folder)
    fresh = forced(database)
    assert state(fresh).state == "missing"
    assert ids(fresh, database, "piano marathon") == expected  # FTS5 answers meanwhile
    assert fresh.refresh_search_indexes()
    assert state(fresh).state == "current"

    (folder / "memories_fts.json").write_text("{not json")
    assert state(forced(database)).state == "missing"
    assert forced(database).refresh_search_indexes()
    assert len(list(folder.glob("memories_fts-*"))) == 1  # the unnamed folder is gone


@pytest.mark.parametrize("copied", ["backup", "file copy"])
def test_a_restored_older_database_is_noticed(database: SqliteStorage, tmp_path: Path,
                                              copied: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A backup gets a generation of its own; a plain copy of the file (a file-system
    snapshot put back) is older than the index's change log."""
    older = tmp_path / "older.db"
    if copied == "backup":
        database.backup_to(older)
    else:
        with database.engine.connect() as connection:
            connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
        shutil.copyfile(database.path, older)
    with database.write() as session:
        session.add(Memory(content="wombat only after the backup"))
    monkeypatch.setattr(text_index, "COMPACT_AFTER", 1)
    assert forced(database).refresh_search_indexes()  # the index holds the wombat now
    path = database.path
    database.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(older, path)
    restored = SqliteStorage(path)
    try:
        index = forced(restored)
        assert state(index).state == "stale"
        assert ("not the one" if copied == "backup" else "older") in state(index).reason
        assert ids(index, restored, "wombat") == []  # FTS5 answers: the rows' truth
        assert index.refresh_search_indexes()
        assert state(index).state == "current"
        assert ids(index, restored, "wombat") == []
    finally:
        restored.close()


def test_a_rebuild_cancelled_or_killed_halfway_changes_nothing(database: SqliteStorage) -> None:
    folder = index_folder(database)
    (folder / "memories_fts-killed0000").mkdir()  # a rebuild killed before its header
    (folder / "memories_fts-killed0000" / "meta.json").write_text("{}")
    (folder / ".memories_fts.json.1234.partial").write_text('{"version": 1')
    index = forced(database)
    assert state(index).state == "current"
    shutil.rmtree(folder / next(p.name for p in folder.glob("memories_fts-*")
                                if "killed" not in p.name))
    stale = forced(database)
    assert state(stale).state == "stale"
    assert not stale.refresh_search_indexes(cancel=lambda: True)
    assert state(forced(database)).state == "stale"
    assert stale.refresh_search_indexes()
    assert state(forced(database)).state == "current"
    assert [path.name for path in folder.iterdir() if "killed" in path.name
            or path.name.endswith(".partial")] == []


def test_a_forgotten_row_leaves_no_trace_in_the_index_files(
        database: SqliteStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    """tantivy only marks a deleted document until a merge; a forget rebuilds the folder, so
    the term is in no file and no index answers for it. (Its term dictionary is a
    compressed automaton: a term's bytes need not appear whole in a file, so the check is
    the index's own answer for the term.)"""
    import tantivy

    index = forced(database)
    secret = "zqxpassport93817446"
    with database.write() as session:
        session.add(Memory(content=f"my passport number is {secret}"))
    assert ids(index, database, secret) != []
    monkeypatch.setattr(text_index, "COMPACT_AFTER", 1)
    assert index.refresh_search_indexes()  # the secret is now in the folder's files
    folder = index_folder(database)

    def holders() -> int:
        (name,) = [p for p in folder.glob("memories_fts-*") if p.is_dir()]
        opened = tantivy.Index.open(str(name))
        return int(opened.searcher().doc_freq("c0", term(secret)))

    assert holders() == 1
    with database.write() as session:
        session.execute(delete(Memory).where(Memory.content.contains(secret)))
    database.erase_deleted()
    assert holders() == 0
    assert ids(forced(database), database, secret) == []


def test_the_index_files_are_private(database: SqliteStorage) -> None:
    folder = index_folder(database)
    assert folder.stat().st_mode & 0o077 == 0
    assert all(path.stat().st_mode & 0o077 == 0 for path in folder.iterdir() if path.is_dir())


def test_a_process_killed_while_it_rebuilds_leaves_search_exactly_right(
        database: SqliteStorage, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real kill (``os._exit`` half way through indexing, no cleanup): the previous folder
    stays in use with the rows changed since, the half-built one is never trusted, and the
    next rebuild removes it."""
    import os
    import subprocess
    import sys

    with database.write() as session:
        session.add(Memory(content="okapi seen at the zoo"))
        session.execute(delete(Memory).where(Memory.id == 11))
    script = f"""
import os
from pathlib import Path
from core.storage.sqlite import text_index
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.search import SqliteSearchIndex
storage = SqliteStorage(Path({str(database.path)!r}))
index = SqliteSearchIndex(storage.engine, database=storage.path, text_min_rows=500)
index.ensure_dimensions(8)
text_index.COMPACT_AFTER = 1
def killed(done, total):
    if done >= 1_000:
        os._exit(9)
index.refresh_search_indexes(progress=killed)
"""
    environment = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    done = subprocess.run([sys.executable, "-c", script], env=environment, check=False,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr[-2000:]
    folder = index_folder(database)
    assert len([path for path in folder.glob("memories_fts-*") if path.is_dir()]) == 2

    index = forced(database)
    assert state(index).state == "current"  # the previous folder, caught up from the log
    assert ids(index, database, "okapi") == [ROWS + 1]
    assert 11 not in ids(index, database, memory_text(10).split()[-1], limit=50)
    monkeypatch.setattr(text_index, "COMPACT_AFTER", 1)
    assert index.refresh_search_indexes()
    assert len([path for path in folder.glob("memories_fts-*") if path.is_dir()]) == 1
    assert ids(forced(database), database, "okapi") == [ROWS + 1]
