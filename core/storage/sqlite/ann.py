"""An approximate-nearest-neighbour index beside the database: derived data, never trusted blind.

From ``ANN_MIN_ROWS`` vectors a vector table is searched through an HNSW graph (usearch,
int8) for a shortlist that ``core.storage.sqlite.search`` rescores exactly, so the index
decides only speed, never a score. It lives in ``<database>.vector-index/``; SQLite stays
the source of truth: triggers log every vector change to ``vector_changes``, every search
first catches up on the log, and a file that disagrees with the rows (generation,
high-water mark, count, a sample of vectors) is *stale*, so search falls back to the bit
scan until ``rebuild`` runs. Files are committed by a header renamed into place, sealed in
an encrypted folder, and rewritten without a forgotten vector's bytes.

usearch is imported lazily and only from ``core.native_libraries``, which loads onnxruntime
first: the other order crashes the process.

See docs/data-model.md, "The ANN index files".
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import filelock
import numpy as np
from sqlalchemy import Connection, Engine, bindparam
from sqlalchemy import text as sql

from core import native_libraries
from core.home import encryption
from core.storage.durable import sync_folder
from core.storage.sqlite.derived import (
    CHANGES_TABLE,
    CancelCheck,
    IndexState,
    ProgressCallback,
    Stale,
    commit_header,
    generation,
    high_water,
    log_position,
    logged_since,
    read_header,
    rebuild_each,
    trim_unindexed,
    write_atomically,
)
from core.storage.sqlite.ann_seal import MAGIC, SealError, is_sealed, seal, subkey, unseal

log = logging.getLogger(__name__)

ANN_MIN_ROWS = 50_000
"""A table with fewer vectors is scanned (exactly, or by its bits): below this the scan
costs under ~8 ms and the index would only add upkeep."""

CONNECTIVITY = 16
EXPANSION_ADD = 128
EXPANSION_SEARCH = 256
DTYPE = "i8"
"""HNSW parameters, measured in ``benchmarks/ann_choice.py``: int8 vectors keep the file at
a quarter of the floats' size, and the exact rescoring makes up for their rounding."""

BATCH_EXPANSION = 64
"""Search depth for batches of neighbour queries (the link stage's kNN over every row):
it asks for a handful of neighbours, not a shortlist of hundreds."""

COMPACT_AFTER = 2_000
"""Pending changes (delta rows plus masked graph rows) that ``refresh`` folds into a new
file (and with it trims the log); fewer are left in the log."""

VERIFY_SAMPLE = 16
"""Rows (picked at random) whose vectors are compared with the file's when a process first
uses it: a file that lacks a row, or holds another vector for it, is stale."""

BUILD_BATCH = 10_000
"""Vectors read and added per step of a rebuild (progress and cancel between steps)."""

HEADER_VERSION = 1
FOLDER_SUFFIX = ".vector-index"
_PLACEHOLDER_KEY = 1 << 62
"""Keys from here on are placeholders that overwrite the bytes of removed vectors."""

SealKey = Callable[[], bytes]
"""The index key of an encrypted folder, found when a file is first read or written (the
folder may be unlocked after the index object is made)."""


def index_folder(database: Path) -> Path:
    """Where the indexes of ``database`` live: ``<database>.vector-index/``."""
    return database.with_name(database.name + FOLDER_SUFFIX)


# --- the header: what a file holds -----------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """The commit record of one index file (``<table>.json``)."""

    version: int
    generation: str
    applied: int
    count: int
    dimensions: int
    file: str
    size: int


def _fsync_file(path: Path) -> None:
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def new_graph(dimensions: int) -> Any:
    return native_libraries.usearch_index().Index(
        ndim=dimensions, metric="cos", dtype=DTYPE, connectivity=CONNECTIVITY,
        expansion_add=EXPANSION_ADD, expansion_search=EXPANSION_SEARCH)


def load_graph(file: Path, key: bytes | None, *, view: bool) -> Any:
    """The graph in ``file``: a read-only view (``view``: of the mapped file in a plain
    folder, of the decrypted bytes in an encrypted one, ``key``) or a copy to change;
    None if usearch cannot read it.
    Raises ``SealError`` for a file in the wrong form or that does not open with ``key``."""
    index_type = native_libraries.usearch_index().Index
    if key is None:
        with file.open("rb") as handle:  # a few bytes: usearch must never parse ciphertext
            if is_sealed(handle.read(len(MAGIC))):
                raise SealError(f"{file.name} is encrypted, but its folder is not")
        return _with_search_depth(index_type.restore(str(file), view=view))
    plain = unseal(file.read_bytes(), key, file.name)
    graph: Any = _with_search_depth(index_type.restore(plain, view=view))
    if graph is not None and view:
        graph.hearth_buffer = plain  # the view reads these bytes: they live as long as it
    return graph


def _with_search_depth(graph: Any) -> Any:
    """``graph`` with Hearth's search and insertion depths: a saved file keeps neither, and
    usearch's default search depth (64) misses a tenth more of the true nearest rows."""
    if graph is not None:
        graph.expansion_search = EXPANSION_SEARCH
        graph.expansion_add = EXPANSION_ADD
    return graph


def write_graph(graph: Any, path: Path, key: bytes | None) -> None:
    """Write ``graph`` to the new private file ``path`` (sealed under ``key`` if given) and
    flush it to disk."""
    if key is None:
        graph.save(str(path))
        os.chmod(path, 0o600)
        _fsync_file(path)
    else:
        _write_new(path, seal(graph.save(), key, path.name))


def _write_new(path: Path, data: bytes) -> None:
    """Write ``data`` to the new private file ``path`` and flush it to disk."""
    handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(handle, "wb", closefd=False) as stream:
            stream.write(data)
        os.fsync(handle)
    finally:
        os.close(handle)


# --- one table's index -----------------------------------------------------------------------


class TableIndex:
    """The ANN index of one vector table in one process: the mapped file, the delta and the
    masked rows since it, and what of the log has been applied. Thread-safe."""

    def __init__(self, engine: Engine, folder: Path, table: str, *, min_rows: int,
                 read_only: bool, seal_key: SealKey | None = None) -> None:
        """``seal_key`` is given for an encrypted folder: its files are then sealed
        (``core.storage.sqlite.ann_seal``) and read into memory instead of mapped."""
        self._engine = engine
        self._folder = folder
        self._table = table
        self._seal_key = seal_key
        self._min_rows = min_rows
        self._read_only = read_only
        self._lock = threading.RLock()
        self._header: Header | None = None
        self._stamp: tuple[int, int, int] | None = None
        self._graph: Any = None
        self._applied = 0
        self._delta: dict[int, np.ndarray] = {}
        self._delta_matrix: tuple[np.ndarray, np.ndarray] | None = None
        self._masked: set[int] = set()
        self._verified = False
        self._stale_reason: str | None = None

    @property
    def size(self) -> int:
        header = self._header
        return 0 if header is None else header.count

    @property
    def _header_path(self) -> Path:
        return self._folder / f"{self._table}.json"

    def _key(self) -> bytes | None:
        return None if self._seal_key is None else self._seal_key()

    # searching

    def shortlist(self, connection: Connection, query: np.ndarray, count: int) -> list[int] | None:
        """Up to ``count`` (or a few more) ids nearest to ``query`` by the index, or None when
        the table is small or its index is not current (then the caller scans)."""
        with self._lock:
            if not self._current(connection):
                return None
            graph = self._graph
            wanted = count + min(len(self._masked), count)
            found = graph.search(query, min(wanted, graph.size), threads=1)
            keys = [int(key) for key in np.asarray(found.keys) if int(key) not in self._masked]
            if self._delta:
                ids, matrix = self._stacked_delta()
                scores = matrix @ query
                best = np.argsort(-scores)[:count]
                keys.extend(int(ids[i]) for i in best)
            return keys

    def neighbours(self, connection: Connection, queries: np.ndarray,
                   count: int) -> np.ndarray | None:
        """For each row of ``queries``, the ids of about ``count`` rows near it (-1 pads),
        searched on every core with a search depth of ``BATCH_EXPANSION``; None when the
        index is not current. For consolidation's kNN over every row, which rescores."""
        with self._lock:
            if not self._usable(connection):
                return None
            graph = self._graph
            wanted = min(count + min(len(self._masked), count), graph.size)
            depth = graph.expansion_search
            graph.expansion_search = max(BATCH_EXPANSION, wanted)
            try:
                found = graph.search(queries, wanted, threads=os.cpu_count() or 1)
            finally:
                graph.expansion_search = depth
            keys = np.asarray(found.keys).astype(np.int64)
            keys[np.arange(wanted)[None, :] >= np.asarray(found.counts)[:, None]] = -1
            if self._masked:
                keys[np.isin(keys, np.fromiter(self._masked, dtype=np.int64))] = -1
            if self._delta:
                ids, matrix = self._stacked_delta()
                scores = queries @ matrix.T
                best = np.argsort(-scores, axis=1)[:, :count]
                keys = np.concatenate([keys, ids[best]], axis=1)
            return keys

    def _stacked_delta(self) -> tuple[np.ndarray, np.ndarray]:
        if self._delta_matrix is None:
            ids = np.fromiter(self._delta, dtype=np.int64, count=len(self._delta))
            self._delta_matrix = ids, np.stack(list(self._delta.values()))
        return self._delta_matrix

    def _current(self, connection: Connection) -> bool:
        """Whether the index may serve this table's searches (large enough, and usable)."""
        return self._usable(connection) and self._graph.size >= self._min_rows

    def _usable(self, connection: Connection) -> bool:
        """Map the newest file, catch up with the log, check it once; False if it has no
        file or disagrees with the rows."""
        self._reload_if_replaced()
        if self._graph is None or self._stale_reason is not None:
            return False
        try:
            self._catch_up(connection)
            if not self._verified:
                self._verify(connection)
                self._verified = True
        except Stale as stale:
            self._mark_stale(str(stale))
            return False
        return True

    def _mark_stale(self, reason: str) -> None:
        if self._stale_reason is None:
            log.warning("The vector index of %s is out of date (%s); searches scan the "
                        "table until it is rebuilt.", self._table, reason)
        self._stale_reason = reason

    def pending(self) -> int:
        """Changes since the file: rows in the delta plus masked graph rows."""
        return len(self._delta) + len(self._masked)

    def _reload_if_replaced(self) -> None:
        """Map the file the header names if the header changed since it was read."""
        try:
            info = self._header_path.stat()
            stamp: tuple[int, int, int] | None = (info.st_ino, info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self._graph, self._header = None, None
        self._delta, self._delta_matrix, self._masked = {}, None, set()
        self._verified, self._stale_reason = False, None
        header = (read_header(self._header_path, Header, HEADER_VERSION, "vector index")
                  if stamp is not None else None)
        if header is None:
            return
        file = self._folder / header.file
        try:
            if file.stat().st_size != header.size:
                raise Stale(f"{file.name} is not the size its header records")
            graph = load_graph(file, self._key(), view=True)
            if graph is None or graph.size != header.count or graph.ndim != header.dimensions:
                raise Stale(f"{file.name} does not hold what its header records")
        except (OSError, RuntimeError, ValueError, Stale) as error:  # SealError is a ValueError
            self._mark_stale(str(error))
            return
        self._graph, self._header, self._applied = graph, header, header.applied

    def _catch_up(self, connection: Connection) -> None:
        """Apply the log entries after ``applied`` for this table; raise ``Stale`` if the
        database is not the one the file was built from, or went back in time.

        The checks and "is there anything new?" are one statement: this runs before every
        search, and three round trips cost ~0.5 ms of a ~5 ms vector search at 100k rows."""
        built_from, trimmed, water, newest = log_position(connection, self._table,
                                                          self._applied)
        reloaded = trimmed > self._applied
        if reloaded:  # a newer file holds what was trimmed: map it (``applied`` moves)
            self._stamp = None
            self._reload_if_replaced()
            if self._graph is None or self._applied < trimmed:
                raise Stale("its changes were trimmed, and no newer file holds them")
        assert self._header is not None
        if built_from != self._header.generation:
            raise Stale("the database is not the one it was built from")
        if water < self._applied:
            raise Stale("the database is older than the index (a restored backup?)")
        if newest is None and not reloaded:  # nothing logged after ``applied``
            return
        changed, last = logged_since(connection, self._table, self._applied)
        if not changed:
            return
        current = _vectors_of(connection, self._table, changed)
        for item_id in changed:
            if self._graph.contains(item_id):
                self._masked.add(item_id)
            vector = current.get(item_id)
            if vector is None:
                self._delta.pop(item_id, None)
            else:
                self._delta[item_id] = vector
        self._delta_matrix = None
        self._applied = last

    def _verify(self, connection: Connection) -> None:
        """The index must answer for exactly the table's rows (graph rows still standing,
        plus rows only in the delta), and hold a sample of rows with their vectors."""
        rows = _count(connection, self._table)
        known = self._graph.size - len(self._masked) + len(self._delta)
        if known != rows:
            raise Stale(f"it answers for {known:,} vectors but the table has {rows:,}")
        top = connection.execute(sql(f"SELECT max(id) FROM {self._table}")).scalar_one()
        rng = np.random.default_rng()
        for start in rng.integers(1, int(top or 0) + 1, VERIFY_SAMPLE if top else 0):
            row = connection.execute(sql(
                f"SELECT id, embedding FROM {self._table} WHERE id >= :start ORDER BY id "
                f"LIMIT 1"), {"start": int(start)}).first()
            if row is None or row[0] in self._masked or row[0] in self._delta:
                continue
            if not self._graph.contains(row[0]):
                raise Stale(f"it lacks row {row[0]}")
            held = np.asarray(self._graph.get(row[0], dtype="f32"), dtype=np.float32)
            if _cosine(np.frombuffer(row[1], dtype=np.float32), held) < 0.98:
                raise Stale(f"its vector for row {row[0]} is not the row's")

    # writing files

    def fold(self, minimum: int) -> None:
        """Write a new file holding the changes since the current one (and trim the log),
        if at least ``minimum`` are pending. A stale index's files are deleted instead: it
        is rebuilt from the rows, and must not keep vectors the rows no longer have.
        Takes the table's file lock, so processes take turns."""
        if self._read_only or not self._header_path.exists():
            return
        with filelock.FileLock(self._folder / f"{self._table}.lock", mode=0o600), \
                self._lock, self._engine.connect() as connection:
            if not self._usable(connection):
                self.discard()
                return
            if self.pending() < max(minimum, 1):
                return
            header = self._header
            assert header is not None
            try:
                graph = load_graph(self._folder / header.file, self._key(), view=False)
            except (OSError, SealError) as error:
                log.warning("The vector index file %s cannot be read again (%s); it will be "
                            "rebuilt.", header.file, error)
                graph = None
            if graph is None:  # unreadable since it was mapped: rebuilt from the rows
                self.discard()
                return
            removed = 0
            for item_id in sorted(self._masked):
                removed += int(graph.remove(item_id))
            if self._delta:
                ids, matrix = self._stacked_delta()
                graph.add(ids, matrix, threads=os.cpu_count() or 1)
            _scrub(graph, removed - len(self._delta))
            self._save(graph, header.generation, self._applied)

    def discard(self) -> None:
        """Delete this table's header and files (they disagree with the rows)."""
        with self._lock:
            self._header_path.unlink(missing_ok=True)
            self._remove_unnamed(keep="")
            self._stamp = None
            self._reload_if_replaced()

    def _save(self, graph: Any, generation: str, applied: int) -> None:
        """Write ``graph`` under a new name, commit it by the header, trim the log, map it."""
        self._folder.mkdir(mode=0o700, exist_ok=True)
        name = f"{self._table}-{secrets.token_hex(6)}.usearch"
        path = self._folder / name
        write_graph(graph, path, self._key())
        header = Header(HEADER_VERSION, generation, applied, int(graph.size),
                        int(graph.ndim), name, path.stat().st_size)
        commit_header(self._engine, self._header_path, header, self._table, applied)
        self._remove_unnamed(keep=name)
        self._stamp = None
        self._reload_if_replaced()

    def _remove_unnamed(self, keep: str) -> None:
        """Delete this table's files no header names (older files, a killed save's)."""
        for file in self._folder.glob(f"{self._table}-*.usearch"):
            if file.name != keep:
                try:
                    file.unlink()
                except OSError as error:  # mapped elsewhere on a system that forbids it
                    log.info("could not remove the old vector index %s yet: %s", file, error)
        for file in self._folder.glob(f".{self._table}.json.*.partial"):
            file.unlink(missing_ok=True)

    # rebuilding

    def state(self, connection: Connection) -> IndexState:
        """Whether this table's index is current, without changing anything on disk."""
        with self._lock:
            rows = _count(connection, self._table)
            if rows < self._min_rows and not self._header_path.exists():
                return IndexState(self._table, rows, "not needed")
            if self._usable(connection):
                return IndexState(self._table, rows, "current")
            if self._stale_reason is not None:
                return IndexState(self._table, rows, "stale", self._stale_reason)
            if rows < self._min_rows:
                return IndexState(self._table, rows, "not needed")
            return IndexState(self._table, rows, "missing")

    def rebuild(self, progress: ProgressCallback | None, cancel: CancelCheck | None) -> bool:
        """Build the index from the table's rows and commit it; False if cancelled (then
        nothing changed). Holds the table's file lock, so processes take turns."""
        self._folder.mkdir(mode=0o700, exist_ok=True)
        lock = filelock.FileLock(self._folder / f"{self._table}.lock", mode=0o600)
        with lock:
            with self._engine.connect() as connection:
                built_from = generation(connection)
                applied = high_water(connection)
                total = _count(connection, self._table)
                dimensions = _width(connection, self._table)
            graph = new_graph(dimensions)
            done, after = 0, 0
            while True:
                if cancel is not None and cancel():
                    return False
                with self._engine.connect() as connection:
                    rows = connection.execute(sql(
                        f"SELECT id, embedding FROM {self._table} WHERE id > :after "
                        f"ORDER BY id LIMIT :page"), {"after": after, "page": BUILD_BATCH}).all()
                if not rows:
                    break
                ids = np.fromiter((row[0] for row in rows), dtype=np.int64, count=len(rows))
                matrix = np.frombuffer(b"".join(row[1] for row in rows),
                                       dtype=np.float32).reshape(len(rows), dimensions)
                graph.add(ids, matrix, threads=os.cpu_count() or 1)
                done += len(rows)
                after = int(ids[-1])
                if progress is not None:
                    progress(done, max(total, done))
            with self._lock:
                self._save(graph, built_from, applied)
            return True


def _scrub(graph: Any, freed: int) -> None:
    """Overwrite the bytes of ``freed`` removed vectors: placeholders take the freed slots
    (usearch reuses them first), then are removed again, leaving only their own bytes."""
    if freed <= 0:
        return
    keys = np.arange(_PLACEHOLDER_KEY, _PLACEHOLDER_KEY + freed, dtype=np.uint64)
    filler = np.full((freed, graph.ndim), 1.0 / np.sqrt(graph.ndim), dtype=np.float32)
    graph.add(keys, filler, threads=1)
    graph.remove(keys)


def _cosine(a: np.ndarray, b: np.ndarray) -> float:
    norms = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / norms if norms else 0.0


def _count(connection: Connection, table: str) -> int:
    """Rows of a vector table, counted on its bit twin when it has one (48-byte rows: a
    tenth of the pages of the float table)."""
    counted = table[:-len("_vec")] + "_vec_bits" if table.endswith("_vec") else table
    return int(connection.execute(sql(f"SELECT count(*) FROM {counted}")).scalar_one())


def _width(connection: Connection, table: str) -> int:
    value = connection.execute(sql(
        "SELECT value FROM vector_index_meta WHERE key = 'dimensions'")).scalar_one()
    return int(value)


def _vectors_of(connection: Connection, table: str,
                ids: Sequence[int]) -> dict[int, np.ndarray]:
    found: dict[int, np.ndarray] = {}
    for start in range(0, len(ids), 500):
        statement = sql(f"SELECT id, embedding FROM {table} WHERE id IN :ids").bindparams(
            bindparam("ids", expanding=True))
        for row in connection.execute(statement, {"ids": list(ids[start:start + 500])}):
            found[int(row[0])] = np.frombuffer(row[1], dtype=np.float32).copy()
    return found


def _folder_seal_key(database: Path) -> SealKey:
    """The index key of ``database``'s encrypted folder, derived once it is first needed."""
    found: list[bytes] = []

    def key() -> bytes:
        if not found:
            database_key = encryption.key_for(database)
            assert database_key is not None  # the folder is encrypted
            found.append(subkey(database_key))
        return found[0]

    return key


def convert_files(database: Path, old_key: str | None, new_key: str | None) -> int:
    """Rewrite the index files of ``database`` from the folder key ``old_key`` to
    ``new_key`` (SQLCipher's raw keys; None: plain), for ``hearth encrypt`` / ``decrypt``;
    returns how many were rewritten. Each is written under a new name, flushed, committed
    by its header, and only then is the old file removed: cut short, every header names a
    whole file, in its old or new form, and running it again finishes (a file already in
    the new form is left alone). A file that cannot be read (missing, changed, another key)
    is deleted with its header: it is rebuilt from the rows like any stale index. Files no
    header names are removed. The caller holds the folder's exclusive lock."""
    folder = index_folder(database)
    if not folder.is_dir():
        return 0
    old = None if old_key is None else subkey(old_key)
    new = None if new_key is None else subkey(new_key)
    converted, named = 0, set()
    for header_path in sorted(folder.glob("*.json")):
        header = read_header(header_path, Header, HEADER_VERSION, "vector index")
        file = folder / header.file if header is not None else None
        try:
            if header is None or file is None:
                raise SealError(f"{header_path.name} is not a vector index header")
            data = file.read_bytes()
            if is_sealed(data) == (new is not None):
                named.add(header.file)
                continue
            plain = data if old is None else unseal(data, old, file.name)
        except (OSError, SealError) as error:
            log.warning("dropping the vector index %s (%s); it will be rebuilt",
                        header_path.name, error)
            header_path.unlink()
            continue
        name = f"{header_path.stem}-{secrets.token_hex(6)}.usearch"
        _write_new(folder / name, plain if new is None else seal(plain, new, name))
        committed = Header(**{**asdict(header), "file": name,
                              "size": (folder / name).stat().st_size})
        write_atomically(header_path, json.dumps(asdict(committed)).encode())
        file.unlink()
        named.add(name)
        converted += 1
    for leftover in [*folder.glob("*.usearch"), *folder.glob(".*.partial")]:
        if leftover.name not in named:
            leftover.unlink()
    sync_folder(folder)
    return converted


# --- every table's index --------------------------------------------------------------------


class VectorIndexes:
    """The ANN indexes of one database file, one per vector table, made on first use."""

    def __init__(self, engine: Engine, database: Path, tables: Sequence[str], *,
                 min_rows: int = ANN_MIN_ROWS, read_only: bool = False) -> None:
        self._folder = index_folder(database)
        seal_key = (_folder_seal_key(database)
                    if encryption.encrypted_folder(database) is not None else None)
        self._indexes = {table: TableIndex(engine, self._folder, table, min_rows=min_rows,
                                           read_only=read_only, seal_key=seal_key)
                         for table in tables}
        self._engine = engine
        self._min_rows = min_rows
        self._read_only = read_only

    def shortlist(self, connection: Connection, table: str, query: np.ndarray,
                  count: int) -> list[int] | None:
        return self._indexes[table].shortlist(connection, query, count)

    def neighbours(self, connection: Connection, table: str, queries: np.ndarray,
                   count: int) -> np.ndarray | None:
        return self._indexes[table].neighbours(connection, queries, count)

    def size(self, table: str) -> int:
        """Vectors in ``table``'s index file (0 without one): the scale of a shortlist."""
        return self._indexes[table].size

    def states(self) -> list[IndexState]:
        """Each vector table's state (none before the vector tables exist)."""
        with self._engine.connect() as connection:
            present = set(connection.execute(sql(
                "SELECT name FROM sqlite_master WHERE type = 'table'")).scalars())
            if CHANGES_TABLE not in present:
                return []
            return [index.state(connection) for table, index in self._indexes.items()
                    if table in present]

    def backlog(self) -> int:
        """Rows ``refresh`` would rebuild an index from (0 read-only: it would not)."""
        if self._read_only:
            return 0
        return sum(state.rows for state in self.states() if state.state in ("missing", "stale"))

    def refresh(self, progress: ProgressCallback | None = None,
                cancel: CancelCheck | None = None) -> bool:
        """Bring every index up to date: rebuild those missing or stale on a table large
        enough to need one, with ``progress(done, total)`` over all of them, and fold
        ``COMPACT_AFTER`` or more pending changes into a new file; trim the log entries of
        tables without an index (nobody needs them). False if ``cancel()`` stopped it
        (files already written stay; nothing half-written is ever used)."""
        if self._read_only:
            return True
        states = self.states()
        todo = [(state, self._indexes[state.table].rebuild) for state in states
                if state.state in ("missing", "stale")]
        if not rebuild_each(todo, progress, cancel):
            return False
        for state in states:
            if state.state == "current":
                self._indexes[state.table].fold(COMPACT_AFTER)
        trim_unindexed(self._engine, states, self._folder)
        return True

    def erase_removed(self) -> None:
        """Write every index anew without the vectors deleted since its file, so no file
        keeps a deleted row's vector (``StoragePort.erase_deleted``, after a forget)."""
        for index in self._indexes.values():
            index.fold(1)
