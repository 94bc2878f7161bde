"""A full-text index with top-k pruning beside the database: derived data, like the ANN index.

FTS5 computes BM25 for every row that matches a query term, so at a million memories its
statement alone takes 35 ms (p50); tantivy answers the same question ("the top k by BM25
for these terms") in about 1 ms by skipping what cannot enter the top k
(``docs/benchmarks.md``, "Choosing the full-text engine"). From ``TEXT_MIN_ROWS`` rows a
searchable table is searched through a tantivy index of the very terms FTS5 holds
(``core.storage.search_terms``), in ``<database>.text-index/``; below that FTS5 answers, and
so does it whenever the index is not current. SQLite stays the source of truth:

* triggers log every insert, delete and change of a searchable row's text to the change log
  the ANN index uses (``core.storage.sqlite.derived``), under ``<table>_fts``;
* each search first catches up on the log: changed rows are masked out of the file's
  answers and their current terms are scored here, in memory, by the same BM25 (k1 1.2,
  b 0.75, Lucene's IDF, the file's statistics), until the next rebuild folds them in;
* a file that disagrees with the rows (another database's generation, a log that went
  back, a count or a sampled row's terms that differ) is *stale*: FTS5 answers until
  ``refresh`` rebuilds it, with progress, into a new folder committed by its header;
* a forget rebuilds every index with pending changes (``erase_removed``), so no file keeps
  a forgotten row's terms: tantivy's own deletes only mark a document until a merge.

An encrypted data folder keeps no such index (its files would hold the terms in the
clear): FTS5 answers there at every size.

See docs/data-model.md, "The full-text index files".
"""

from __future__ import annotations

import hashlib
import logging
import math
import secrets
import shutil
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import filelock
from sqlalchemy import Connection, Engine, bindparam
from sqlalchemy import text as sql

from core.home import encryption
from core.storage.search_terms import index_terms
from core.storage.sqlite.derived import (
    CancelCheck,
    IndexState,
    ProgressCallback,
    Stale,
    change_log_objects,
    commit_header,
    generation,
    high_water,
    log_position,
    logged_since,
    read_header,
    rebuild_each,
    trim_unindexed,
)

log = logging.getLogger(__name__)

TEXT_MIN_ROWS = 50_000
"""A table with fewer rows is searched by FTS5 alone. Measured (``docs/benchmarks.md``, the
top 50 as shipped, p50 / p95): FTS5 1.1 / 1.6 ms at 10k rows, 2.7 / 4.8 ms at 50k, 4.7 /
8.7 ms at 100k, 25 / 35 ms at 1M; tantivy 0.1-0.2 ms up to 100k, 0.8 ms at 1M. Below 50k
FTS5's time hides behind the query embedding and the vector search that run beside it
(~11 ms), so an index there would add upkeep and no speed; the ANN index starts at the
same size."""

COMPACT_AFTER = 2_000
"""Pending changes (rows changed since the file) from which ``refresh`` rebuilds it."""

BUILD_BATCH = 5_000
"""Rows read and indexed per step of a rebuild (progress and cancel between steps)."""

WRITER_HEAP = 128_000_000
"""Bytes tantivy's writer buffers before it writes a segment."""

MAX_TERM_BYTES = 1_000
"""Longer terms (a pasted blob without spaces) are not indexed here; FTS5 still has them."""

K1, B = 1.2, 0.75
"""tantivy's BM25 constants (fixed), used to score the pending rows alike."""

VERIFY_SAMPLE = 8
"""Rows (picked at random) whose terms are compared with the file's when a process first
uses it."""

HEADER_VERSION = 1
FOLDER_SUFFIX = ".text-index"
ANALYZER = "terms"


def index_folder(database: Path) -> Path:
    """Where the full-text indexes of ``database`` live: ``<database>.text-index/``."""
    return database.with_name(database.name + FOLDER_SUFFIX)


@dataclass(frozen=True)
class TextSource:
    """A searchable table and the text columns its full-text index holds."""

    table: str
    columns: tuple[str, ...]

    @property
    def name(self) -> str:
        """Its name in the change log and on disk: the FTS5 table's."""
        return f"{self.table}_fts"


@dataclass(frozen=True)
class Header:
    """The commit record of one index folder (``<source>.json``)."""

    version: int
    generation: str
    applied: int
    count: int
    tokens: list[int]
    """Terms per column over every row: the average length BM25 needs for pending rows."""
    folder: str


def _digest(terms: Sequence[str]) -> int:
    """A row's terms in one number, kept beside it to check a sample against the rows."""
    data = "\x1f".join(terms).encode()
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big") >> 1


def _schema(columns: int) -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    for column in range(columns):
        builder.add_text_field(f"c{column}", tokenizer_name=ANALYZER, index_option="freq")
    builder.add_integer_field("id", indexed=True, fast=True)
    builder.add_integer_field("digest", fast=True)
    return builder.build()


def _opened(path: Path, columns: int, *, create: bool) -> Any:
    """The tantivy index in ``path`` (made anew when ``create``) with the analyzer that
    takes terms as they come: split at the spaces, nothing else."""
    import tantivy

    index = tantivy.Index(_schema(columns), path=str(path), reuse=not create)
    index.register_tokenizer(ANALYZER, tantivy.TextAnalyzerBuilder(
        tantivy.Tokenizer.whitespace()).filter(tantivy.Filter.remove_long(MAX_TERM_BYTES)).build())
    return index


@dataclass
class _Pending:
    """Rows changed since the file: the ids masked out of its answers, and the current
    terms of those that still exist, with an inverted map so a query touches only the
    rows holding one of its terms."""

    masked: set[int] = field(default_factory=set)
    rows: dict[int, list[Counter[str]]] = field(default_factory=dict)
    postings: dict[tuple[int, str], set[int]] = field(default_factory=dict)

    def replace(self, item_id: int, columns: list[Counter[str]] | None) -> None:
        for column, counts in enumerate(self.rows.pop(item_id, [])):
            for term in counts:
                self.postings[(column, term)].discard(item_id)
        if columns is None:
            return
        self.rows[item_id] = columns
        for column, counts in enumerate(columns):
            for term in counts:
                self.postings.setdefault((column, term), set()).add(item_id)


class TableTextIndex:
    """The full-text index of one searchable table in one process. Thread-safe."""

    def __init__(self, engine: Engine, folder: Path, source: TextSource, *, min_rows: int,
                 read_only: bool) -> None:
        self._engine = engine
        self._folder = folder
        self._source = source
        self._min_rows = min_rows
        self._read_only = read_only
        self._lock = threading.RLock()
        self._header: Header | None = None
        self._stamp: tuple[int, int, int] | None = None
        self._index: Any = None
        self._searcher: Any = None
        self._applied = 0
        self._pending = _Pending()
        self._verified = False
        self._stale_reason: str | None = None

    @property
    def source(self) -> TextSource:
        return self._source

    @property
    def _header_path(self) -> Path:
        return self._folder / f"{self._source.name}.json"

    # searching

    def search(self, connection: Connection, terms: Sequence[str],
               count: int) -> list[tuple[int, float]] | None:
        """The ``count`` rows with the best BM25 for ``terms`` (ORed), best first, ties to
        the lower id; None when the table is small or its index is not current."""
        with self._lock:
            if not self._usable(connection) or self._header is None \
                    or self._header.count + len(self._pending.rows) < self._min_rows:
                return None
            try:
                found = self._ranked(terms, count)
            except (OSError, ValueError, RuntimeError) as error:  # a folder gone bad under it
                self._mark_stale(f"it could not be searched ({error})")
                return None
            found += self._pending_scores(terms)
            found.sort(key=lambda hit: (-hit[1], hit[0]))
            return found[:count]

    def _ranked(self, terms: Sequence[str], count: int) -> list[tuple[int, float]]:
        """The folder's top ``count`` for ``terms``, less the masked rows."""
        import tantivy

        query = tantivy.Query.boolean_query([
            (tantivy.Occur.Should, tantivy.Query.term_query(
                self._index.schema, f"c{column}", term, index_option="freq"))
            for term in terms for column in range(len(self._source.columns))])
        fetch = count + len(self._pending.masked)
        hits = self._searcher.search(query, fetch, count=False).hits
        ids = self._searcher.fast_field_values("id", [address for _, address in hits])
        return [(int(item_id), float(score))
                for (score, _), item_id in zip(hits, ids, strict=True)
                if int(item_id) not in self._pending.masked]

    def _pending_scores(self, terms: Sequence[str]) -> list[tuple[int, float]]:
        """BM25 of the pending rows holding a term, with the file's statistics."""
        header = self._header
        if not self._pending.rows or header is None:
            return []
        documents = max(1, int(self._searcher.num_docs))
        scores: dict[int, float] = {}
        for column in range(len(self._source.columns)):
            average = max(1.0, header.tokens[column] / max(1, header.count))
            for term in terms:
                holders = self._pending.postings.get((column, term))
                if not holders:
                    continue
                frequency = int(self._searcher.doc_freq(f"c{column}", term)) + len(holders)
                idf = math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5))
                for item_id in holders:
                    counts = self._pending.rows[item_id][column]
                    tf, length = counts[term], sum(counts.values())
                    norm = K1 * (1 - B + B * length / average)
                    scores[item_id] = scores.get(item_id, 0.0) + idf * tf * (K1 + 1) / (tf + norm)
        return list(scores.items())

    def _usable(self, connection: Connection) -> bool:
        """Open the newest folder, catch up with the log, check it once; False if there is
        none or it disagrees with the rows."""
        self._reload_if_replaced()
        if self._index is None or self._stale_reason is not None:
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
            log.warning("The full-text index of %s is out of date (%s); FTS5 answers until "
                        "it is rebuilt.", self._source.table, reason)
        self._stale_reason = reason

    def pending(self) -> int:
        """Rows changed since the file."""
        return len(self._pending.masked | set(self._pending.rows))

    def _reload_if_replaced(self) -> None:
        """Open the folder the header names if the header changed since it was read."""
        try:
            info = self._header_path.stat()
            stamp: tuple[int, int, int] | None = (info.st_ino, info.st_mtime_ns, info.st_size)
        except FileNotFoundError:
            stamp = None
        if stamp == self._stamp:
            return
        self._stamp = stamp
        self._index, self._searcher, self._header = None, None, None
        self._pending = _Pending()
        self._verified, self._stale_reason = False, None
        header = (read_header(self._header_path, Header, HEADER_VERSION, "full-text index")
                  if stamp is not None else None)
        if header is None:
            return
        try:
            if len(header.tokens) != len(self._source.columns):
                raise Stale("it was built for other columns")
            index = _opened(self._folder / header.folder, len(self._source.columns),
                            create=False)
            searcher = index.searcher()
            if int(searcher.num_docs) != header.count:
                raise Stale(f"{header.folder} does not hold what its header records")
        except (OSError, ValueError, Stale) as error:
            self._mark_stale(str(error))
            return
        self._index, self._searcher, self._header = index, searcher, header
        self._applied = header.applied

    def _catch_up(self, connection: Connection) -> None:
        """Apply the log entries after ``applied``; raise ``Stale`` if the database is not
        the one the folder was built from, or went back in time."""
        built_from, trimmed, water, newest = log_position(connection, self._source.name,
                                                          self._applied)
        reloaded = trimmed > self._applied
        if reloaded:  # a newer folder holds what was trimmed: open it (``applied`` moves)
            self._stamp = None
            self._reload_if_replaced()
            if self._index is None or self._applied < trimmed:
                raise Stale("its changes were trimmed, and no newer folder holds them")
        assert self._header is not None
        if built_from != self._header.generation:
            raise Stale("the database is not the one it was built from")
        if water < self._applied:
            raise Stale("the database is older than the index (a restored backup?)")
        if newest is None and not reloaded:
            return
        changed, last = logged_since(connection, self._source.name, self._applied)
        current = _row_terms(connection, self._source, changed)
        for item_id in changed:
            if int(self._searcher.doc_freq("id", item_id)):
                self._pending.masked.add(item_id)
            terms = current.get(item_id)
            self._pending.replace(item_id, None if terms is None
                                  else [Counter(column) for column in terms])
        self._applied = last

    def _verify(self, connection: Connection) -> None:
        """The index must answer for exactly the table's rows, and hold a sample of rows
        with their current terms."""
        import tantivy

        rows = _count(connection, self._source.table)
        known = int(self._searcher.num_docs) - len(self._pending.masked) \
            + len(self._pending.rows)
        if known != rows:
            raise Stale(f"it answers for {known:,} rows but the table has {rows:,}")
        top = connection.execute(sql(f"SELECT max(id) FROM {self._source.table}")).scalar_one()
        for start in secrets.SystemRandom().choices(range(1, int(top or 0) + 1),
                                                    k=VERIFY_SAMPLE if top else 0):
            row = connection.execute(sql(
                f"SELECT id FROM {self._source.table} WHERE id >= :start ORDER BY id LIMIT 1"),
                {"start": start}).scalar_one_or_none()
            if row is None or row in self._pending.masked or row in self._pending.rows:
                continue
            hits = self._searcher.search(tantivy.Query.term_query(
                self._index.schema, "id", row), 1, count=False).hits
            if not hits:
                raise Stale(f"it lacks row {row}")
            (held,) = self._searcher.fast_field_values("digest", [hits[0][1]])
            terms = _row_terms(connection, self._source, [row])[row]
            if int(held) != _digest([term for column in terms for term in column]):
                raise Stale(f"its terms for row {row} are not the row's")

    # building

    def state(self, connection: Connection, *, off: bool = False) -> IndexState:
        """Whether this table's index is current, without changing anything on disk."""
        with self._lock:
            rows = _count(connection, self._source.table)
            if off:
                return IndexState(self._source.name, rows, "off", "an encrypted folder")
            if rows < self._min_rows and not self._header_path.exists():
                return IndexState(self._source.name, rows, "not needed")
            if self._usable(connection):
                return IndexState(self._source.name, rows, "current")
            if self._stale_reason is not None:
                return IndexState(self._source.name, rows, "stale", self._stale_reason)
            if rows < self._min_rows:
                return IndexState(self._source.name, rows, "not needed")
            return IndexState(self._source.name, rows, "missing")

    def rebuild(self, progress: ProgressCallback | None, cancel: CancelCheck | None) -> bool:
        """Build the index from the table's rows into a new folder and commit it; False if
        cancelled (then nothing changed). Holds the table's file lock, so processes take
        turns."""
        self._folder.mkdir(mode=0o700, exist_ok=True)
        with filelock.FileLock(self._folder / f"{self._source.name}.lock", mode=0o600):
            with self._engine.connect() as connection:
                built_from = generation(connection)
                applied = high_water(connection)
                total = _count(connection, self._source.table)
            name = f"{self._source.name}-{secrets.token_hex(6)}"
            path = self._folder / name
            path.mkdir(mode=0o700)
            try:
                count, tokens = self._index_rows(path, total, progress, cancel)
            except BaseException:
                shutil.rmtree(path, ignore_errors=True)
                raise
            if count is None:
                shutil.rmtree(path, ignore_errors=True)
                return False
            with self._lock:
                header = Header(HEADER_VERSION, built_from, applied, count, tokens, name)
                commit_header(self._engine, self._header_path, header, self._source.name,
                              applied)
                self._remove_unnamed(keep=name)
                self._stamp = None
                self._reload_if_replaced()
            return True

    def _index_rows(self, path: Path, total: int, progress: ProgressCallback | None,
                    cancel: CancelCheck | None) -> tuple[int | None, list[int]]:
        """Every row's terms into a new tantivy index at ``path``: (rows, terms per
        column), or (None, ...) if cancelled."""
        import tantivy

        index = _opened(path, len(self._source.columns), create=True)
        writer = index.writer(heap_size=WRITER_HEAP, num_threads=1)
        tokens = [0] * len(self._source.columns)
        done, after = 0, 0
        while True:
            if cancel is not None and cancel():
                writer.rollback()
                return None, tokens
            with self._engine.connect() as connection:
                ids = list(connection.execute(sql(
                    f"SELECT id FROM {self._source.table} WHERE id > :after ORDER BY id "
                    f"LIMIT :page"), {"after": after, "page": BUILD_BATCH}).scalars())
                rows = _row_terms(connection, self._source, ids)
            if not ids:
                break
            for item_id in ids:
                columns = rows[item_id]
                document = tantivy.Document()
                for column, terms in enumerate(columns):
                    document.add_text(f"c{column}", " ".join(terms))
                    tokens[column] += len(terms)
                document.add_integer("id", item_id)
                document.add_integer("digest", _digest([t for col in columns for t in col]))
                writer.add_document(document)
            done += len(ids)
            after = ids[-1]
            if progress is not None:
                progress(done, max(total, done))
        writer.commit()
        writer.wait_merging_threads()
        return done, tokens

    def discard(self) -> None:
        """Delete this table's header and folders (they disagree with the rows)."""
        with self._lock:
            self._header_path.unlink(missing_ok=True)
            self._remove_unnamed(keep="")
            self._stamp = None
            self._reload_if_replaced()

    def _remove_unnamed(self, keep: str) -> None:
        """Delete this table's folders no header names (older ones, a killed build's)."""
        for path in self._folder.glob(f"{self._source.name}-*"):
            if path.name != keep and path.is_dir():
                shutil.rmtree(path, ignore_errors=True)
        for file in self._folder.glob(f".{self._source.name}.json.*.partial"):
            file.unlink(missing_ok=True)


def remove_files(database: Path) -> None:
    """Delete the full-text index folder of ``database`` (encrypting it: an encrypted folder
    keeps none)."""
    shutil.rmtree(index_folder(database), ignore_errors=True)


def _row_terms(connection: Connection, source: TextSource,
               ids: Sequence[int]) -> dict[int, list[list[str]]]:
    """Each existing row's terms, column by column."""
    found: dict[int, list[list[str]]] = {}
    columns = ", ".join(source.columns)
    statement = sql(f"SELECT id, {columns} FROM {source.table} WHERE id IN :ids").bindparams(
        bindparam("ids", expanding=True))
    for start in range(0, len(ids), 500):
        for row in connection.execute(statement, {"ids": list(ids[start:start + 500])}):
            found[int(row[0])] = [(index_terms(value) or "").split() for value in row[1:]]
    return found


def _count(connection: Connection, table: str) -> int:
    return int(connection.execute(sql(f"SELECT count(*) FROM {table}")).scalar_one())


# --- every table's index --------------------------------------------------------------------


class TextIndexes:
    """The full-text indexes of one database file, one per searchable table."""

    def __init__(self, engine: Engine, database: Path, sources: Iterable[TextSource], *,
                 min_rows: int = TEXT_MIN_ROWS, read_only: bool = False) -> None:
        self._database = database
        self._folder = index_folder(database)
        self._off = encryption.encrypted_folder(database) is not None
        self._indexes = {source.table: TableTextIndex(engine, self._folder, source,
                                                      min_rows=min_rows, read_only=read_only)
                         for source in sources}
        self._engine = engine
        self._read_only = read_only

    def search(self, connection: Connection, table: str, terms: Sequence[str],
               count: int) -> list[tuple[int, float]] | None:
        """The top ``count`` by BM25 from ``table``'s index, or None: FTS5 answers."""
        if self._off:
            return None
        return self._indexes[table].search(connection, terms, count)

    def states(self) -> list[IndexState]:
        """Each searchable table's full-text index (none before the change log exists)."""
        with self._engine.connect() as connection:
            if not _has_log(connection, (index.source for index in self._indexes.values())):
                return []
            return [index.state(connection, off=self._off) for index in self._indexes.values()]

    def backlog(self) -> int:
        """Rows ``refresh`` would index anew (0 read-only or encrypted: it would not)."""
        if self._read_only or self._off:
            return 0
        return sum(state.rows for state in self.states() if state.state in ("missing", "stale"))

    def refresh(self, progress: ProgressCallback | None = None,
                cancel: CancelCheck | None = None, *, minimum: int | None = None) -> bool:
        """Rebuild the indexes missing or stale on a table large enough to need one, and
        those with ``minimum`` (``COMPACT_AFTER`` unless given) or more pending changes,
        with ``progress(done, total)`` over all of them; trim the log of tables without
        one. False if ``cancel()`` stopped it.
        In an encrypted folder it deletes what an encryption cut short may have left."""
        if self._read_only:
            return True
        if self._off:
            remove_files(self._database)
            return True
        states = self.states()
        by_name = {index.source.name: index for index in self._indexes.values()}
        pending_at = max(COMPACT_AFTER if minimum is None else minimum, 1)
        todo = [(state, by_name[state.table].rebuild) for state in states
                if state.state in ("missing", "stale")
                or (state.state == "current" and by_name[state.table].pending() >= pending_at)]
        if not rebuild_each(todo, progress, cancel):
            return False
        trim_unindexed(self._engine, states, self._folder)
        return True

    def erase_removed(self) -> None:
        """Rebuild every index with a pending change, so no folder keeps a deleted or
        changed row's former terms (after a forget)."""
        self.refresh(minimum=1)


def _has_log(connection: Connection, sources: Iterable[TextSource]) -> bool:
    """Whether the change log and every source's triggers exist (``ensure_dimensions``
    makes them): without them a change would not reach an index."""
    present = set(connection.execute(sql(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")).scalars())
    return change_log_objects(source.name for source in sources) <= present
