"""The ANN index beside the database: it agrees with exact search, follows every change made
by any process at once, is never trusted when it disagrees with the rows, and keeps no copy
of a deleted vector (``core.storage.sqlite.ann``).

Real SQLite and usearch; the thresholds are lowered so a few thousand vectors take the ANN
path (``exact_max_rows=0``, ``ann_min_rows=500``).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import delete, func, insert, select, text

from core.storage.orm import Memory
from support.templates import SqliteTemplate
from core.storage.port import IndexedKind, SearchFilters
from core.storage.sqlite import ann, derived
from core.storage.sqlite.adapter import SqliteStorage
from core.storage.sqlite.search import SqliteSearchIndex

DIMENSIONS = 64
ROWS = 3_000
MODEL = "test-model"


def clustered(count: int, seed: int) -> np.ndarray:
    """Unit vectors around 60 topics, like memories about a few dozen things."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((60, DIMENSIONS)).astype(np.float32)
    vectors = centres[rng.integers(0, 60, count)] + 0.6 * rng.standard_normal(
        (count, DIMENSIONS)).astype(np.float32)
    return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def forced(storage: SqliteStorage) -> SqliteSearchIndex:
    """A search index on ``storage``'s file that takes the ANN path at this size."""
    index = SqliteSearchIndex(storage.engine, database=storage.path, exact_max_rows=0,
                              ann_min_rows=500)
    index.ensure_dimensions(DIMENSIONS)
    return index


def add_memories(storage: SqliteStorage, vectors: np.ndarray) -> list[int]:
    storage.search.ensure_dimensions(DIMENSIONS)
    with storage.write() as session:
        ids = session.scalars(insert(Memory).returning(Memory.id, sort_by_parameter_order=True),
                              [{"content": f"memory {i}"} for i in range(len(vectors))]).all()
        storage.search.store_embeddings(session, IndexedKind.MEMORY, ids, vectors, MODEL)
    return list(ids)


def search(index: SqliteSearchIndex, storage: SqliteStorage, query: np.ndarray,
           limit: int = 10) -> list[int]:
    with storage.read() as session:
        return [hit.id for hit in index.vector_search(session, IndexedKind.MEMORY, query,
                                                       SearchFilters(), limit)]


def state(index: SqliteSearchIndex, table: str = "memories_vec") -> derived.IndexState:
    return next(s for s in index.vector_index_states() if s.table == table)


def index_files(storage: SqliteStorage) -> list[Path]:
    assert storage.path is not None
    return sorted(ann.index_folder(storage.path).glob("*.usearch"))


@pytest.fixture(scope="module")
def built_folder(tmp_path_factory: pytest.TempPathFactory,
                 sqlite_template: SqliteTemplate) -> tuple[Path, list[int]]:
    """A database of ``ROWS`` clustered vectors and the ANN index built over them, made once
    for the module (building it is what this fixture checks: the progress it reports and
    the index going from missing to current); each test gets a copy (``built``)."""
    folder = tmp_path_factory.mktemp("built")
    opened = SqliteStorage(sqlite_template.copy_database(folder / "hearth.db"))
    try:
        ids = add_memories(opened, clustered(ROWS, seed=1))
        index = forced(opened)
        assert state(index).state == "missing"
        reported: list[tuple[int, int]] = []
        assert index.refresh_search_indexes(
            progress=lambda done, total: reported.append((done, total)))
        assert reported[-1] == (ROWS, ROWS)
        assert state(index).state == "current"
    finally:
        opened.close()
    return folder, ids


@pytest.fixture
def database(built_folder: tuple[Path, list[int]],
             tmp_path: Path) -> Iterator[SqliteStorage]:
    """A copy of the built database and its index files (a plain file copy keeps the
    database's vector generation, so the copied index is the copy's own). Not named
    ``storage``: the ANN index is SQLite's, and that name would run every test a second
    time as a ``[postgresql]`` variant on the same SQLite file."""
    folder = Path(shutil.copytree(built_folder[0], tmp_path / "built"))
    opened = SqliteStorage(folder / "hearth.db")
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def built(database: SqliteStorage, built_folder: tuple[Path, list[int]]
          ) -> tuple[SqliteStorage, SqliteSearchIndex, list[int], np.ndarray]:
    index = forced(database)
    assert state(index).state == "current"
    return database, index, built_folder[1], clustered(ROWS, seed=1)


def test_ann_search_agrees_with_exact_search(built) -> None:
    storage, index, ids, vectors = built
    queries = clustered(100, seed=2)
    scores = []
    for query in queries:
        exact = vectors @ query
        tenth = np.partition(exact, -10)[-10] - 1e-6
        found = search(index, storage, query)
        assert len(found) == 10
        scores.append(sum(exact[ids.index(row)] >= tenth for row in found) / 10)
    assert np.mean(scores) >= 0.98
    with storage.read() as session:  # the scores are exact cosines, not the graph's
        hit = index.vector_search(session, IndexedKind.MEMORY, queries[0], SearchFilters(), 1)[0]
    assert hit.score == pytest.approx(float(vectors[ids.index(hit.id)] @ queries[0]), abs=1e-5)


def test_a_delete_in_another_process_is_out_of_its_results_at_once(built) -> None:
    storage, index, ids, vectors = built
    other = SqliteStorage(storage.path)
    try:
        theirs = forced(other)
        # a memory the approximate search finds first by its own vector (the graph is built
        # on two threads, so now and then one vector's shortlist misses it)
        picked = next(row for row in range(100, 200)
                      if search(theirs, other, vectors[row])[0] == ids[row])
        target = ids[picked]
        with storage.write() as session:  # a forget, in this process
            session.execute(delete(Memory).where(Memory.id == target))
        assert target not in search(theirs, other, vectors[picked], limit=50)
        assert target not in search(index, storage, vectors[picked], limit=50)
        fresh = clustered(1, seed=3)
        new_id = add_memories(storage, fresh)[0]
        assert search(theirs, other, fresh[0])[0] == new_id  # added elsewhere, found here
        assert state(theirs).state == "current"
    finally:
        other.close()


def test_a_deleted_vector_is_in_no_index_file_after_erase(built) -> None:
    storage, index, ids, _ = built
    from usearch.index import Index

    target = ids[7]
    graph = Index.restore(str(index_files(storage)[0]), view=True)
    stored = np.asarray(graph.get(target, dtype="i8")).tobytes()
    del graph
    assert any(stored in file.read_bytes() for file in index_files(storage))
    with storage.write() as session:
        session.execute(delete(Memory).where(Memory.id.in_([target, ids[8], ids[9]])))
    storage.erase_deleted()
    assert index_files(storage) and not any(stored in file.read_bytes()
                                            for file in index_files(storage))
    assert state(index).state == "current"
    assert search(index, storage, clustered(1, seed=9)[0])


def test_a_changed_vector_is_searched_by_its_new_value(built) -> None:
    storage, index, ids, vectors = built
    replacement = -vectors[42]
    with storage.write() as session:
        storage.search.store_embeddings(session, IndexedKind.MEMORY, [ids[42]],
                                        replacement[None, :], MODEL)
    assert search(index, storage, replacement)[0] == ids[42]
    assert ids[42] not in search(index, storage, vectors[42], limit=20)


def test_a_missing_or_damaged_index_is_noticed_and_rebuilt(built) -> None:
    storage, index, _, vectors = built
    folder = ann.index_folder(storage.path)

    shutil.rmtree(folder)
    fresh = forced(storage)
    assert state(fresh).state == "missing"
    assert len(search(fresh, storage, vectors[0])) == 10  # the scan still answers
    assert fresh.refresh_search_indexes()
    assert state(fresh).state == "current"

    file = index_files(storage)[0]
    with file.open("r+b") as handle:  # a file cut short (a disk that filled up)
        handle.truncate(file.stat().st_size // 2)
    damaged = forced(storage)
    assert state(damaged).state == "stale"
    assert len(search(damaged, storage, vectors[0])) == 10
    assert damaged.refresh_search_indexes()
    assert state(damaged).state == "current"

    (folder / "memories_vec.json").write_text("{not json")
    assert state(forced(storage)).state == "missing"
    rebuilt = forced(storage)
    assert rebuilt.refresh_search_indexes()
    assert len(index_files(storage)) == 1  # the unnamed file of the broken header is gone


def test_a_save_killed_halfway_leaves_the_previous_file_in_use(built) -> None:
    storage, _, _, vectors = built
    folder = ann.index_folder(storage.path)
    named = index_files(storage)[0]
    (folder / "memories_vec-killed00.usearch").write_bytes(b"half a file")
    (folder / ".memories_vec.json.1234.partial").write_text('{"version": 1')
    index = forced(storage)
    assert state(index).state == "current"
    assert search(index, storage, vectors[5])[0] is not None
    with storage.write() as session:
        session.execute(delete(Memory).where(Memory.id == 1))
    storage.erase_deleted()  # the next save removes what no header names
    assert named not in index_files(storage)
    assert [path.name for path in folder.iterdir() if "killed" in path.name
            or path.name.endswith(".partial")] == []


@pytest.mark.parametrize("copied", ["backup", "file copy"])
def test_a_restored_older_database_is_noticed(built, tmp_path: Path, copied: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """A backup gets a generation of its own; a plain copy of the file (a file-system
    snapshot put back) is older than the index's change log."""
    storage, index, _, vectors = built
    older = tmp_path / "older.db"
    if copied == "backup":
        storage.backup_to(older)
    else:
        with storage.engine.connect() as connection:
            connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
        shutil.copyfile(storage.path, older)
    add_memories(storage, clustered(20, seed=4))
    monkeypatch.setattr(ann, "COMPACT_AFTER", 1)
    assert index.refresh_search_indexes()  # the file now holds changes the copy lacks
    path = storage.path
    storage.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(older, path)
    restored = SqliteStorage(path)
    try:
        index = forced(restored)
        assert state(index).state == "stale"
        assert ("not the one" if copied == "backup" else "older") in state(index).reason
        assert len(search(index, restored, vectors[0])) == 10
        assert index.refresh_search_indexes()
        assert state(index).state == "current"
    finally:
        restored.close()


def test_another_database_in_its_place_is_noticed(built, tmp_path: Path) -> None:
    storage, _, _, _ = built
    path = storage.path
    storage.close()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    other = SqliteStorage(path)
    try:
        add_memories(other, clustered(ROWS, seed=5))
        index = forced(other)
        assert state(index).state == "stale"
        assert "not the one" in state(index).reason
    finally:
        other.close()


def test_the_change_log_is_trimmed_and_a_process_on_the_older_file_follows(
        built, monkeypatch: pytest.MonkeyPatch) -> None:
    storage, index, _, _ = built
    other = SqliteStorage(storage.path)
    try:
        theirs = forced(other)
        fresh = clustered(30, seed=6)
        new_ids = add_memories(storage, fresh)
        assert search(theirs, other, fresh[0])[0] == new_ids[0]  # from the log

        def logged() -> int:
            with storage.read() as session:
                return int(session.scalar(select(func.count()).select_from(
                    text(derived.CHANGES_TABLE))) or 0)

        assert logged() >= 30
        monkeypatch.setattr(ann, "COMPACT_AFTER", 10)
        assert index.refresh_search_indexes()
        assert logged() == 0
        more = clustered(3, seed=7)
        newest = add_memories(storage, more)
        # the other process mapped the older file, whose changes were trimmed: it maps the
        # new one and catches up from there
        assert search(theirs, other, fresh[1])[0] == new_ids[1]
        assert search(theirs, other, more[2])[0] == newest[2]
        assert state(theirs).state == "current"
    finally:
        other.close()


def test_the_index_files_are_private(built) -> None:
    storage, _, _, _ = built
    folder = ann.index_folder(storage.path)
    assert folder.stat().st_mode & 0o077 == 0
    assert all(path.stat().st_mode & 0o077 == 0 for path in folder.iterdir())


def test_the_link_stage_finds_the_exact_neighbours_through_the_index(built) -> None:
    from core.consolidation.link import indexed_neighbours, nearest_neighbours, normalised

    storage, _, ids, vectors = built
    matrix = normalised(vectors.copy())
    exact = nearest_neighbours(matrix, 5, 0.5)
    approximate = indexed_neighbours(storage, np.asarray(ids), matrix, 5, 0.5)
    assert approximate is not None
    wanted = found = 0
    for row in range(len(ids)):
        truth = set(exact.index[row][exact.index[row] >= 0].tolist())
        wanted += len(truth)
        found += len(truth & set(approximate.index[row].tolist()))
        picked = approximate.index[row][approximate.index[row] >= 0]
        assert row not in picked.tolist()  # never its own neighbour
        assert np.allclose(approximate.similarity[row][:picked.size], matrix[picked] @ matrix[row],
                           atol=1e-5)  # exact cosines
    assert found / wanted >= 0.97


@pytest.mark.parametrize("key", [None, bytes(range(32))], ids=["plain", "encrypted"])
@pytest.mark.parametrize("view", [True, False], ids=["view", "copy"])
def test_a_graph_read_from_its_file_searches_as_deep_as_a_new_one(
        tmp_path: Path, key: bytes | None, view: bool) -> None:
    """A saved usearch file keeps neither depth: the next start, and every other process,
    read the graph from its file, and at usearch's default depth (64) the agreement with
    exact search fell below what the index promises."""
    graph = ann.new_graph(8)
    graph.add(np.arange(50), clustered(50, seed=3)[:, :8].copy())
    ann.write_graph(graph, tmp_path / "graph.usearch", key)

    loaded = ann.load_graph(tmp_path / "graph.usearch", key, view=view)

    assert (loaded.expansion_search, loaded.expansion_add) == (
        ann.EXPANSION_SEARCH, ann.EXPANSION_ADD)
