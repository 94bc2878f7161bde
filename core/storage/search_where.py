"""What both search adapters share: ``SearchFilters`` as a WHERE fragment over a base table
(alias ``m``), and turning ranked rows into ``IndexHit`` lists.

The SQL here is the subset both dialects read the same way (``IN`` through expanding
parameters, comparisons, ``IS NULL``); what differs is handed in as a ``Dialect``: how a
namespace is matched "at or under" a prefix (SQLite compares a range, which its binary
collation makes exact; PostgreSQL's collations may ignore punctuation, so it uses
``starts_with``), and how a boolean column reads as true.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from sqlalchemy import bindparam
from sqlalchemy.sql.elements import BindParameter

from core.storage.windows import TextWindow
from core.storage.orm import UTCDateTime
from core.storage.port import INDEXED_COLUMNS, IndexedKind, IndexHit, SearchFilters


@dataclass(frozen=True)
class IndexedTable:
    """How one indexed kind maps onto its base table and the vector tables beside it, the
    same in both adapters (each subclass adds its own index's tables)."""

    table: str
    text_columns: tuple[str, ...]
    has_session: bool
    is_memory: bool = False

    @property
    def vectors(self) -> str:
        return f"{self.table}_vec"

    @property
    def chunks(self) -> str:
        return f"{self.table}_vec_chunks"


T = TypeVar("T", bound=IndexedTable)


def indexed_tables(shape: type[T]) -> dict[IndexedKind, T]:
    """Every indexed kind's tables, as the adapter's own ``shape``."""
    return {
        IndexedKind.MEMORY: shape("memories", INDEXED_COLUMNS[IndexedKind.MEMORY],
                                  has_session=True, is_memory=True),
        IndexedKind.NOTE: shape("notes", INDEXED_COLUMNS[IndexedKind.NOTE], has_session=True),
        IndexedKind.INTERACTION: shape("interactions",
                                       INDEXED_COLUMNS[IndexedKind.INTERACTION],
                                       has_session=True),
        IndexedKind.FACT: shape("user_facts", INDEXED_COLUMNS[IndexedKind.FACT],
                                has_session=False),
    }


@dataclass(frozen=True)
class Dialect:
    """How one backend spells the two clauses the dialects disagree on."""

    always: str
    """A condition that is always true (an empty filter)."""
    valid: str
    """A memory is valid and not superseded."""
    under: Callable[[int, str], tuple[str, dict[str, str]]]
    """For the ``index``-th namespace prefix: a clause matching the prefix itself or any
    namespace under ``prefix/``, and its parameters."""


@dataclass
class Where:
    """A WHERE fragment over the base table (alias ``m``) with its parameters."""

    always: str
    clauses: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)
    binds: list[BindParameter[Any]] = field(default_factory=list)

    @property
    def condition(self) -> str:
        return " AND ".join(self.clauses) or self.always

    def add(self, clause: str, bind: BindParameter[Any] | None = None, **params: Any) -> None:
        self.clauses.append(clause)
        self.params.update(params)
        if bind is not None:
            self.binds.append(bind)

    def add_in(self, column: str, name: str, values: Iterable[Any], negate: bool = False) -> None:
        self.add(f"m.{column} {'NOT IN' if negate else 'IN'} :{name}",
                 bindparam(name, expanding=True), **{name: sorted(values)})


def filters_where(kind: IndexedTable, filters: SearchFilters, dialect: Dialect) -> Where:
    """The filters that apply to ``kind``; the time window is ``since <= created_at < until``."""
    where = Where(dialect.always)
    if kind.is_memory:
        _memory_filters(where, filters, dialect)
    if filters.since is not None:
        where.add("m.created_at >= :f_since", bindparam("f_since", type_=UTCDateTime()),
                  f_since=filters.since)
    if filters.until is not None:
        where.add("m.created_at < :f_until", bindparam("f_until", type_=UTCDateTime()),
                  f_until=filters.until)
    if filters.session_ids and kind.has_session:
        where.add_in("session_id", "f_sessions", filters.session_ids)
    if filters.exclude_ids:
        where.add_in("id", "f_exclude", filters.exclude_ids, negate=True)
    return where


def narrows(kind: IndexedTable, filters: SearchFilters) -> bool:
    """Whether the filters can leave few rows (validity and exclusions rarely do)."""
    memory_narrowing = kind.is_memory and bool(
        filters.memory_types or filters.tiers or filters.categories or filters.namespaces)
    return memory_narrowing or bool(filters.since or filters.until
                                    or (filters.session_ids and kind.has_session))


def _memory_filters(where: Where, filters: SearchFilters, dialect: Dialect) -> None:
    if filters.memory_types:
        where.add_in("memory_type", "f_types", filters.memory_types)
    if filters.tiers:
        where.add_in("tier", "f_tiers", filters.tiers)
    if filters.categories:
        where.add_in("category", "f_categories", filters.categories)
    if filters.namespaces:
        _namespace_clause(where, filters.namespaces, dialect)
    if filters.valid_only is True:
        where.add(dialect.valid)
    elif filters.valid_only is False:
        where.add(f"NOT ({dialect.valid})")


def _namespace_clause(where: Where, prefixes: Sequence[str], dialect: Dialect) -> None:
    """Any of the prefixes; an empty prefix (the root) matches everything."""
    cleaned = [prefix.strip().rstrip("/") for prefix in prefixes]
    if any(not prefix for prefix in cleaned):
        return
    alternatives = []
    for index, prefix in enumerate(cleaned):
        clause, params = dialect.under(index, prefix)
        alternatives.append(clause)
        where.params.update(params)
    where.add("(" + " OR ".join(f"({alt})" for alt in alternatives) + ")")


# --- ranked rows as hits -----------------------------------------------------------------


def as_hits(rows: Iterable[Any]) -> list[IndexHit]:
    """Rows (id, score, ...) as hits ranked in their order."""
    return [IndexHit(id=row[0], score=float(row[1]), rank=rank)
            for rank, row in enumerate(rows, start=1)]


def as_window_hits(rows: Iterable[Any]) -> list[IndexHit]:
    """Rows (item_id, similarity, position, char_start, char_end, ...) as hits."""
    return [IndexHit(id=row[0], score=float(row[1]), rank=rank,
                     chunk=TextWindow(row[2], row[3], row[4]))
            for rank, row in enumerate(rows, start=1)]


def merged(rows: list[IndexHit], windows: list[IndexHit], limit: int) -> list[IndexHit]:
    """Each row once with its best score (a window only if it beats the whole-text
    vector), best first, re-ranked. Exact for the top ``limit``: a row whose best score
    makes the top ``limit`` is among the top ``limit`` of the signal that gave it."""
    best = {hit.id: hit for hit in rows}
    for hit in windows:
        known = best.get(hit.id)
        if known is None or hit.score > known.score:
            best[hit.id] = hit
    ordered = sorted(best.values(), key=lambda hit: (-hit.score, hit.id))[:limit]
    return [replace(hit, rank=rank) for rank, hit in enumerate(ordered, start=1)]
