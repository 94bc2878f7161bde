"""Full-text and vector search for SQLite: FTS5 for words, sqlite-vec functions for meaning.

All SQLite-specific search SQL lives here, behind ``core.storage.port.SearchIndex``: the
hooks of ``core.storage.search_base.SearchIndexBase``, which holds what PostgreSQL does the
same way (checking vectors and their width, window rows, filters, merging the hits).

What callers can count on: user text is never FTS5 syntax (the terms of its words are
quoted and ORed, ``core.storage.search_terms``, the same terms the tables index); scores
are higher-is-better (``-bm25()``, and cosine similarity that is always exact: a shortlist
from the bits or the ANN index is rescored from the float table); a query with terms in
over ``FREQUENT_ROWS`` rows is bounded, and
one without is the plain search. The vector tables are derived data made by
``ensure_dimensions``, not by a migration; triggers drop a row's vectors and windows when
it is deleted or its text changes, and ``store_embeddings`` runs in the caller's
transaction and touches only ``embedding_model``, which fires no text trigger.

See docs/data-model.md, "Search indexes beside the tables" and "How SQLite searches them"
(frequent words, the planner, windows, and the measurements behind each choice).
"""

from __future__ import annotations

import json
import math
import secrets
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import Connection, Engine, bindparam
from sqlalchemy import text as sql
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import BindParameter

from core.storage.port import IMPORTED_SOURCE, IndexedKind, IndexHit, SearchFilters
from core.storage.search_terms import query_terms, terms_of
from core.storage.search_base import META_TABLE, SearchIndexBase, meta_value
from core.storage.search_where import (
    Dialect,
    IndexedTable,
    Where,
    as_hits,
    as_window_hits,
    indexed_tables,
    merged,
    narrows,
)
from core.storage.sqlite import ann
from core.storage.sqlite import text_index
from core.storage.sqlite.ann import VectorIndexes
from core.storage.sqlite.derived import (
    CancelCheck,
    IndexState,
    ProgressCallback,
    change_log_objects,
    create_change_log,
    create_text_change_log,
)
from core.storage.sqlite.text_index import TextIndexes, TextSource
from core.storage.sqlite.engine import translated_errors

EXACT_MAX_ROWS = 5_000
"""At most this many candidate vectors are scored exactly instead of through the bits."""

SHORTLIST_FACTOR = 10
MIN_SHORTLIST = 500
"""The Hamming shortlist is ``max(limit * SHORTLIST_FACTOR, MIN_SHORTLIST)`` rows."""

ANN_SHORTLIST_FACTOR = 4
ANN_MIN_SHORTLIST = 200
"""The ANN shortlist is ``max(limit * ANN_SHORTLIST_FACTOR, ANN_MIN_SHORTLIST)`` rows, more
for narrowing filters (divided by the share of rows they keep), at most:"""
ANN_MAX_SHORTLIST = 4_000
"""Beyond this a filter keeps so few rows that a scan with the filter inside is better."""

OVERFETCH = 2
"""Ranked rows fetched per wanted row when filters are applied after ranking."""

TEXT_INDEX_FETCHES = (OVERFETCH, 8 * OVERFETCH)
"""Rows asked of the full-text index per wanted row, in turn, while the filters leave too
few; then FTS5 answers with the filters inside its scan. Every filter is applied to the
ranked rows, the narrowing ones too: recall's time window ends at the moment a question is
asked (``as_of``), which keeps nearly every row, and a filter that does keep few costs
two index searches (~1 ms each at 1M) before FTS5's."""

FREQUENT_ROWS = 20_000
"""A query term in more rows than this is frequent (docs/data-model.md, "Frequent words")."""

NEWEST_FREQUENT = 500
"""Matches of the frequent words scored when a query has them (the newest)."""

UPGRADE_MIN_CHARS = 128
"""Databases from before windows: rows whose text is at least this long may exceed one
inference (510 bge tokens at up to 4 tokens per character, ``chunking.MAX_TOKENS_PER_CHAR``)
and are queued for re-embedding when the window tables are added; shorter rows cannot."""

WINDOW_SCHEME = "sentences"
"""Which texts have windows, recorded in the meta table. Databases whose windows were made
for long texts only (no record) queue their imported turns of several sentences for
re-embedding once, so they gain sentence windows (``core.embedding.chunking``)."""

IMPORTED_TURN = f"m.source = '{IMPORTED_SOURCE}' AND m.session_id IS NOT NULL"
"""The rows that are conversation turns (``core.embedding.turn_views``)."""

_SEVERAL_SENTENCES = ("(m.content GLOB '*[.!?] ?*' OR m.content GLOB '*[。！？]?*' "
                      "OR instr(m.content, char(10)) > 0)")
"""A text that may have two sentences: an end mark followed by more, or a line break."""

@dataclass(frozen=True)
class _Kind(IndexedTable):
    """An indexed kind's tables, with SQLite's FTS5 and bit tables beside them."""

    @property
    def fts(self) -> str:
        return f"{self.table}_fts"

    @property
    def bits(self) -> str:
        return f"{self.table}_vec_bits"

    @property
    def vector_tables(self) -> tuple[str, str]:
        """The tables whose rows have an ANN index (``core.storage.sqlite.ann``)."""
        return (self.vectors, self.chunks)

    @property
    def triggers(self) -> tuple[str, str, str, str]:
        """Deleting or changing a row clears its vectors (``_ad``, ``_au``) and windows."""
        return (f"{self.vectors}_ad", f"{self.vectors}_au",
                f"{self.chunks}_ad", f"{self.chunks}_au")


KINDS = indexed_tables(_Kind)

VECTOR_TABLES = tuple(table for spec in KINDS.values() for table in spec.vector_tables)
"""Every table of vectors, each with its change log triggers and its own ANN index."""

TEXT_SOURCES = tuple(TextSource(spec.table, spec.text_columns) for spec in KINDS.values())
"""Every searchable table, each with its change log triggers and its own full-text index."""


# --- text ------------------------------------------------------------------------------


def fts_query(user_text: str) -> str:
    """An FTS5 query that ORs the terms of ``user_text`` as quoted strings ("" if none)."""
    return _fts_or(query_terms(user_text))


def _fts_or(terms: Iterable[str]) -> str:
    """The FTS5 query matching any of ``terms``, each a quoted string."""
    return " OR ".join('"' + term.replace('"', '""') + '"' for term in terms)


def _frequent_terms(session: Session, spec: _Kind, terms: Sequence[str]) -> set[str]:
    """The terms in more than ``FREQUENT_ROWS`` rows of the kind.

    Counted by FTS5 itself, up to one past the threshold, so no rows are scored: ~2 ms
    for a query's terms at 1M rows. Every term's count is a column of one statement: a
    statement per term cost as much again in round trips as the counting itself at
    10k-100k rows (measured).
    """
    counts = ", ".join(f"(SELECT count(*) FROM (SELECT 1 FROM {spec.fts} WHERE {spec.fts} "
                       f"MATCH :term{i} LIMIT :most + 1))" for i in range(len(terms)))
    params: dict[str, Any] = {f"term{i}": _fts_or([term]) for i, term in enumerate(terms)}
    found = session.execute(sql(f"SELECT {counts}"), {**params, "most": FREQUENT_ROWS}).one()
    return {term for term, count in zip(terms, found, strict=True) if count > FREQUENT_ROWS}


# --- filters ---------------------------------------------------------------------------


def _namespace_under(index: int, prefix: str) -> tuple[str, dict[str, str]]:
    """``ns = p`` or ``ns`` under ``p/``, as the range ``p/ <= ns < p0``.

    ('0' is the character after '/'.) Unlike LIKE this is case-sensitive, needs no escaping
    and uses the namespace index.
    """
    return (f"m.namespace = :ns{index} OR "
            f"(m.namespace >= :ns{index}_lo AND m.namespace < :ns{index}_hi)",
            {f"ns{index}": prefix, f"ns{index}_lo": prefix + "/", f"ns{index}_hi": prefix + "0"})


SQLITE = Dialect(always="1", valid="m.is_valid = 1 AND m.superseded_by IS NULL",
                 under=_namespace_under)


# --- the index -------------------------------------------------------------------------


class SqliteSearchIndex(SearchIndexBase[_Kind, bytes]):
    """``SearchIndex`` over FTS5 tables and plain vector tables scored with sqlite-vec."""

    IDS_PER_STATEMENT = 500

    def __init__(self, engine: Engine, *, database: Path | None = None,
                 read_only: bool = False, exact_max_rows: int | None = None,
                 shortlist_factor: int = SHORTLIST_FACTOR,
                 min_shortlist: int = MIN_SHORTLIST, ann_min_rows: int | None = None,
                 text_min_rows: int | None = None) -> None:
        """``database`` is the file whose ANN indexes live beside it (none for a private
        in-memory database: it is scanned, and FTS5 answers every text search). The other
        keyword arguments exist so tests can force the quantised, ANN and full-text index
        paths on small data (unset, the modules' constants apply as they are when the index
        is made)."""
        super().__init__(engine, KINDS, SQLITE,
                         exact_max_rows=EXACT_MAX_ROWS if exact_max_rows is None
                         else exact_max_rows,
                         shortlist_factor=shortlist_factor, min_shortlist=min_shortlist)
        self._database = database
        self._ann = (VectorIndexes(engine, database, VECTOR_TABLES,
                                   min_rows=ann.ANN_MIN_ROWS if ann_min_rows is None
                                   else ann_min_rows, read_only=read_only)
                     if database is not None else None)
        self._text = (TextIndexes(engine, database, TEXT_SOURCES,
                                  min_rows=text_index.TEXT_MIN_ROWS if text_min_rows is None
                                  else text_min_rows, read_only=read_only)
                      if database is not None else None)

    # the derived indexes: ANN and full text

    def refresh_search_indexes(self, *, progress: ProgressCallback | None = None,
                               cancel: CancelCheck | None = None) -> bool:
        """Rebuild the ANN and full-text indexes that are missing or disagree with the
        rows, and fold pending changes into their files (``core.storage.sqlite.ann``,
        ``core.storage.sqlite.text_index``), with one ``progress`` over both."""
        if self._ann is None or self._text is None:
            return True
        vectors = self._ann.backlog()
        total = vectors + self._text.backlog()

        def step(base: int) -> ProgressCallback | None:
            if progress is None:
                return None
            return lambda done, _total: progress(base + done, max(total, base + done))

        return (self._ann.refresh(step(0), cancel)
                and self._text.refresh(step(vectors), cancel))

    def search_index_backlog(self) -> int:
        """Rows the ANN and full-text indexes that are missing or stale would be rebuilt
        from (``VectorIndexes.backlog``, ``TextIndexes.backlog``)."""
        if self._ann is None or self._text is None:
            return 0
        return self._ann.backlog() + self._text.backlog()

    def vector_index_states(self) -> list[IndexState]:
        """Each vector table's ANN index: current, stale, missing or not needed."""
        return [] if self._ann is None else self._ann.states()

    def text_index_states(self) -> list[IndexState]:
        """Each searchable table's full-text index: current, stale, missing, not needed
        or off (an encrypted folder)."""
        return [] if self._text is None else self._text.states()

    def erase_removed(self) -> None:
        """Rewrite the ANN files without the vectors deleted since they were written, and
        the full-text indexes without the terms of rows deleted or changed since theirs."""
        if self._ann is not None:
            self._ann.erase_removed()
        if self._text is not None:
            self._text.erase_removed()

    # the dialect's spellings

    def _encoded(self, vector: np.ndarray) -> bytes:
        """sqlite-vec's blob format: the native float32 bytes."""
        return vector.tobytes()

    def _stored(self, column: str) -> str:
        """The blob as stored: it is already what ``_floats`` reads."""
        return column

    def _floats(self, blobs: Sequence[Any]) -> np.ndarray:
        """sqlite-vec's blobs are native float32 bytes: joined, they are the array."""
        return np.frombuffer(b"".join(blobs), dtype=np.float32)

    def _among(self, column: str, name: str) -> tuple[str, list[BindParameter[Any]]]:
        return f"{column} IN :{name}", [bindparam(name, expanding=True)]

    def _has_table(self, connection: Connection, name: str) -> bool:
        return connection.execute(sql(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = :name"),
            {"name": name}).first() is not None

    # full text

    def _text_hits(self, session: Session, spec: _Kind, words: Sequence[str],
                   filters: SearchFilters, limit: int) -> list[IndexHit]:
        """The terms of ``words`` (the tables index terms, not words) ORed: ranked by BM25,
        a frequent term over its newest matches only (``_newest_search``)."""
        terms = terms_of(list(words))
        where = self._where(spec, filters)
        if self._text is not None:
            for fetch in TEXT_INDEX_FETCHES:
                ranked = self._text.search(session.connection(), spec.table, terms,
                                           limit * fetch)
                if ranked is None:
                    break
                hits = self._passing(session, spec, where, ranked)[:limit]
                if len(hits) >= limit or len(ranked) < limit * fetch:
                    return hits
        frequent = _frequent_terms(session, spec, terms)
        rare = [term for term in terms if term not in frequent]

        def search(filter_in_scan: bool) -> list[IndexHit]:
            if not frequent:
                return self._bm25_search(session, spec, where, _fts_or(terms), limit,
                                         filter_in_scan=filter_in_scan)
            hits = self._newest_search(session, spec, where, _fts_or(frequent),
                                       filter_in_scan=filter_in_scan)
            if rare:
                for query in (_fts_or(rare), f"({_fts_or(rare)}) AND ({_fts_or(frequent)})"):
                    hits += self._bm25_search(session, spec, where, query, limit,
                                              filter_in_scan=filter_in_scan)
            return merged(hits, [], limit)

        return _filtered(search, narrows(spec, filters), limit)

    def _passing(self, session: Session, spec: _Kind, where: Where,
                 ranked: list[tuple[int, float]]) -> list[IndexHit]:
        """The ranked rows that pass the filters, in their order."""
        if not ranked:
            return []
        scan, params = _listed([item_id for item_id, _ in ranked])
        statement = sql(f"WITH listed AS MATERIALIZED ({scan}) SELECT m.id FROM listed "
                        f"CROSS JOIN {spec.table} AS m ON m.id = listed.id "
                        f"WHERE {where.condition}").bindparams(*where.binds)
        kept = set(session.execute(statement, {**where.params, **params}).scalars())
        return as_hits((item_id, score) for item_id, score in ranked if item_id in kept)

    def _newest_search(self, session: Session, spec: _Kind, where: Where, query: str, *,
                       filter_in_scan: bool) -> list[IndexHit]:
        """The newest ``NEWEST_FREQUENT`` matches of frequent words, scored by BM25.

        FTS5 reads its matches in rowid order and stops after the limit, so only these rows
        are scored, however many rows the words are in.
        """
        if filter_in_scan:
            statement = (
                f"SELECT m.id, -bm25({spec.fts}) AS score FROM {spec.fts} "
                f"JOIN {spec.table} AS m ON m.id = {spec.fts}.rowid "
                f"WHERE {spec.fts} MATCH :query AND {where.condition} "
                f"ORDER BY {spec.fts}.rowid DESC LIMIT :fetch")
        else:
            statement = (
                f"WITH newest AS MATERIALIZED (SELECT rowid AS id, -bm25({spec.fts}) AS score "
                f"FROM {spec.fts} WHERE {spec.fts} MATCH :query ORDER BY rowid DESC "
                f"LIMIT :fetch) SELECT m.id, newest.score FROM newest "
                f"CROSS JOIN {spec.table} AS m ON m.id = newest.id WHERE {where.condition}")
        return as_hits(session.execute(sql(statement).bindparams(*where.binds), {
            **where.params, "query": query, "fetch": NEWEST_FREQUENT}))

    def _bm25_search(self, session: Session, spec: _Kind, where: Where, query: str,
                     limit: int, *, filter_in_scan: bool) -> list[IndexHit]:
        """BM25 over the matches, filtered while ranking or after (see ``_filtered``).

        Ranked by ``bm25()`` as a column, not by FTS5's ``rank``: the same scores, but
        ``ORDER BY rank`` runs FTS5's own sorting pass, measured 20-30% slower at 100k
        rows for the same top rows (``docs/benchmarks.md``); ties go to the lower id.
        """
        if filter_in_scan:
            statement = (
                f"SELECT m.id, -bm25({spec.fts}) AS score FROM {spec.fts} "
                f"JOIN {spec.table} AS m ON m.id = {spec.fts}.rowid "
                f"WHERE {spec.fts} MATCH :query AND {where.condition} "
                f"ORDER BY score DESC, m.id LIMIT :limit")
        else:
            statement = (
                f"WITH ranked AS MATERIALIZED (SELECT rowid AS id, -bm25({spec.fts}) AS score "
                f"FROM {spec.fts} WHERE {spec.fts} MATCH :query "
                f"ORDER BY score DESC, rowid LIMIT :fetch) "
                f"SELECT m.id, ranked.score FROM ranked CROSS JOIN {spec.table} AS m "
                f"ON m.id = ranked.id WHERE {where.condition} "
                f"ORDER BY ranked.score DESC, m.id LIMIT :limit")
        return as_hits(session.execute(sql(statement).bindparams(*where.binds), {
            **where.params, "query": query, "limit": limit, "fetch": limit * OVERFETCH}))

    # vectors: search

    def _nearest(self, session: Session, spec: _Kind, where: Where, narrowed: bool,
                 query: bytes, limit: int, *, windows: bool) -> list[IndexHit]:
        return (self._chunk_search if windows else self._row_search)(
            session, spec, where, narrowed, query, limit)

    def _row_search(self, session: Session, spec: _Kind, where: Where, narrowed: bool,
                    query: bytes, limit: int) -> list[IndexHit]:
        """The whole-text vectors: exact when few, else an ANN or bit shortlist rescored
        exactly.

        Without narrowing filters a current ANN index is asked first: it exists only for a
        table far larger than ``exact_max_rows``, so counting the rows first (~0.6 ms at
        100k) would only confirm what the index already says."""
        ids = None if narrowed else self._ann_shortlist(session, spec.vectors, query, limit,
                                                        None)
        if ids is None:
            if self._is_small(session, spec):
                return self._exact_search(session, spec, where, query, limit)
            kept = self._count_filtered(session, spec, where) if narrowed else None
            if kept is not None and kept <= self._exact_max_rows:
                return self._exact_search(session, spec, where, query, limit)
            if narrowed:
                ids = self._ann_shortlist(session, spec.vectors, query, limit, kept)
        if ids is not None:
            hits = self._rescored(session, spec, where, query, limit, _listed(ids))
            if len(hits) >= limit:
                return hits
            narrowed = True  # the filters dropped too many: scan with them inside

        def search(filter_in_scan: bool) -> list[IndexHit]:
            return self._rescored(session, spec, where, query, limit,
                                  self._hamming_scan(session, spec, where, query, limit,
                                                     filter_in_scan=filter_in_scan),
                                  filtered=filter_in_scan)

        return _filtered(search, narrowed, limit)

    def _ann_shortlist(self, session: Session, table: str, query: bytes, limit: int,
                       kept: int | None) -> list[int] | None:
        """Ids from ``table``'s ANN index, or None when it has none that is current. With
        narrowing filters that keep ``kept`` rows, the shortlist grows by the share they
        drop (None past ``ANN_MAX_SHORTLIST``: then a scan with the filters inside)."""
        if self._ann is None:
            return None
        size = max(limit * ANN_SHORTLIST_FACTOR, ANN_MIN_SHORTLIST)
        if kept is not None:
            size = math.ceil(size * self._ann.size(table) / max(kept, 1))
            if size > ANN_MAX_SHORTLIST:
                return None
        vector = np.frombuffer(query, dtype=np.float32)
        return self._ann.shortlist(session.connection(), table, vector, size)

    def _is_small(self, session: Session, spec: _Kind) -> bool:
        """At most ``exact_max_rows`` vectors; counts no further than that."""
        return self._count_capped(session, spec.bits) <= self._exact_max_rows

    def _count_filtered(self, session: Session, spec: _Kind, where: Where, *,
                        windows: bool = False) -> int:
        """Vectors (or, with ``windows``, further windows) of the rows passing ``where``."""
        joined = (f"{spec.chunks} AS c ON c.item_id = m.id" if windows
                  else f"{spec.bits} AS b ON b.id = m.id")
        statement = sql(f"SELECT count(*) FROM {spec.table} AS m JOIN {joined} "
                        f"WHERE {where.condition}").bindparams(*where.binds)
        return int(session.execute(statement, where.params).scalar_one())

    def _exact_search(self, session: Session, spec: _Kind, where: Where, query: bytes,
                      limit: int) -> list[IndexHit]:
        statement = sql(
            f"SELECT m.id, 1.0 - vec_distance_cosine(e.embedding, :query) AS similarity "
            f"FROM {spec.table} AS m JOIN {spec.vectors} AS e ON e.id = m.id "
            f"WHERE {where.condition} ORDER BY similarity DESC, m.id LIMIT :limit"
        ).bindparams(*where.binds)
        return as_hits(session.execute(statement, {**where.params, "query": query,
                                                 "limit": limit}))

    def _hamming_scan(self, session: Session, spec: _Kind, where: Where, query: bytes,
                      limit: int, *, filter_in_scan: bool) -> tuple[str, dict[str, Any]]:
        """A shortlist by Hamming distance over the bits (SQL and its parameters), with
        the filters inside the scan or left to the rescoring (see ``_filtered``)."""
        hamming = "vec_distance_hamming(vec_bit(b.bits), vec_bit(:bits))"
        if filter_in_scan:
            scan = (f"SELECT b.id FROM {spec.table} AS m JOIN {spec.bits} AS b ON b.id = m.id "
                    f"WHERE {where.condition} ORDER BY {hamming} LIMIT :shortlist")
        else:
            scan = f"SELECT b.id FROM {spec.bits} AS b ORDER BY {hamming} LIMIT :shortlist"
        return scan, self._shortlist_params(session, query, limit)

    def _rescored(self, session: Session, spec: _Kind, where: Where, query: bytes, limit: int,
                  shortlist: tuple[str, dict[str, Any]], *,
                  filtered: bool = False) -> list[IndexHit]:
        """Score a shortlist (an ANN one or a Hamming scan) exactly by cosine from the float
        table, so a row without a vector is never returned; the filters apply here unless
        the scan applied them (``filtered``).

        Filters are checked on the ``limit * OVERFETCH`` best-scoring rows only: a base-table
        row is wide, and looking up all 200 shortlisted rows was half of the rescoring at
        100k. Validity and exclusions drop few rows; when they leave fewer than ``limit``,
        the caller searches again with the filters inside the scan."""
        scan, params = shortlist
        # MATERIALIZED and CROSS JOIN fix the join order: left free, the planner starts from
        # an index on the base table and scans the bits once per row (measured: 78 ms).
        statement = sql(
            f"WITH shortlist AS MATERIALIZED ({scan}), "
            f"scored AS MATERIALIZED (SELECT e.id AS id, "
            f"1.0 - vec_distance_cosine(e.embedding, :query) AS similarity "
            f"FROM shortlist CROSS JOIN {spec.vectors} AS e ON e.id = shortlist.id "
            f"ORDER BY similarity DESC, e.id LIMIT :fetch) "
            f"SELECT m.id, scored.similarity FROM scored CROSS JOIN {spec.table} AS m "
            f"ON m.id = scored.id WHERE {'1' if filtered else where.condition} "
            f"ORDER BY scored.similarity DESC, m.id LIMIT :limit").bindparams(*where.binds)
        return as_hits(session.execute(statement, {
            **where.params, **params, "query": query, "limit": limit,
            "fetch": limit if filtered else limit * OVERFETCH}))

    def _shortlist_params(self, session: Session, query: bytes,
                          limit: int) -> dict[str, Any]:
        """The query, its binary code and the shortlist size, for a Hamming scan."""
        bits = session.execute(sql("SELECT vec_quantize_binary(:query)"),
                               {"query": query}).scalar_one()
        return {"query": query, "bits": bits,
                "shortlist": max(limit * self._shortlist_factor, self._min_shortlist)}

    # vectors: the further windows (sentences of turns, stretches of long texts)

    def _chunk_search(self, session: Session, spec: _Kind, where: Where, narrowed: bool,
                      query: bytes, limit: int) -> list[IndexHit]:
        """Rows by their best further window, each once, planned like ``_row_search`` (a
        current ANN index first).

        Without one, an empty window table (no long texts) costs one indexed probe. The
        filters are the parent row's, through a join on ``item_id``.
        """
        ids = None if narrowed else self._ann_shortlist(session, spec.chunks, query, limit,
                                                        None)
        if ids is None:
            stored = self._count_capped(session, spec.chunks)
            if stored == 0:
                return []
            if stored <= self._exact_max_rows:
                return self._exact_chunk_search(session, spec, where, query, limit,
                                                windows_first=True)
            kept = (self._count_filtered(session, spec, where, windows=True) if narrowed
                    else None)
            if kept is not None and kept <= self._exact_max_rows:
                return self._exact_chunk_search(session, spec, where, query, limit,
                                                windows_first=False)
            if narrowed:
                ids = self._ann_shortlist(session, spec.chunks, query, limit, kept)
        if ids is not None:
            hits, _ = self._window_rescored(session, spec, where, query, limit, _listed(ids))
            if len(hits) >= limit:
                return hits
            narrowed = True
        scan = self._window_hamming_scan(session, spec, where, query, limit,
                                         filter_in_scan=narrowed)
        hits, dropped = self._window_rescored(session, spec, where, query, limit, scan,
                                              filtered=narrowed)
        if not narrowed and len(hits) < limit and dropped:
            scan = self._window_hamming_scan(session, spec, where, query, limit,
                                             filter_in_scan=True)
            hits, _ = self._window_rescored(session, spec, where, query, limit, scan,
                                            filtered=True)
        return hits

    def _exact_chunk_search(self, session: Session, spec: _Kind, where: Where, query: bytes,
                            limit: int, *, windows_first: bool) -> list[IndexHit]:
        """Score windows exactly. ``windows_first`` when there are few windows at all: the
        scan starts from them (CROSS JOIN fixes the order), else the planner may start from
        the whole base table and probe for windows once per row. Narrowing filters start
        from the base table's indexes instead."""
        source = (f"{spec.chunks} AS c CROSS JOIN {spec.table} AS m ON m.id = c.item_id"
                  if windows_first else
                  f"{spec.table} AS m JOIN {spec.chunks} AS c ON c.item_id = m.id")
        # With a single max() aggregate, SQLite takes the bare columns (the window's
        # position and span) from the row that has the maximum.
        statement = sql(
            f"SELECT c.item_id, max(1.0 - vec_distance_cosine(c.embedding, :query)) "
            f"AS similarity, c.position, c.char_start, c.char_end FROM {source} "
            f"WHERE {where.condition} GROUP BY c.item_id "
            f"ORDER BY similarity DESC, c.item_id LIMIT :limit").bindparams(*where.binds)
        return as_window_hits(session.execute(statement, {**where.params, "query": query,
                                                        "limit": limit}))

    def _window_hamming_scan(self, session: Session, spec: _Kind, where: Where,
                             query: bytes, limit: int, *,
                             filter_in_scan: bool) -> tuple[str, dict[str, Any]]:
        """A shortlist of windows by Hamming distance: a scan of the covering index on
        ``(item_id, bits)``, not of the float vectors."""
        hamming = "vec_distance_hamming(vec_bit(c.bits), vec_bit(:bits))"
        if filter_in_scan:
            scan = (f"SELECT c.id FROM {spec.table} AS m JOIN {spec.chunks} AS c "
                    f"ON c.item_id = m.id WHERE {where.condition} "
                    f"ORDER BY {hamming} LIMIT :shortlist")
        else:
            scan = f"SELECT c.id FROM {spec.chunks} AS c ORDER BY {hamming} LIMIT :shortlist"
        return scan, self._shortlist_params(session, query, limit)

    def _window_rescored(self, session: Session, spec: _Kind, where: Where, query: bytes,
                         limit: int, shortlist: tuple[str, dict[str, Any]], *,
                         filtered: bool = False) -> tuple[list[IndexHit], bool]:
        """Rescore shortlisted windows exactly and keep each row's best. Returns the hits
        and whether the filters dropped any shortlisted row, which is when a search with
        the filters inside the scan could find more."""
        scan, params = shortlist
        passes = "1" if filtered else f"({where.condition})"
        statement = sql(
            f"WITH shortlist AS MATERIALIZED ({scan}) "
            f"SELECT w.item_id, max(1.0 - vec_distance_cosine(w.embedding, :query)) "
            f"AS similarity, w.position, w.char_start, w.char_end, {passes} AS passes "
            f"FROM shortlist CROSS JOIN {spec.chunks} AS w ON w.id = shortlist.id "
            f"CROSS JOIN {spec.table} AS m ON m.id = w.item_id GROUP BY w.item_id "
            f"ORDER BY similarity DESC, w.item_id").bindparams(*where.binds)
        rows = session.execute(statement, {**where.params, **params, "query": query}).all()
        kept = [row for row in rows if row[5]]
        return as_window_hits(kept[:limit]), len(kept) < len(rows)

    # vectors: copying a whole database, consolidation's neighbours

    def loading_in_bulk(self) -> AbstractContextManager[None]:
        """Nothing to set aside: sqlite-vec's binary codes are written with each vector."""
        return nullcontext()

    def approximate_neighbours(self, session: Session, kind: IndexedKind,
                               vectors: np.ndarray, count: int) -> np.ndarray | None:
        """For each row of ``vectors``, ids of about ``count`` stored rows of ``kind`` near
        it by the ANN index (-1 pads), or None without a current index."""
        if self._ann is None:
            return None
        matrix = self._checked_matrix(session, vectors)
        return self._ann.neighbours(session.connection(), KINDS[kind].vectors, matrix, count)

    # vectors: writing

    def _write_vectors(self, session: Session, spec: _Kind, rows: list[dict[str, Any]],
                       windows: list[dict[str, Any]], model_id: str) -> None:
        exists = f"WHERE EXISTS (SELECT 1 FROM {spec.table} WHERE id = :id)"
        session.execute(sql(f"INSERT OR REPLACE INTO {spec.vectors} (id, embedding) "
                             f"SELECT :id, :vector {exists}"), rows)
        session.execute(sql(f"INSERT OR REPLACE INTO {spec.bits} (id, bits) "
                             f"SELECT :id, vec_quantize_binary(:vector) "
                             f"{exists}"), rows)
        session.execute(sql(f"DELETE FROM {spec.chunks} WHERE item_id = :id"),
                        [{"id": row["id"]} for row in rows])
        if windows:
            session.execute(sql(
                f"INSERT INTO {spec.chunks} (item_id, position, char_start, char_end, "
                f"embedding, bits) SELECT :id, :position, :char_start, :char_end, :vector, "
                f"vec_quantize_binary(:vector) {exists}"), windows)
        session.execute(sql(f"UPDATE {spec.table} SET embedding_model = :model WHERE id = :id"),
                        [{"id": row["id"], "model": model_id} for row in rows])

    # vectors: the tables themselves

    def ensure_dimensions(self, dimensions: int) -> bool:
        """A damaged file is a sentence here too: this runs before any session of a command
        that embeds."""
        with translated_errors(self._database):
            return super().ensure_dimensions(dimensions)

    def _build(self, connection: Connection, dimensions: int, recorded: str | None) -> None:
        if recorded != str(dimensions):
            for spec in KINDS.values():
                _reset_vectors(connection, spec)
            _set_meta(connection, "dimensions", str(dimensions))
        else:
            for spec in KINDS.values():
                if not self._has_table(connection, spec.chunks):
                    _add_window_table(connection, spec)
            if meta_value(connection, "windows") != WINDOW_SCHEME:
                _queue_several_sentences(connection)
        _set_meta(connection, "windows", WINDOW_SCHEME)
        for spec in KINDS.values():
            _create_triggers(connection, spec)
            create_text_change_log(connection, spec.table, spec.text_columns, spec.fts)
        create_change_log(connection, VECTOR_TABLES)
        if recorded != str(dimensions) or meta_value(connection, "generation") is None:
            # new vector tables: no index file built before can describe them
            _set_meta(connection, "generation", secrets.token_hex(8))

    def _in_place(self, dimensions: int) -> bool:
        expected = {META_TABLE} | change_log_objects(VECTOR_TABLES) | change_log_objects(
            source.name for source in TEXT_SOURCES) | {
            name for spec in KINDS.values()
            for name in (spec.vectors, spec.bits, spec.chunks, *spec.triggers)}
        with self._engine.connect() as connection:
            present = set(connection.execute(sql(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'trigger')")).scalars())
            return (expected <= present
                    and meta_value(connection, "generation") is not None
                    and meta_value(connection, "dimensions") == str(dimensions)
                    and meta_value(connection, "windows") == WINDOW_SCHEME)


# --- helpers ---------------------------------------------------------------------------


def _listed(ids: Sequence[int]) -> tuple[str, dict[str, Any]]:
    """A shortlist of known ids (from an ANN index) as a scan for ``_rescored``."""
    return "SELECT value AS id FROM json_each(:ids)", {"ids": json.dumps(list(ids))}


def _filtered(search: Callable[[bool], list[IndexHit]], narrowed: bool,
              limit: int) -> list[IndexHit]:
    """Run ``search(filter_in_scan)`` the cheaper way that still returns ``limit`` rows.

    Filters that can leave few rows go into the scan. Validity and exclusions remove only
    a few rows, so they are applied after ranking, which saves a base-table lookup per
    scanned row (a third of the text search and half of the bit scan at 100k rows); if
    that leaves fewer than ``limit`` rows, the search is redone with the filters inside.
    """
    if narrowed:
        return search(True)
    hits = search(False)
    return hits if len(hits) >= limit else search(True)


def _set_meta(connection: Connection, key: str, value: str) -> None:
    connection.execute(sql(f"INSERT OR REPLACE INTO {META_TABLE} (key, value) "
                            f"VALUES (:key, :value)"), {"key": key, "value": value})


def _reset_vectors(connection: Connection, spec: _Kind) -> None:
    """(Re)create empty vector tables; every row of the kind then needs embedding."""
    connection.execute(sql(f"DROP TABLE IF EXISTS {spec.vectors}"))
    connection.execute(sql(f"DROP TABLE IF EXISTS {spec.bits}"))
    connection.execute(sql(f"DROP TABLE IF EXISTS {spec.chunks}"))
    connection.execute(sql(
        f"CREATE TABLE {spec.vectors} (id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)"))
    connection.execute(sql(
        f"CREATE TABLE {spec.bits} (id INTEGER PRIMARY KEY, bits BLOB NOT NULL)"))
    _create_window_table(connection, spec)
    connection.execute(sql(f"UPDATE {spec.table} SET embedding_model = NULL "
                            f"WHERE embedding_model IS NOT NULL"))


def _create_window_table(connection: Connection, spec: _Kind) -> None:
    """The further windows of long rows. The index on ``(item_id, bits)`` finds a row's
    windows and also covers the Hamming scan, which so reads 48-byte codes instead of
    pages holding the float vectors."""
    connection.execute(sql(
        f"CREATE TABLE {spec.chunks} (id INTEGER PRIMARY KEY, item_id INTEGER NOT NULL, "
        f"position INTEGER NOT NULL, char_start INTEGER NOT NULL, char_end INTEGER NOT NULL, "
        f"embedding BLOB NOT NULL, bits BLOB NOT NULL)"))
    connection.execute(sql(
        f"CREATE INDEX {spec.chunks}_item ON {spec.chunks} (item_id, bits)"))


def _add_window_table(connection: Connection, spec: _Kind) -> None:
    """Add the window table to a database from before windows, and queue the rows that may
    be long for re-embedding (their vectors stay searchable meanwhile)."""
    _create_window_table(connection, spec)
    length = " + ".join(f"length(coalesce({column}, ''))" for column in spec.text_columns)
    connection.execute(sql(f"UPDATE {spec.table} SET embedding_model = NULL "
                            f"WHERE embedding_model IS NOT NULL AND {length} >= :chars"),
                       {"chars": UPGRADE_MIN_CHARS})


def _queue_several_sentences(connection: Connection) -> None:
    """Queue the imported turns that may have sentence windows for re-embedding (a database
    from before them); their vectors stay searchable meanwhile."""
    connection.execute(sql(f"UPDATE memories AS m SET embedding_model = NULL "
                            f"WHERE embedding_model IS NOT NULL AND {IMPORTED_TURN} "
                            f"AND {_SEVERAL_SENTENCES}"))


def _create_triggers(connection: Connection, spec: _Kind) -> None:
    """Deleting a row deletes its vectors; changing its text also clears its model.

    The windows have triggers of their own (rather than a longer body in the vector
    triggers), so a database from before windows gets them by ``IF NOT EXISTS`` too.
    """
    drop = (f"DELETE FROM {spec.vectors} WHERE id = old.id; "
            f"DELETE FROM {spec.bits} WHERE id = old.id;")
    changed = " OR ".join(f"old.{column} IS NOT new.{column}" for column in spec.text_columns)
    updated = f"AFTER UPDATE OF {', '.join(spec.text_columns)} ON {spec.table} WHEN {changed}"
    vectors_deleted, vectors_updated, chunks_deleted, chunks_updated = spec.triggers
    connection.execute(sql(
        f"CREATE TRIGGER IF NOT EXISTS {vectors_deleted} AFTER DELETE ON {spec.table} "
        f"BEGIN {drop} END"))
    connection.execute(sql(
        f"CREATE TRIGGER IF NOT EXISTS {vectors_updated} {updated} "
        f"BEGIN {drop} UPDATE {spec.table} SET embedding_model = NULL WHERE id = new.id; END"))
    connection.execute(sql(
        f"CREATE TRIGGER IF NOT EXISTS {chunks_deleted} AFTER DELETE ON {spec.table} "
        f"BEGIN DELETE FROM {spec.chunks} WHERE item_id = old.id; END"))
    connection.execute(sql(
        f"CREATE TRIGGER IF NOT EXISTS {chunks_updated} {updated} "
        f"BEGIN DELETE FROM {spec.chunks} WHERE item_id = new.id; END"))
