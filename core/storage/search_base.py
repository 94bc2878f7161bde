"""What both search adapters do the same way, around the SQL each dialect spells its own.

SQLite (FTS5 + sqlite-vec) and PostgreSQL (tsvector + pgvector) differ in their statements,
not in what a search or a write means: user text becomes ``query_words`` or nothing; a
vector is checked against the width recorded in ``vector_index_meta`` (a 2-d float32 array
of finite values) before it is searched for or written; a long text's further windows are
checked and written with its whole-text vector; the whole-text hits and the window hits are
merged each row once; the filters are ``core.storage.search_where``'s. One definition of
those keeps the two backends from drifting apart on what they accept and return, and each
adapter is left with its hooks: how a vector is bound and read back, how a list of ids is
matched, how its tables are made, and the statements that search and write.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
from sqlalchemy import Connection, Engine
from sqlalchemy import text as sql
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter

from core.storage.windows import ChunkVectors
from core.storage.port import (
    IndexedKind,
    IndexHit,
    SearchFilters,
    StoredEmbedding,
    batched,
    document_text,
    stored_embeddings,
)
from core.storage.query_words import query_words
from core.storage.search_where import Dialect, IndexedTable, Where, filters_where, merged, narrows
from core.storage.vector_pages import read_vector_pages
from core.storage.write_turns import WRITE_OPTION

META_TABLE = "vector_index_meta"
"""Keys and values about the vector tables; ``dimensions`` is the width they were made for."""

KindT = TypeVar("KindT", bound=IndexedTable)
VectorT = TypeVar("VectorT")


def meta_value(connection: Connection, key: str) -> str | None:
    """The value recorded under ``key`` in ``META_TABLE`` (which must exist), or None."""
    return connection.execute(sql(f"SELECT value FROM {META_TABLE} WHERE key = :key"),
                              {"key": key}).scalar_one_or_none()


class SearchIndexBase(ABC, Generic[KindT, VectorT]):
    """The dialect-free part of a ``SearchIndex``. ``KindT`` is the adapter's own
    ``IndexedTable`` (its extra tables), ``VectorT`` how it binds one vector as a parameter
    (sqlite-vec's float32 bytes, pgvector's text form)."""

    IDS_PER_STATEMENT: ClassVar[int]
    """How many ids one statement matches at most (a driver's parameter limit, or a bound
    on one array parameter)."""

    def __init__(self, engine: Engine, kinds: Mapping[IndexedKind, KindT], dialect: Dialect,
                 *, exact_max_rows: int, shortlist_factor: int, min_shortlist: int) -> None:
        self._engine = engine
        self._kinds = kinds
        self._dialect = dialect
        self._exact_max_rows = exact_max_rows
        self._shortlist_factor = shortlist_factor
        self._min_shortlist = min_shortlist
        self._dimensions: int | None = None

    # the hooks: what each dialect spells its own way

    @abstractmethod
    def _encoded(self, vector: np.ndarray) -> VectorT:
        """One checked float32 vector as this dialect binds it in a statement."""

    @abstractmethod
    def _stored(self, column: str) -> str:
        """The SQL that selects the vector in ``column`` in the form ``_floats`` reads."""

    @abstractmethod
    def _floats(self, blobs: Sequence[Any]) -> np.ndarray:
        """Vectors selected by ``_stored`` as one flat float32 array, in their order."""

    @abstractmethod
    def _among(self, column: str, name: str) -> tuple[str, list[BindParameter[Any]]]:
        """A condition that ``column`` is one of the ids bound as the list ``name``, and
        the bind it needs (if any)."""

    @abstractmethod
    def _has_table(self, connection: Connection, name: str) -> bool:
        """Whether the table ``name`` exists."""

    @abstractmethod
    def _text_hits(self, session: Session, spec: KindT, words: Sequence[str],
                   filters: SearchFilters, limit: int) -> list[IndexHit]:
        """The full-text search for ``words`` (at least one; ``limit`` > 0)."""

    @abstractmethod
    def _nearest(self, session: Session, spec: KindT, where: Where, narrowed: bool,
                 query: VectorT, limit: int, *, windows: bool) -> list[IndexHit]:
        """The rows nearest to ``query`` by their whole-text vectors or, with ``windows``,
        by their best further window, each once; ``narrowed`` when ``where`` may leave few
        rows (``search_where.narrows``)."""

    @abstractmethod
    def _write_vectors(self, session: Session, spec: KindT, rows: list[dict[str, Any]],
                       windows: list[dict[str, Any]], model_id: str) -> None:
        """Write checked parameters: ``rows`` (``id``, ``vector``) replace each row's vector
        and windows, ``windows`` (``id``, ``position``, ``char_start``, ``char_end``,
        ``vector``) are their new windows, ``model_id`` is recorded on every row. A row
        deleted meanwhile gets nothing."""

    @abstractmethod
    def _in_place(self, dimensions: int) -> bool:
        """Whether the vector tables (and what keeps them in step) are all there for this
        width, read without a write lock: then ``ensure_dimensions`` has nothing to write,
        so a read-only database can be searched (and a start takes no write lock for it)."""

    @abstractmethod
    def _build(self, connection: Connection, dimensions: int, recorded: str | None) -> None:
        """Make the vector tables for ``dimensions`` in a write transaction, where
        ``META_TABLE`` exists and recorded the width ``recorded`` (None: none yet); a
        different width drops every vector, to be re-embedded."""

    # full text

    def text_search(self, session: Session, kind: IndexedKind, text: str,
                    filters: SearchFilters, limit: int) -> list[IndexHit]:
        words = query_words(text)
        if not words or limit <= 0:
            return []
        return self._text_hits(session, self._kinds[kind], words, filters, limit)

    # vectors: search

    def vector_search(self, session: Session, kind: IndexedKind, vector: np.ndarray,
                      filters: SearchFilters, limit: int) -> list[IndexHit]:
        if limit <= 0:
            return []
        spec = self._kinds[kind]
        query = self._encoded(self._checked_matrix(session, vector.reshape(1, -1))[0])
        where = self._where(spec, filters)
        narrowed = narrows(spec, filters)
        hits = self._nearest(session, spec, where, narrowed, query, limit, windows=False)
        windows = self._nearest(session, spec, where, narrowed, query, limit, windows=True)
        return merged(hits, windows, limit) if windows else hits

    def _where(self, spec: KindT, filters: SearchFilters) -> Where:
        return filters_where(spec, filters, self._dialect)

    def _count_capped(self, session: Session, table: str) -> int:
        """Rows of ``table``, counted no further than ``exact_max_rows + 1``."""
        return self._count_at_most(session, table, self._exact_max_rows)

    @staticmethod
    def _count_at_most(session: Session, table: str, cap: int) -> int:
        """Rows of ``table``, counted no further than ``cap + 1``."""
        return int(session.execute(sql(f"SELECT count(*) FROM (SELECT 1 FROM {table} "
                                       f"LIMIT :cap) AS capped"), {"cap": cap + 1}).scalar_one())

    # vectors: reads

    def vectors(self, session: Session, kind: IndexedKind, *,
                valid_only: bool = True) -> tuple[np.ndarray, np.ndarray]:
        """All stored whole-text vectors of ``kind`` as (ids int64 (n,), float32 (n, dim)),
        by id, read in keyset pages into one preallocated matrix
        (``core.storage.vector_pages``)."""
        spec = self._kinds[kind]
        dimensions = self._recorded_dimensions(session)
        condition = (self._dialect.valid if valid_only and spec.is_memory
                     else self._dialect.always)
        source = (f"FROM {spec.vectors} AS e JOIN {spec.table} AS m ON m.id = e.id "
                  f"WHERE {condition}")
        return read_vector_pages(session, source, self._stored("e.embedding"), dimensions,
                                 self._floats)

    def stored_embeddings(self, session: Session, kind: IndexedKind,
                          ids: Sequence[int]) -> list[StoredEmbedding]:
        spec = self._kinds[kind]
        wanted = sorted({int(row_id) for row_id in ids})
        vectors = list(self.whole_vectors(session, kind, wanted).items())
        windows: list[tuple[int, int, int, int, np.ndarray]] = []
        by_item, item_binds = self._among("item_id", "ids")
        stored = self._stored("embedding")
        for chunk in batched(wanted, self.IDS_PER_STATEMENT):
            windows += [(*row[:4], self._floats([row[4]])) for row in session.execute(sql(
                f"SELECT item_id, position, char_start, char_end, {stored} "
                f"FROM {spec.chunks} WHERE {by_item} ORDER BY item_id, position").bindparams(
                    *item_binds), {"ids": list(chunk)})]
        return stored_embeddings(vectors, windows)

    def whole_vectors(self, session: Session, kind: IndexedKind,
                      ids: Iterable[int]) -> dict[int, np.ndarray]:
        spec = self._kinds[kind]
        by_id, id_binds = self._among("id", "ids")
        found: dict[int, np.ndarray] = {}
        for chunk in batched(sorted({int(row_id) for row_id in ids}), self.IDS_PER_STATEMENT):
            found.update((row[0], self._floats([row[1]])) for row in session.execute(sql(
                f"SELECT id, {self._stored('embedding')} FROM {spec.vectors} "
                f"WHERE {by_id}").bindparams(*id_binds), {"ids": list(chunk)}))
        return found

    def matching_ids(self, session: Session, kind: IndexedKind, ids: Iterable[int],
                     filters: SearchFilters) -> set[int]:
        """Those of ``ids`` that pass ``filters``: the same rules searches apply, for rows
        found another way (graph edges, metadata)."""
        spec = self._kinds[kind]
        where = self._where(spec, filters)
        among, binds = self._among("m.id", "m_ids")
        found: set[int] = set()
        for chunk in batched(sorted(set(ids)), self.IDS_PER_STATEMENT):
            statement = sql(f"SELECT m.id FROM {spec.table} AS m WHERE {among} AND "
                            f"{where.condition}").bindparams(*where.binds, *binds)
            found.update(session.execute(statement,
                                         {**where.params, "m_ids": list(chunk)}).scalars())
        return found

    def rows_needing_embedding(self, session: Session, kind: IndexedKind, model_id: str,
                               after_id: int, limit: int) -> list[tuple[int, str]]:
        spec = self._kinds[kind]
        rows = session.execute(sql(
            f"SELECT id, {', '.join(spec.text_columns)} FROM {spec.table} "
            f"WHERE (embedding_model IS NULL OR embedding_model != :model) AND id > :after "
            f"ORDER BY id LIMIT :limit"), {"model": model_id, "after": after_id, "limit": limit})
        return [(row[0], document_text(kind, row[1:])) for row in rows]

    # vectors: writing

    def store_embeddings(self, session: Session, kind: IndexedKind, ids: Sequence[int],
                         vectors: np.ndarray, model_id: str, *,
                         chunks: Sequence[ChunkVectors] | None = None) -> None:
        if len(ids) == 0:
            return
        spec = self._kinds[kind]
        matrix = self._checked_matrix(session, vectors)
        if matrix.shape[0] != len(ids):
            raise ValueError(f"{len(ids)} ids but {matrix.shape[0]} vectors")
        if chunks is not None and len(chunks) != len(ids):
            raise ValueError(f"{len(ids)} ids but windows for {len(chunks)} rows")
        windows = self._window_rows(session, ids, chunks or ())
        rows = [{"id": int(row_id), "vector": self._encoded(matrix[row])}
                for row, row_id in enumerate(ids)]
        self._write_vectors(session, spec, rows, windows, model_id)

    def _window_rows(self, session: Session, ids: Sequence[int],
                     chunks: Sequence[ChunkVectors]) -> list[dict[str, Any]]:
        """Parameters for the window table, checked before anything is written."""
        rows: list[dict[str, Any]] = []
        for row_id, row_chunks in zip(ids, chunks, strict=False):
            if not row_chunks.windows:
                continue
            matrix = self._checked_matrix(session, row_chunks.vectors)
            for window, vector in zip(row_chunks.windows, matrix, strict=True):
                if window.position < 1 or not 0 <= window.char_start < window.char_end:
                    raise ValueError(f"not a further window: {window}")
                rows.append({"id": int(row_id), "position": window.position,
                             "char_start": window.char_start, "char_end": window.char_end,
                             "vector": self._encoded(vector)})
        return rows

    # vectors: the tables themselves

    def ensure_dimensions(self, dimensions: int) -> bool:
        """Create the vector tables for this width, or rebuild them if the width changed.

        Cached per instance: after the first call for a width it costs nothing.
        """
        if dimensions == self._dimensions:
            return False
        if dimensions <= 0:
            raise ValueError(f"dimensions must be positive, got {dimensions}")
        if self._in_place(dimensions):
            self._dimensions = dimensions
            return False
        with self._engine.execution_options(**{WRITE_OPTION: True}).begin() as connection:
            connection.execute(sql(
                f"CREATE TABLE IF NOT EXISTS {META_TABLE} (key TEXT PRIMARY KEY, value TEXT)"))
            recorded = meta_value(connection, "dimensions")
            self._build(connection, dimensions, recorded)
        self._dimensions = dimensions
        return recorded is not None and recorded != str(dimensions)

    def _recorded_dimensions(self, session: Session) -> int:
        """The width the vector tables were made for (read once, then cached)."""
        if self._dimensions is None:
            connection = session.connection()
            recorded = (meta_value(connection, "dimensions")
                        if self._has_table(connection, META_TABLE) else None)
            if recorded is None:
                raise RuntimeError("The vector index is not prepared; call "
                                   "ensure_dimensions(embedder.dimensions) first.")
            self._dimensions = int(recorded)
        return self._dimensions

    def _checked_matrix(self, session: Session, vectors: np.ndarray) -> np.ndarray:
        """Vectors as a C-contiguous float32 (n, dim) array of the index's width."""
        matrix = np.ascontiguousarray(vectors, dtype=np.float32)
        dimensions = self._recorded_dimensions(session)
        if matrix.ndim != 2 or matrix.shape[1] != dimensions:
            raise ValueError(f"expected vectors of width {dimensions}, got shape {matrix.shape}")
        if not np.all(np.isfinite(matrix)):
            raise ValueError("vectors contain NaN or infinity")
        return matrix
