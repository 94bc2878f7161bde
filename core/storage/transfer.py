"""Copying a whole Hearth database into an empty one of the other backend (SQLite ↔
PostgreSQL): ``hearth migrate``.

Dialect-neutral: the relational tables are copied through SQLAlchemy Core over the ORM's
own tables (``core.storage.orm``), so their types convert each value both ways exactly as
Hearth reads and writes it (aware UTC datetimes, JSON documents, booleans, floats), and ids
are kept. Vectors are not embedded again: each page's stored vectors (whole text and the
windows of long texts) are read through the source's ``SearchIndex.stored_embeddings`` and
written through the target's ``store_embeddings``, in the same transaction as their rows,
so the target's own vector tables (sqlite-vec's binary codes, pgvector's HNSW index) are
built as the target would build them (PostgreSQL's HNSW indexes once at the end,
``SearchIndex.loading_in_bulk``: far faster than growing them vector by vector). The
full-text indexes follow their tables by themselves (triggers on SQLite, generated columns
on PostgreSQL). The scheduler's job
store, when the caller names its table, is copied row for row (its pickled jobs are bytes).

Both databases are opened through their adapters first, so both are at the schema head
(the Alembic revision is the same, or nothing is copied). The target must be empty: a
database that already holds anything is refused in one sentence, unless ``replace`` is
asked for (then its rows are deleted first). While a copy runs, the target holds a marker
table (``MARKER``), created before the first row and dropped in the transaction that
finishes the copy: a copy stopped by Ctrl-C, a kill or a lost server leaves it, and the
next attempt says the target holds an unfinished copy (``replace`` starts it again).

Rows go in pages of ``PAGE_ROWS``, each its own write transaction on the target, read from
one snapshot of the source (a read session for the whole copy), so the copy is a
consistent picture of the moment it started. A memory's ``superseded_by`` may name a
later memory, so that column is filled in after all memories are in; PostgreSQL's id
sequences are set past the largest id at the end (``sql.advance_id_sequences``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy import Column, Integer, bindparam, MetaData, Table, func, inspect, select, update
from sqlalchemy.orm import Session

from core.errors import DatabaseError, HearthError
from core.storage.orm import Base, Interaction, Memory, Note, UserFact
from core.storage.port import IndexedKind, StoragePort
from core.storage.sql import advance_id_sequences

PAGE_ROWS = 500
"""Rows per write transaction: a few hundred keeps each one short on either backend."""
MARKER = "hearth_copy_unfinished"
"""A table that exists in a target only while a copy into it is unfinished."""

INDEXED_TABLES: dict[str, IndexedKind] = {
    Memory.__tablename__: IndexedKind.MEMORY, Note.__tablename__: IndexedKind.NOTE,
    Interaction.__tablename__: IndexedKind.INTERACTION,
    UserFact.__tablename__: IndexedKind.FACT,
}
HELD_BACK = {Memory.__tablename__: ("superseded_by",)}
"""Columns naming a row of the same table, which may come later in id order."""

Progress = Callable[[int, int], None]


class CopyCancelled(HearthError):
    """The copy was asked to stop; the target keeps its marker (see the module docstring)."""

    exit_code = 130


class TargetNotEmpty(HearthError):
    """The target already holds something; nothing was copied."""


@dataclass(frozen=True)
class CopyReport:
    """What a finished copy wrote: rows per table, and rows whose vectors came along."""

    rows: dict[str, int]
    vectors: dict[str, int] = field(default_factory=dict)
    revision: str | None = None

    @property
    def total(self) -> int:
        return sum(self.rows.values())


def copy_database(source: StoragePort, target: StoragePort, *, replace: bool = False,
                  job_store: Table | None = None, progress: Progress | None = None,
                  cancelled: Callable[[], bool] | None = None) -> CopyReport:
    """Copy every row of ``source`` into ``target`` (see the module docstring).
    ``job_store``: the scheduler's job table, copied too when ``source`` has it.
    ``progress(done, total)`` is called after each page; ``cancelled()`` is polled between
    pages, and True stops the copy with ``CopyCancelled``."""
    revision = source.schema_revision()
    if revision != target.schema_revision():
        raise DatabaseError(f"{source.location} is at schema {revision} but "
                            f"{target.location} is at {target.schema_revision()}.",
                            "Open both with this version of Hearth first, then copy again.")
    tables = _tables(source, job_store)
    _prepare_target(target, tables, replace=replace)
    copier = _Copier(source, target, tables, progress or (lambda _done, _total: None),
                     cancelled or (lambda: False))
    report = copier.run()
    return CopyReport(report.rows, report.vectors, revision)


def _tables(storage: StoragePort, job_store: Table | None) -> list[Table]:
    """The ORM's tables in dependency order, then the job store if ``storage`` has it."""
    tables = list(Base.metadata.sorted_tables)
    if job_store is not None:
        with storage.read() as session:
            if inspect(session.connection()).has_table(job_store.name):
                tables.append(job_store)
    return tables


def _marker() -> Table:
    return Table(MARKER, MetaData(), Column("id", Integer, primary_key=True))


def _prepare_target(target: StoragePort, tables: Sequence[Table], *, replace: bool) -> None:
    """Refuse a target that holds anything (unless ``replace``: then empty it), and mark
    it unfinished."""
    with target.read() as session:
        connection = session.connection()
        unfinished = inspect(connection).has_table(MARKER)
        held = sum(session.execute(select(func.count()).select_from(table)).scalar_one()
                   for table in tables if inspect(connection).has_table(table.name))
    if unfinished and not replace:
        raise TargetNotEmpty(f"An earlier copy into {target.location} was stopped before it "
                             "finished, so it holds part of a home.",
                             "Run the same command again with --replace to empty it and "
                             "copy again.")
    if held and not replace:
        raise TargetNotEmpty(f"{target.location} already holds {held} rows of a Hearth "
                             "memory, so nothing was copied into it.",
                             "Copy into an empty database, or add --replace to delete what "
                             "it holds and copy this home over it.")
    with target.write() as session:
        connection = session.connection()
        _marker().create(connection, checkfirst=True)
        for table in tables:
            if table.name not in Base.metadata.tables:  # the job store: made by its library
                table.create(connection, checkfirst=True)
        for table in reversed(tables):  # vectors and full text follow by cascade/trigger
            if inspect(connection).has_table(table.name):
                session.execute(table.delete())


@dataclass
class _Done:
    rows: dict[str, int] = field(default_factory=dict)
    vectors: dict[str, int] = field(default_factory=dict)


class _Copier:
    """One copy, page by page, from one snapshot of the source."""

    def __init__(self, source: StoragePort, target: StoragePort, tables: Sequence[Table],
                 progress: Progress, cancelled: Callable[[], bool]) -> None:
        self._source = source
        self._target = target
        self._tables = tables
        self._progress = progress
        self._cancelled = cancelled
        self._done = _Done()
        self._copied = 0

    def run(self) -> _Done:
        with self._source.read() as reading:
            counts = {table.name: reading.execute(
                select(func.count()).select_from(table)).scalar_one() for table in self._tables}
            total = sum(counts.values())
            self._progress(0, total)
            self._prepare_vectors(reading)
            held: list[dict[str, Any]] = []
            with self._target.search.loading_in_bulk():
                for table in self._tables:
                    held += self._copy_table(reading, table, total)
                    self._done.rows[table.name] = counts[table.name]
            with self._target.write() as session:
                for name, rows in _by_table(held).items():
                    table = Base.metadata.tables[name]
                    for start in range(0, len(rows), PAGE_ROWS):
                        session.execute(update(table).where(
                            table.c.id == bindparam("row_id")), rows[start:start + PAGE_ROWS])
                advance_id_sequences(session.connection(), self._tables)
                _marker().drop(session.connection())
        return self._done

    def _prepare_vectors(self, reading: Session) -> None:
        """Give the target vector tables of the source's width (found from one stored
        vector), before any write transaction holds the target's write lock."""
        for name, kind in INDEXED_TABLES.items():
            table = Base.metadata.tables[name]
            ids = reading.execute(select(table.c.id).where(
                table.c.embedding_model.is_not(None)).order_by(table.c.id).limit(50)).scalars()
            found = self._source.search.stored_embeddings(reading, kind, list(ids))
            if found:
                self._target.search.ensure_dimensions(len(found[0].vector))
                return

    def _copy_table(self, reading: Session, table: Table, total: int) -> list[dict[str, Any]]:
        """Copy ``table`` page by page; returns the held-back column values to set later."""
        key = next(iter(table.primary_key.columns))
        held_names = HELD_BACK.get(table.name, ())
        held: list[dict[str, Any]] = []
        after: Any = None
        while True:
            if self._cancelled():
                raise CopyCancelled(f"The copy into {self._target.location} was stopped; it "
                                    "is marked unfinished.",
                                    "Run the same command again with --replace to start "
                                    "over.")
            query = select(table).order_by(key).limit(PAGE_ROWS)
            if after is not None:
                query = query.where(key > after)
            rows = [dict(row) for row in reading.execute(query).mappings()]
            if not rows:
                return held
            for row in rows:
                kept = {name: row[name] for name in held_names if row[name] is not None}
                if kept:
                    held.append({"table": table.name, "row_id": row["id"], **kept})
                    row.update(dict.fromkeys(kept))
            with self._target.write() as writing:
                writing.execute(table.insert(), rows)
                kind = INDEXED_TABLES.get(table.name)
                if kind is not None:
                    self._copy_vectors(reading, writing, kind, rows)
            after = rows[-1][key.name]
            self._copied += len(rows)
            self._progress(self._copied, total)

    def _copy_vectors(self, reading: Session, writing: Session, kind: IndexedKind,
                      rows: Sequence[dict[str, Any]]) -> None:
        """The page's stored vectors, written by model (``store_embeddings`` records the
        model of the rows it is given)."""
        models = {row["id"]: row["embedding_model"] for row in rows}
        found = self._source.search.stored_embeddings(
            reading, kind, [row_id for row_id, model in models.items() if model])
        by_model: dict[str, list[Any]] = {}
        for stored in found:
            by_model.setdefault(models[stored.id], []).append(stored)
        for model, group in by_model.items():
            self._target.search.store_embeddings(
                writing, kind, [stored.id for stored in group],
                np.stack([stored.vector for stored in group]), model,
                chunks=[stored.chunks for stored in group])
        self._done.vectors[kind.value] = self._done.vectors.get(kind.value, 0) + len(found)


def _by_table(held: Sequence[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = {}
    for entry in held:
        values = {name: value for name, value in entry.items() if name != "table"}
        grouped.setdefault(entry["table"], []).append(values)
    return grouped
