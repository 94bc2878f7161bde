"""The storage port: the only way the rest of ``core`` reaches the database.

Relational work goes through SQLAlchemy ORM sessions over the dialect-neutral models in
``core.storage.orm``; everything that is dialect specific (full-text syntax, vector search,
PRAGMAs, online backup) sits behind this protocol in an adapter. Today that is
``core.storage.sqlite.adapter.SqliteStorage`` (FTS5 + sqlite-vec); a PostgreSQL adapter
(tsvector + pgvector) can implement the same protocol without touching any caller.
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

from core.embedding.chunking import ChunkVectors, TextWindow


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

    def rows_needing_embedding(self, session: Session, kind: IndexedKind, model_id: str,
                               after_id: int, limit: int) -> list[tuple[int, str]]:
        """(id, text) of rows without an embedding from ``model_id``, by ascending id."""

    def ensure_dimensions(self, dimensions: int) -> bool:
        """Prepare vector storage for this size; True if it had to be rebuilt (all
        embeddings dropped, to be backfilled)."""

    def refresh_vector_index(self, *, progress: Callable[[int, int], None] | None = None,
                             cancel: Callable[[], bool] | None = None) -> bool:
        """Bring derived nearest-neighbour structures up to date with the stored vectors
        (rebuild what disagrees with them, with ``progress(done, total)``), for long jobs
        that run anyway (the dream's link stage, a re-embedding); False if ``cancel()``
        stopped it. Searches are correct without it, only slower at scale. An adapter
        whose database keeps such an index itself has nothing to do."""


class StoragePort(Protocol):
    """A Hearth database: sessions, search, maintenance."""

    @property
    def path(self) -> Path | None: ...

    @property
    def search(self) -> SearchIndex: ...

    def write_engine(self) -> Engine:
        """The engine's write-transaction view, for a library that needs an SQLAlchemy
        engine of its own (the scheduler's job store): the same pool and SQLite, never a
        second handle on the file."""

    def read(self) -> AbstractContextManager[Session]:
        """A session for reading; rolled back and closed at the end."""

    def write(self) -> AbstractContextManager[Session]:
        """A write transaction: committed on success, rolled back on any error. Its lock is
        taken on entry, waiting there for another writer (for minutes, not a few seconds)
        before the body runs; long jobs use ``core.storage.pacing`` to keep theirs short."""

    def backup_to(self, target: Path) -> None:
        """A consistent copy of the live database, taken without stopping writers."""

    def erase_deleted(self, *, compact: bool = False) -> bool:
        """Make what was deleted or overwritten unrecoverable from the database's files (a
        user's forget): the full-text indexes drop the entries of deleted text, the write-
        ahead log is copied into the database and emptied, and with ``compact`` the file is
        rebuilt so no free space keeps old bytes. False if another connection kept the log
        from being emptied (it is then emptied by a later checkpoint)."""

    def schema_revision(self) -> str | None: ...

    def close(self) -> None: ...


T = TypeVar("T")


def batched(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """Slices of at most ``size``: keeps IN (...) lists under driver parameter limits."""
    for start in range(0, len(items), size):
        yield items[start:start + size]
