"""The storage port: the only way the rest of ``core`` reaches the database.

Relational work goes through SQLAlchemy ORM sessions over the dialect-neutral models in
``core.storage.orm`` (and the few SQL constructs that compile per dialect in
``core.storage.sql``); everything that is dialect specific (full-text syntax, vector
search, PRAGMAs, backups and what a backup file is, health checks) sits behind these
protocols in an adapter: ``core.storage.sqlite.adapter.SqliteStorage`` (FTS5 + sqlite-vec)
or the PostgreSQL adapter (tsvector + pgvector). Which one is opened is decided in one
place, ``core.storage.factory``, from the ``database_url`` setting.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

import numpy as np
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from core.storage.windows import ChunkVectors, TextWindow
from core.errors import HearthError
from core.storage.change_feed import ChangeFeed


class IndexedKind(str, enum.Enum):
    """Record kinds that have a full-text index and embeddings."""

    MEMORY = "memory"
    NOTE = "note"
    INTERACTION = "interaction"
    FACT = "fact"


INDEXED_COLUMNS: dict[IndexedKind, tuple[str, ...]] = {
    IndexedKind.MEMORY: ("content",),
    IndexedKind.NOTE: ("title", "content"),
    IndexedKind.INTERACTION: ("user_message", "agent_response"),
    IndexedKind.FACT: ("key", "value"),
}
"""The columns of each kind that are full-text indexed and embedded, in this order."""


def document_text(kind: IndexedKind, fields: Sequence[str | None]) -> str:
    """The text embedded for a row, from its ``INDEXED_COLUMNS`` in order.

    One definition for every writer and the backfill, so a row's vector never depends on
    which path embedded it. Facts read as "favourite colour: green" rather than "favourite_colour
    green", which
    embeds closer to how people ask about them.
    """
    values = [value or "" for value in fields]
    if kind is IndexedKind.FACT:
        key, value = values
        return f"{key.replace('_', ' ').strip()}: {value.strip()}"
    return "\n".join(values).strip()


def row_text(kind: IndexedKind, row: Any) -> str:
    """``document_text`` of a loaded row (an ORM object or a row with the indexed columns):
    the text a window's ``[char_start, char_end)`` points into."""
    return document_text(kind, [getattr(row, name) for name in INDEXED_COLUMNS[kind]])


IMPORTED_SOURCE = "import"
"""The ``source`` of imported sessions and their turn memories
(``core.transfer.transcript``): the rows that are conversation turns."""


@dataclass(frozen=True)
class SearchFilters:
    """Filters every search applies before ranking.

    ``namespaces`` are prefixes: ``"user"`` matches ``user`` and ``user/health/...``.
    ``valid_only`` keeps invalidated and superseded memories out; ``None`` means both.
    The memory-specific fields are ignored for other kinds; the time window applies to all.
    """

    memory_types: frozenset[str] = frozenset()
    tiers: frozenset[str] = frozenset()
    categories: frozenset[str] = frozenset()
    namespaces: tuple[str, ...] = ()
    since: datetime | None = None
    until: datetime | None = None
    valid_only: bool | None = True
    session_ids: frozenset[str] = frozenset()
    exclude_ids: frozenset[int] = field(default_factory=frozenset)


@dataclass(frozen=True)
class IndexHit:
    """One row found by one signal: its id, the signal's own score, and its 1-based rank.

    ``chunk`` is set by vector search when the row's best match was one of its further
    windows (a long text, ``core.embedding.chunking``) rather than its whole-text vector:
    ``chunk.excerpt(document_text(kind, fields))`` is the passage that matched. ``None``
    for text search, for short rows, and when the head of a long text matched best.
    """

    id: int
    score: float
    rank: int
    chunk: TextWindow | None = None


@dataclass(frozen=True)
class StoredEmbedding:
    """One row's vectors as stored: its whole-text vector and its further windows (float32),
    what moving a database to another backend copies instead of embedding again."""

    id: int
    vector: np.ndarray
    chunks: ChunkVectors


def stored_embeddings(vector_rows: Iterable[tuple[int, np.ndarray]],
                      window_rows: Iterable[tuple[int, int, int, int, np.ndarray]],
                      ) -> list[StoredEmbedding]:
    """``StoredEmbedding``s from an adapter's rows: (id, vector) and (item id, position,
    start, end, vector) in position order; one definition for both adapters."""
    windows: dict[int, list[tuple[TextWindow, np.ndarray]]] = {}
    for item_id, position, start, end, vector in window_rows:
        windows.setdefault(item_id, []).append((TextWindow(position, start, end), vector))
    found = []
    for row_id, vector in sorted(vector_rows, key=lambda row: row[0]):
        mine = windows.get(row_id, [])
        chunks = (ChunkVectors(tuple(window for window, _ in mine),
                               np.stack([vector for _, vector in mine])) if mine
                  else ChunkVectors((), np.empty((0, len(vector)), dtype=np.float32)))
        found.append(StoredEmbedding(row_id, vector, chunks))
    return found


class SearchIndex(Protocol):
    """Full-text and vector search over the indexed kinds, with embeddings kept in step."""

    def text_search(self, session: Session, kind: IndexedKind, text: str,
                    filters: SearchFilters, limit: int) -> list[IndexHit]:
        """BM25-ranked rows for user text; the text is never interpreted as query syntax."""

    def vector_search(self, session: Session, kind: IndexedKind, vector: np.ndarray,
                      filters: SearchFilters, limit: int) -> list[IndexHit]:
        """Rows nearest to ``vector`` by cosine similarity (score = similarity), each once:
        a long row scores its best window, named in ``IndexHit.chunk`` when that is not
        the whole-text vector."""

    def vectors(self, session: Session, kind: IndexedKind, *,
                valid_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """Every stored whole-text vector of ``kind`` as (ids, float32 matrix), one per row
        (never the further windows of long rows), for consolidation's blocked similarity
        work (kNN links, dream associations). ``valid_only`` drops invalidated and
        superseded memories."""

    def whole_vectors(self, session: Session, kind: IndexedKind,
                      ids: Iterable[int]) -> dict[int, np.ndarray]:
        """The whole-text vectors of those of ``ids`` that have one, by id (never their
        further windows): what recall compares its results by to spread them."""

    def matching_ids(self, session: Session, kind: IndexedKind, ids: Iterable[int],
                     filters: SearchFilters) -> set[int]:
        """Those of ``ids`` that pass ``filters``, by the rules searches use."""

    def approximate_neighbours(self, session: Session, kind: IndexedKind,
                               vectors: np.ndarray, count: int) -> np.ndarray | None:
        """For each row of ``vectors``, the ids of about ``count`` stored rows of ``kind``
        near it by an approximate nearest-neighbour index (an int64 matrix, -1 where there
        are fewer), for consolidation's kNN over every row at scale, which rescores them
        exactly; None when the adapter has no such index that is current (then the caller
        computes exactly)."""

    def store_embeddings(self, session: Session, kind: IndexedKind, ids: Sequence[int],
                         vectors: np.ndarray, model_id: str, *,
                         chunks: Sequence[ChunkVectors] | None = None) -> None:
        """Write (or replace) the vectors of these rows and record the model that made them.

        ``chunks[i]`` are the further windows of row ``ids[i]`` (empty for a text that fits
        one inference). A row's previous windows are always dropped, so storing without
        ``chunks`` leaves a row with its whole-text vector only. Writers embed through
        ``core.embedding.chunking.embed_documents_with_chunks`` and store its result.
        """

    def loading_in_bulk(self) -> AbstractContextManager[None]:
        """Around writing a whole database's vectors at once (``core.storage.transfer``):
        the backend may set index upkeep aside and rebuild once at the end (PostgreSQL's
        HNSW indexes); no write transaction may be open while it is entered or left."""

    def stored_embeddings(self, session: Session, kind: IndexedKind,
                          ids: Sequence[int]) -> list[StoredEmbedding]:
        """The vectors stored for those of ``ids`` that have any, by id, exactly as stored
        (``store_embeddings`` of them elsewhere writes the same floats)."""

    def rows_needing_embedding(self, session: Session, kind: IndexedKind, model_id: str,
                               after_id: int, limit: int) -> list[tuple[int, str]]:
        """(id, text) of rows without an embedding from ``model_id``, by ascending id."""

    def ensure_dimensions(self, dimensions: int) -> bool:
        """Prepare vector storage for this size; True if it had to be rebuilt (all
        embeddings dropped, to be backfilled)."""

    def refresh_search_indexes(self, *, progress: Callable[[int, int], None] | None = None,
                               cancel: Callable[[], bool] | None = None) -> bool:
        """Bring the search indexes derived from the rows (nearest-neighbour graphs of the
        vectors, full-text indexes of the terms) up to date with them (rebuild what
        disagrees, with ``progress(done, total)``), for long jobs that run anyway (the
        dream's link stage, a re-embedding); False if ``cancel()`` stopped it. Searches are
        correct without it, only slower at scale. An adapter whose database keeps such
        indexes itself has nothing to do."""

    def search_index_backlog(self) -> int:
        """Rows ``refresh_search_indexes`` would have to rebuild an index from (0 when every
        index is current or the database keeps its own): the window starts that rebuild in
        the background at start-up when this is not 0, instead of leaving searches on the
        slower path until the next dream."""


@dataclass(frozen=True)
class HealthCheck:
    """One line of ``hearth doctor``: a part the database needs, ok or what to do."""

    name: str
    ok: bool
    detail: str
    fix: str = ""


class BackupCopies(Protocol):
    """Copies of the database kept as files in the data folder: the backups
    (``core.storage.backups``) and whatever the backend set aside itself (SQLite: a database
    a restore moved aside). What a backup file is differs per backend (a SQLite database,
    a ``pg_dump`` archive), so checking, reading and rewriting one happen here; a forget
    (``core.forgetting.backups``) reaches into backups only through this."""

    @property
    def suffix(self) -> str:
        """How a backup file's name ends (``.db``, ``.dump``)."""

    def verify(self, copy: Path) -> None:
        """Raise a ``HearthError`` unless ``copy`` is a complete, sound backup."""

    def set_aside(self) -> list[Path]:
        """Copies of the database this backend left in the data folder besides backups."""

    def files(self, copy: Path) -> list[Path]:
        """``copy`` and the files beside it that hold part of its content (a byte search
        for a forgotten text reads them all)."""

    def reading(self, copy: Path) -> AbstractContextManager[Session]:
        """A session on ``copy`` that cannot change it."""

    def rewrite(self, copy: Path, erase: Callable[[StoragePort], None],
                still_holds: Callable[[Session], bool]) -> None:
        """Replace ``copy`` by a checked copy of itself that ``erase`` (one write
        transaction) took something out of, with no free space keeping its old bytes and
        the original's modification time. Raises ``HearthError`` or ``OSError`` and leaves
        ``copy`` as it was when anything fails, ``still_holds`` (asked of the rewritten
        copy) included."""


class RowClaim(Protocol):
    """One process's hold on one unfinished row (``RowClaims.hold``)."""

    def release(self) -> None:
        """Let the claim go (idempotent)."""


class RowClaims(Protocol):
    """Which unfinished rows a live process is working on (``core.storage.liveness``): a
    claim disappears with the process that held it, however it died, so a row whose claim
    is free was left unfinished by a killed process. Everyone who opens the database sees
    them: files beside a SQLite file, advisory locks on a PostgreSQL server."""

    def hold(self, kind: str, row_id: int) -> RowClaim:
        """Claim a row this process is about to commit unfinished; never waits."""

    def alive(self, kind: str, row_id: int) -> bool:
        """Whether a live process holds a claim on the row (True when that cannot be
        known)."""

    def sweep(self) -> None:
        """Remove what claims of dead processes left behind (files), if anything."""


class StoragePort(Protocol):
    """A Hearth database: sessions, search, maintenance."""

    @property
    def path(self) -> Path | None:
        """The database file, or None when it is no file of ours (in memory, a server)."""

    @property
    def location(self) -> str:
        """Where the database is, for messages: its file, or its server's URL with the
        password masked (``core.config.database_url.masked``)."""

    @property
    def search(self) -> SearchIndex: ...

    @property
    def concurrent_reads(self) -> bool:
        """Whether two threads may each hold a ``read`` session at once, each on its own
        connection (recall overlaps its searches that way). False for a private in-memory
        database, whose one connection every session shares."""

    def write_engine(self) -> Engine:
        """The engine's write-transaction view, for a library that needs an SQLAlchemy
        engine of its own (the scheduler's job store): the same pool and SQLite, never a
        second handle on the file."""

    def read(self) -> AbstractContextManager[Session]:
        """A session for reading; rolled back and closed at the end."""

    def write(self) -> AbstractContextManager[Session]:
        """A write transaction: committed on success, rolled back on any error. Its lock is
        taken on entry, waiting there for another writer (for minutes, not a few seconds)
        before the body runs; long jobs use ``core.storage.pacing`` to keep theirs short.
        Once committed, what it changed is told on ``changes``."""

    @property
    def changes(self) -> ChangeFeed:
        """Every committed change to this database, for subscribers in this process: its
        own writes at once, and (once watched) other processes' and devices'."""

    def check_writable(self) -> None:
        """Raise now what the first write would meet because of the database itself (a
        damaged SQLite file), without writing: for a program that stays open, so that it
        says so when it starts rather than at some later write."""

    def backup_to(self, target: Path) -> None:
        """A consistent copy of the live database, taken without stopping writers, in the
        backend's backup format (``copies``)."""

    @property
    def copies(self) -> BackupCopies:
        """The backend's backup files: checking, reading and rewriting one."""

    def size_bytes(self) -> int:
        """What the database takes on disk (its files, or the server's count for it)."""

    def health_checks(self) -> list[HealthCheck]:
        """The database and what it relies on (extensions, full-text search), each checked
        on its own: reported as values, never raised."""

    def erase_deleted(self, *, compact: bool = False) -> bool:
        """Make what was deleted or overwritten unrecoverable from the database's files (a
        user's forget): the full-text indexes drop the entries of deleted text, the write-
        ahead log is copied into the database and emptied, and with ``compact`` the file is
        rebuilt so no free space keeps old bytes. False if another connection kept the log
        from being emptied (it is then emptied by a later checkpoint)."""

    def checkpoint(self) -> bool:
        """Write what the write-ahead log holds into the database's files now, so the log's
        older part can be dropped (SQLite) or its segments reused (a server). False when
        that could not be done: another connection reading the log, or a server that does
        not let Hearth's role ask for it."""

    @property
    def claims(self) -> RowClaims:
        """Claims on unfinished rows, visible to every process using this database."""

    def exclusive(self, name: str, busy: HearthError) -> AbstractContextManager[None]:
        """Hold the lock ``name`` on this database, one holder at a time across every
        process using it (on every device sharing a server), or raise ``busy`` at once
        when another holds it. Freed on exit and when the holding process dies. For work
        that must not run twice at once on the same data (the dream cycle, reflection)."""

    def schema_revision(self) -> str | None: ...

    def close(self) -> None: ...


T = TypeVar("T")


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Slices of at most ``size``: keeps IN (...) lists under driver parameter limits."""
    for start in range(0, len(items), size):
        yield items[start:start + size]
