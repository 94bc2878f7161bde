"""Full-text and vector search for PostgreSQL: tsvector for words, pgvector for meaning.

All PostgreSQL-specific search SQL lives here, behind ``core.storage.port.SearchIndex``, with
the same semantics as ``core.storage.sqlite.search``: these are the hooks of
``core.storage.search_base.SearchIndexBase``, which holds what both do the same way.

User text is never query syntax: each of its words (``core.storage.query_words``) is a bound
parameter to ``plainto_tsquery``; ``to_tsquery`` never sees user text. Ranking is BM25
computed in SQL, of FTS5's order but not its scale (recall divides by the best score).
The vector tables are derived data made by ``ensure_dimensions``; a row's vectors go with
it (``ON DELETE CASCADE``) and with a change of its text (a trigger). Each table has an HNSW
index whose shortlist is rescored exactly, the search redone exactly when the filters leave
too few rows.

See docs/architecture.md, "PostgreSQL" (full text, vectors, and what differs from SQLite).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
from pgvector import Vector
from sqlalchemy import Connection, Engine
from sqlalchemy import text as sql
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter

from core.storage.migrate import FULLTEXT_COLUMN
from core.storage.port import IndexedKind, IndexHit, SearchFilters
from core.storage.search_base import META_TABLE, SearchIndexBase, meta_value
from core.storage.search_where import (
    Dialect,
    IndexedTable,
    Where,
    as_hits,
    as_window_hits,
    indexed_tables,
)
from core.storage.write_turns import WRITE_OPTION

TEXT_SEARCH_CONFIG = "hearth"
"""The text search configuration of the ``fulltext`` columns (migration 0002)."""

EXACT_MAX_ROWS = 5_000
"""At most this many candidate vectors are scored exactly instead of through HNSW."""

SHORTLIST_FACTOR = 10
MIN_SHORTLIST = 500
"""The HNSW shortlist is ``max(limit * SHORTLIST_FACTOR, MIN_SHORTLIST)`` rows."""

MAX_EF_SEARCH = 1000
"""pgvector's upper bound for ``hnsw.ef_search``, which bounds what one HNSW scan returns."""

HNSW_MAX_DIMENSIONS = 2000
"""pgvector indexes vectors of at most this many dimensions; wider ones are scanned exactly."""

APPROXIMATE_MIN_ROWS = 50_000
"""Consolidation's neighbour lists come from the HNSW index above this many vectors (as
SQLite's ANN index starts at the same size); below it an exact pass is cheap and exact."""

NEIGHBOUR_QUERIES = 256
"""Query vectors sent in one statement of ``approximate_neighbours``."""

ESTIMATED_ROWS = 1_000
"""Tables with at least this many rows (by the planner's statistics) take BM25's row count
from them rather than counting every row for each search (2-10 ms at 10k-100k rows)."""

BM25_K1 = 1.2
BM25_B = 0.75


@dataclass(frozen=True)
class _Kind(IndexedTable):
    """An indexed kind's tables, with PostgreSQL's text-change trigger."""

    @property
    def trigger(self) -> str:
        """Changing a row's text deletes its vectors and windows and clears its model."""
        return f"{self.table}_vec_text_changed"


KINDS = indexed_tables(_Kind)


def erasable_tables(connection: Connection) -> list[str]:
    """Every table of the database (in the current schema) that can hold user text: all
    of them but Alembic's bookkeeping, so a new table is never forgotten by a forget."""
    names = connection.execute(sql(
        "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() "
        "AND tablename <> 'alembic_version' ORDER BY tablename")).scalars()
    return list(names)


def vector_literal(vector: np.ndarray) -> str:
    """pgvector's text form of one float32 vector (exact: each float32 prints as the
    shortest decimal that reads back as itself)."""
    return str(Vector(vector).to_text())


# --- filters ---------------------------------------------------------------------------


def _namespace_under(index: int, prefix: str) -> tuple[str, dict[str, str]]:
    """``ns = p`` or ``ns`` under ``p/``: ``starts_with`` compares characters exactly
    (case-sensitive, no collation, no LIKE escaping)."""
    return (f"m.namespace = :ns{index} OR starts_with(m.namespace, :ns{index}_under)",
            {f"ns{index}": prefix, f"ns{index}_under": prefix + "/"})


POSTGRESQL = Dialect(always="true", valid="m.is_valid AND m.superseded_by IS NULL",
                     under=_namespace_under)


# --- the index -------------------------------------------------------------------------


class PostgresSearchIndex(SearchIndexBase[_Kind, str]):
    """``SearchIndex`` over tsvector columns and pgvector tables."""

    IDS_PER_STATEMENT = 10_000

    def __init__(self, engine: Engine, *, exact_max_rows: int = EXACT_MAX_ROWS,
                 shortlist_factor: int = SHORTLIST_FACTOR,
                 min_shortlist: int = MIN_SHORTLIST,
                 approximate_min_rows: int = APPROXIMATE_MIN_ROWS) -> None:
        """The keyword arguments exist so tests can force the HNSW path on small data."""
        super().__init__(engine, KINDS, POSTGRESQL, exact_max_rows=exact_max_rows,
                         shortlist_factor=shortlist_factor, min_shortlist=min_shortlist)
        self._approximate_min_rows = approximate_min_rows

    # the dialect's spellings

    def _encoded(self, vector: np.ndarray) -> str:
        return vector_literal(vector)

    def _stored(self, column: str) -> str:
        """pgvector's binary form, so the floats are exact."""
        return f"vector_send({column})"

    def _floats(self, blobs: Sequence[Any]) -> np.ndarray:
        """``vector_send``'s form: a 4-byte header, then big-endian float32."""
        return np.frombuffer(b"".join(bytes(blob)[4:] for blob in blobs),
                             dtype=">f4").astype(np.float32)

    def _among(self, column: str, name: str) -> tuple[str, list[BindParameter[Any]]]:
        return f"{column} = ANY(:{name})", []

    def _has_table(self, connection: Connection, name: str) -> bool:
        return connection.execute(sql("SELECT to_regclass(:name)"),
                                  {"name": name}).scalar() is not None

    # full text

    def _text_hits(self, session: Session, spec: _Kind, words: Sequence[str],
                   filters: SearchFilters, limit: int) -> list[IndexHit]:
        lexemes = self._lexemes(session, words)
        if not lexemes:
            return []
        where = self._where(spec, filters)
        query = " || ".join(f"plainto_tsquery('{TEXT_SEARCH_CONFIG}', :w{index})"
                            for index in range(len(words)))
        statement = sql(
            f"WITH matched AS MATERIALIZED ("
            f"  SELECT m.id, m.{FULLTEXT_COLUMN} AS document, "
            f"  greatest(length(m.{FULLTEXT_COLUMN}), 1)::float8 AS length, "
            f"  ({where.condition}) AS passes "
            f"  FROM {spec.table} AS m WHERE m.{FULLTEXT_COLUMN} @@ ({query})), "
            f"terms AS ("
            f"  SELECT matched.id, matched.length, matched.passes, u.lexeme, "
            f"  cardinality(u.positions)::float8 AS tf FROM matched "
            f"  CROSS JOIN LATERAL unnest(matched.document) AS u "
            f"  WHERE u.lexeme = ANY(:lexemes)), "
            f"df AS (SELECT lexeme, count(*)::float8 AS n FROM terms GROUP BY lexeme), "
            f"corpus AS (SELECT greatest(({self._row_count_sql(spec)}), "
            f"  (SELECT count(*) FROM matched))::float8 AS n, "
            f"  (SELECT avg(length) FROM matched) AS length) "
            f"SELECT terms.id, sum("
            f"  greatest(ln((corpus.n - df.n + 0.5) / (df.n + 0.5)), 1e-6) "
            f"  * terms.tf * {BM25_K1 + 1} / (terms.tf + {BM25_K1} * "
            f"  (1 - {BM25_B} + {BM25_B} * terms.length / corpus.length))"
            f") AS score "
            f"FROM terms JOIN df ON df.lexeme = terms.lexeme CROSS JOIN corpus "
            f"WHERE terms.passes GROUP BY terms.id "
            f"ORDER BY score DESC, terms.id LIMIT :limit").bindparams(*where.binds)
        words_params = {f"w{index}": word for index, word in enumerate(words)}
        return as_hits(session.execute(statement, {
            **where.params, **words_params, "lexemes": lexemes, "limit": limit}))

    @staticmethod
    def _lexemes(session: Session, words: Sequence[str]) -> list[str]:
        """The lexemes the ``hearth`` configuration makes of ``words``, as in documents."""
        rows = session.execute(sql(
            f"SELECT DISTINCT u.lexeme FROM unnest(CAST(:words AS text[])) AS w(word) "
            f"CROSS JOIN LATERAL unnest(to_tsvector('{TEXT_SEARCH_CONFIG}', w.word)) AS u"),
            {"words": list(words)}).scalars()
        return sorted(rows)

    @staticmethod
    def _row_count_sql(spec: _Kind) -> str:
        """The table's row count: the planner's estimate (kept by autovacuum's ANALYZE)
        once it says ``ESTIMATED_ROWS`` or more, else counted; BM25 takes its logarithm,
        so an estimate a few percent off changes nothing that matters."""
        return (f"SELECT CASE WHEN c.reltuples >= {ESTIMATED_ROWS} THEN c.reltuples::bigint "
                f"ELSE (SELECT count(*) FROM {spec.table}) END FROM pg_class AS c "
                f"WHERE c.oid = '{spec.table}'::regclass")

    # vectors: search

    def _nearest(self, session: Session, spec: _Kind, where: Where, narrowed: bool,
                 query: str, limit: int, *, windows: bool) -> list[IndexHit]:
        """Whole-text vectors (or windows): exact when few, else an HNSW shortlist scored
        exactly and filtered, redone exactly if the filters left too few."""
        table = spec.chunks if windows else spec.vectors
        stored = self._count_capped(session, table)
        if stored == 0:
            return []
        exact = (stored <= self._exact_max_rows
                 or self._dimensions is not None and self._dimensions > HNSW_MAX_DIMENSIONS
                 or (narrowed and self._count_filtered(session, spec, where, table)
                     <= self._exact_max_rows))
        if exact:
            return self._exact_search(session, spec, where, query, limit, windows=windows)
        hits, dropped = self._shortlist_search(session, spec, where, query, limit,
                                               windows=windows)
        if len(hits) < limit and dropped:
            return self._exact_search(session, spec, where, query, limit, windows=windows)
        return hits

    def _count_filtered(self, session: Session, spec: _Kind, where: Where, table: str) -> int:
        """Vectors (or windows) of the rows passing ``where``, counted no further than
        ``exact_max_rows + 1``."""
        key = "item_id" if table == spec.chunks else "id"
        statement = sql(f"SELECT count(*) FROM (SELECT 1 FROM {spec.table} AS m "
                        f"JOIN {table} AS e ON e.{key} = m.id WHERE {where.condition} "
                        f"LIMIT :cap) AS capped").bindparams(*where.binds)
        return int(session.execute(statement, {**where.params,
                                               "cap": self._exact_max_rows + 1}).scalar_one())

    def _exact_search(self, session: Session, spec: _Kind, where: Where, query: str,
                      limit: int, *, windows: bool) -> list[IndexHit]:
        """Every vector of the rows passing ``where`` scored by cosine. Ordering by the
        similarity (not by the distance operator) keeps the HNSW index out of it."""
        if windows:
            statement = sql(
                f"SELECT item_id, similarity, position, char_start, char_end FROM ("
                f"  SELECT DISTINCT ON (c.item_id) c.item_id, "
                f"  1 - (c.embedding <=> CAST(:query AS vector)) AS similarity, "
                f"  c.position, c.char_start, c.char_end "
                f"  FROM {spec.chunks} AS c JOIN {spec.table} AS m ON m.id = c.item_id "
                f"  WHERE {where.condition} ORDER BY c.item_id, similarity DESC, c.position"
                f") AS best ORDER BY similarity DESC, item_id LIMIT :limit")
        else:
            statement = sql(
                f"SELECT m.id, 1 - (e.embedding <=> CAST(:query AS vector)) AS similarity "
                f"FROM {spec.table} AS m JOIN {spec.vectors} AS e ON e.id = m.id "
                f"WHERE {where.condition} ORDER BY similarity DESC, m.id LIMIT :limit")
        rows = session.execute(statement.bindparams(*where.binds),
                               {**where.params, "query": query, "limit": limit})
        return as_window_hits(rows) if windows else as_hits(rows)

    def _shortlist_search(self, session: Session, spec: _Kind, where: Where, query: str,
                          limit: int, *, windows: bool) -> tuple[list[IndexHit], bool]:
        """The HNSW index's nearest ``shortlist`` vectors (or windows), scored exactly,
        filtered, each row once. Returns the hits and whether the filters dropped any
        shortlisted row, which is when an exact search could find more."""
        shortlist = min(max(limit * self._shortlist_factor, self._min_shortlist),
                        MAX_EF_SEARCH)
        session.execute(sql("SELECT set_config('hnsw.ef_search', :ef, true)"),
                        {"ef": str(shortlist)})
        table = spec.chunks if windows else spec.vectors
        key = "item_id" if windows else "id"
        extra = ", e.position, e.char_start, e.char_end" if windows else ""
        statement = sql(
            f"WITH shortlist AS MATERIALIZED (SELECT e.id FROM {table} AS e "
            f"  ORDER BY e.embedding <=> CAST(:query AS vector) LIMIT :shortlist) "
            f"SELECT e.{key}, 1 - (e.embedding <=> CAST(:query AS vector)) AS similarity"
            f"{extra}, ({where.condition}) AS passes "
            f"FROM shortlist JOIN {table} AS e ON e.id = shortlist.id "
            f"JOIN {spec.table} AS m ON m.id = e.{key} "
            f"ORDER BY similarity DESC, e.{key}").bindparams(*where.binds)
        rows = session.execute(statement, {**where.params, "query": query,
                                           "shortlist": shortlist}).all()
        kept, seen = [], set()
        for row in rows:
            if row[-1] and row[0] not in seen:
                seen.add(row[0])
                kept.append(row)
        dropped = any(not row[-1] for row in rows)
        kept = kept[:limit]
        return (as_window_hits(kept) if windows else as_hits(kept)), dropped

    # vectors: writing

    def _write_vectors(self, session: Session, spec: _Kind, rows: list[dict[str, Any]],
                       windows: list[dict[str, Any]], model_id: str) -> None:
        exists = f"WHERE EXISTS (SELECT 1 FROM {spec.table} WHERE id = :id)"
        session.execute(sql(
            f"INSERT INTO {spec.vectors} (id, embedding) "
            f"SELECT :id, CAST(:vector AS vector) {exists} "
            f"ON CONFLICT (id) DO UPDATE SET embedding = EXCLUDED.embedding"), rows)
        all_ids = [row["id"] for row in rows]
        session.execute(sql(f"DELETE FROM {spec.chunks} WHERE item_id = ANY(:ids)"),
                        {"ids": all_ids})
        if windows:
            session.execute(sql(
                f"INSERT INTO {spec.chunks} (item_id, position, char_start, char_end, "
                f"embedding) SELECT :id, :position, :char_start, :char_end, "
                f"CAST(:vector AS vector) {exists}"), windows)
        session.execute(sql(f"UPDATE {spec.table} SET embedding_model = :model "
                            f"WHERE id = ANY(:ids)"), {"model": model_id, "ids": all_ids})

    # vectors: the tables themselves

    def _build(self, connection: Connection, dimensions: int, recorded: str | None) -> None:
        for spec in KINDS.values():
            if recorded != str(dimensions) or not self._has_tables(connection, spec):
                _reset_vectors(connection, spec, dimensions)
            _create_trigger(connection, spec)
        _set_meta(connection, "dimensions", str(dimensions))

    def _has_tables(self, connection: Connection, spec: _Kind) -> bool:
        """Whether the kind's vector and window tables both exist."""
        return all(self._has_table(connection, name) for name in (spec.vectors, spec.chunks))

    def approximate_neighbours(self, session: Session, kind: IndexedKind,
                               vectors: np.ndarray, count: int) -> np.ndarray | None:
        """For each row of ``vectors``, the ids of about ``count`` rows near it by the HNSW
        index (-1 pads), or None below ``approximate_min_rows`` vectors, for vectors too
        wide to index, or while the index is set aside (``loading_in_bulk``).

        pgvector answers one query vector per index scan, so each statement sends
        ``NEIGHBOUR_QUERIES`` of them and a ``LATERAL`` subquery runs one HNSW scan per
        vector on the server: a night's changed memories cost one scan each instead of
        reading every vector into this process (``core.consolidation.link``)."""
        spec = KINDS[kind]
        matrix = self._checked_matrix(session, vectors)
        if (matrix.shape[1] > HNSW_MAX_DIMENSIONS or not _has_hnsw(session, spec.vectors)
                or self._count_at_most(session, spec.vectors, self._approximate_min_rows)
                <= self._approximate_min_rows):
            return None
        found = np.full((matrix.shape[0], count), -1, dtype=np.int64)
        if count <= 0:
            return found
        session.execute(sql("SELECT set_config('hnsw.ef_search', :ef, true)"),
                        {"ef": str(min(max(2 * count, 40), MAX_EF_SEARCH))})
        statement = sql(
            f"SELECT q.ord, n.id FROM unnest(CAST(:queries AS vector[])) WITH ORDINALITY "
            f"AS q(v, ord) CROSS JOIN LATERAL (SELECT e.id FROM {spec.vectors} AS e "
            f"ORDER BY e.embedding <=> q.v LIMIT :count) AS n ORDER BY q.ord")
        for start in range(0, matrix.shape[0], NEIGHBOUR_QUERIES):
            block = matrix[start:start + NEIGHBOUR_QUERIES]
            filled = np.zeros(block.shape[0], dtype=np.int64)
            for ordinal, row_id in session.execute(statement, {
                    "queries": [vector_literal(vector) for vector in block], "count": count}):
                row = int(ordinal) - 1
                found[start + row, filled[row]] = int(row_id)
                filled[row] += 1
        return found

    def refresh_search_indexes(self, *, progress: Callable[[int, int], None] | None = None,
                               cancel: Callable[[], bool] | None = None) -> bool:
        """Nothing to do: PostgreSQL keeps its HNSW indexes in step with every write."""
        return True

    def search_index_backlog(self) -> int:
        """Always 0: PostgreSQL keeps its HNSW indexes in step with every write."""
        return 0

    @contextmanager
    def loading_in_bulk(self) -> Iterator[None]:
        """Without the HNSW indexes while a whole database is copied in, built once at the
        end (however the loading ends): inserting into an HNSW graph vector by vector costs
        milliseconds each and grows with the graph, building it at once is many times
        faster. Searches in between are exact scans, correct but slower."""
        write = self._engine.execution_options(**{WRITE_OPTION: True})
        with write.begin() as connection:
            for spec in KINDS.values():
                for table in (spec.vectors, spec.chunks):
                    connection.exec_driver_sql(f"DROP INDEX IF EXISTS {table}_hnsw")
        try:
            yield
        finally:
            with write.begin() as connection:
                recorded = (meta_value(connection, "dimensions")
                            if self._has_table(connection, META_TABLE) else None)
                for spec in KINDS.values():
                    if recorded is not None and self._has_tables(connection, spec):
                        _create_hnsw(connection, spec, int(recorded))

    def _in_place(self, dimensions: int) -> bool:
        with self._engine.connect() as connection:
            if not self._has_table(connection, META_TABLE):
                return False
            triggers = set(connection.execute(sql(
                "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal")).scalars())
            return (meta_value(connection, "dimensions") == str(dimensions)
                    and all(self._has_tables(connection, spec) and spec.trigger in triggers
                            for spec in KINDS.values()))


# --- helpers ---------------------------------------------------------------------------


def _has_hnsw(session: Session, table: str) -> bool:
    """Whether ``table``'s HNSW index exists (``loading_in_bulk`` drops it for a while)."""
    return session.execute(sql("SELECT 1 FROM pg_indexes WHERE indexname = :name"),
                           {"name": f"{table}_hnsw"}).first() is not None


def _set_meta(connection: Connection, key: str, value: str) -> None:
    connection.execute(sql(f"INSERT INTO {META_TABLE} (key, value) VALUES (:key, :value) "
                           f"ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value"),
                       {"key": key, "value": value})


def _reset_vectors(connection: Connection, spec: _Kind, dimensions: int) -> None:
    """(Re)create empty vector tables of this width; every row of the kind then needs
    embedding. Both reference the base row, so deleting it deletes its vectors."""
    vector = f"vector({dimensions})"
    references = f"REFERENCES {spec.table} (id) ON DELETE CASCADE"
    execute: Callable[[str], Any] = connection.exec_driver_sql
    execute(f"DROP TABLE IF EXISTS {spec.vectors}, {spec.chunks}")
    execute(f"CREATE TABLE {spec.vectors} (id integer PRIMARY KEY {references}, "
            f"embedding {vector} NOT NULL)")
    execute(f"CREATE TABLE {spec.chunks} (id bigserial PRIMARY KEY, "
            f"item_id integer NOT NULL {references}, position integer NOT NULL, "
            f"char_start integer NOT NULL, char_end integer NOT NULL, "
            f"embedding {vector} NOT NULL)")
    execute(f"CREATE INDEX {spec.chunks}_item ON {spec.chunks} (item_id)")
    _create_hnsw(connection, spec, dimensions)
    execute(f"UPDATE {spec.table} SET embedding_model = NULL "
            f"WHERE embedding_model IS NOT NULL")


def _create_hnsw(connection: Connection, spec: _Kind, dimensions: int) -> None:
    """The HNSW indexes of a kind's vector tables (pgvector indexes at most 2,000
    dimensions; wider vectors are only ever scanned exactly)."""
    if dimensions > HNSW_MAX_DIMENSIONS:
        return
    for table in (spec.vectors, spec.chunks):
        connection.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS {table}_hnsw ON {table} "
                                   f"USING hnsw (embedding vector_cosine_ops)")


def _create_trigger(connection: Connection, spec: _Kind) -> None:
    """Changing a row's indexed text deletes its vectors and windows and clears its
    ``embedding_model`` in the same statement (a BEFORE trigger edits the new row)."""
    changed = " OR ".join(f"OLD.{column} IS DISTINCT FROM NEW.{column}"
                          for column in spec.text_columns)
    connection.exec_driver_sql(
        f"CREATE OR REPLACE FUNCTION {spec.trigger}() RETURNS trigger LANGUAGE plpgsql AS $$ "
        f"BEGIN "
        f"DELETE FROM {spec.vectors} WHERE id = OLD.id; "
        f"DELETE FROM {spec.chunks} WHERE item_id = OLD.id; "
        f"NEW.embedding_model := NULL; "
        f"RETURN NEW; "
        f"END $$")
    connection.exec_driver_sql(f"DROP TRIGGER IF EXISTS {spec.trigger} ON {spec.table}")
    connection.exec_driver_sql(
        f"CREATE TRIGGER {spec.trigger} BEFORE UPDATE OF {', '.join(spec.text_columns)} "
        f"ON {spec.table} FOR EACH ROW WHEN ({changed}) "
        f"EXECUTE FUNCTION {spec.trigger}()")
