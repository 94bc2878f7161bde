"""Finding memories to look at: a filtered, newest-first list read a page at a time, or a
hybrid search through recall with its scores and signals, under the same filters.

Why keyset paging: a data folder can hold 100k memories, and a list that loads them all, or
that pages with ``OFFSET`` (which re-reads every skipped row), gets slower the further the
user scrolls. Each page here starts after the last row of the previous one, on the
``created_at`` index, so every page costs the same.

Validity has four answers, the search index only two (valid, or not): searching for
"invalid" or "superseded" memories asks recall for the non-valid ones and keeps those whose
state matches. The search index knows no import runs either: a search within one run keeps,
of recall's best, those the run added.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, and_, cast, func, or_, select
from sqlalchemy.sql.elements import ColumnElement

from core.errors import InvalidInputError
from core.recall import RecallService
from core.recall.search import MEMORIES_ONLY
from core.recall.search import search as search_recall
from core.storage.orm import Memory
from core.storage.port import SearchFilters, StoragePort, batched
from core.storage.sql import json_text, of_import_batch
from core.transfer.note_words import NOTES_SOURCE, note_words

PAGE_SIZE = 200
"""Rows per page of the browsable list: a few screens, read in a few milliseconds."""


class Validity(str, enum.Enum):
    """Which memories to show by their state (``MemoryRow.state``)."""

    VALID = "valid"
    INVALID = "invalid"          # invalidated (wrong, obsolete, contradicted)
    SUPERSEDED = "superseded"    # replaced by a newer memory
    ALL = "all"


@dataclass(frozen=True)
class MemoryFilter:
    """What the list and the search show. ``namespace`` is a prefix ("user" also matches
    "user/health"); the time window is ``since <= created_at < until``; ``import_batch``
    keeps the memories one import run added (``origin.import_batch``, on its expression
    index)."""

    memory_types: frozenset[str] = frozenset()
    tiers: frozenset[str] = frozenset()
    namespace: str = ""
    validity: Validity = Validity.VALID
    since: datetime | None = None
    until: datetime | None = None
    import_batch: int | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "validity", Validity(self.validity))
        except ValueError:
            raise InvalidInputError(f"{self.validity!r} is not a memory state to filter by.",
                                    f"Use one of: {', '.join(v.value for v in Validity)}."
                                    ) from None
        object.__setattr__(self, "namespace", self.namespace.strip().rstrip("/"))
        if self.since and self.until and self.since >= self.until:
            raise InvalidInputError("The time range ends before it starts.",
                                    "Pick a start date before the end date.")

    def search_filters(self) -> SearchFilters:
        """The same filter in recall's terms (validity and the import run narrowed
        afterwards, see above)."""
        valid_only = {Validity.VALID: True, Validity.ALL: None}.get(self.validity, False)
        return SearchFilters(memory_types=self.memory_types, tiers=self.tiers,
                             namespaces=(self.namespace,) if self.namespace else (),
                             since=self.since, until=self.until, valid_only=valid_only)


@dataclass(frozen=True)
class MemoryRow:
    """One memory in a list. ``score``, ``signals`` and ``excerpt`` (the window of a long
    memory that matched) are set for search results only."""

    id: int
    content: str
    memory_type: str
    tier: str
    namespace: str
    category: str
    importance: float
    strength: float
    freshness: float
    state: str
    created_at: datetime
    score: float | None = None
    signals: dict[str, dict[str, Any]] = field(default_factory=dict)
    excerpt: str | None = None
    speaker: str | None = None
    """Who said it, for a turn of an imported conversation (its text starts "speaker: ")."""
    source: str = ""

    @property
    def shown(self) -> str:
        """Its text (or the part a search matched) as a list reads it: an imported note
        without its Markdown marks (``core.transfer.note_words``)."""
        text = self.excerpt or self.content
        return note_words(text) if self.source == NOTES_SOURCE else text


@dataclass(frozen=True)
class Cursor:
    """Where the next page starts: just after this row in newest-first order."""

    created_at: datetime
    id: int


@dataclass(frozen=True)
class Page:
    rows: list[MemoryRow]
    next: Cursor | None
    """``None`` when this was the last page."""


def speaker_of(memory: Any) -> ColumnElement[Any]:
    """The speaker an imported turn's ``origin`` names (NULL for other memories), read in
    SQL so a list or a graph gets it without loading the whole origin. An origin whose
    ``speaker`` is not text names nobody."""
    return json_text(memory.origin, "speaker")


_COLUMNS = (Memory.id, Memory.content, Memory.memory_type, Memory.tier, Memory.namespace,
            Memory.category, Memory.importance, Memory.strength, Memory.freshness,
            Memory.is_valid, Memory.superseded_by, Memory.created_at, Memory.source,
            speaker_of(Memory).label("speaker"))


def memory_state(is_valid: bool, superseded_by: int | None) -> str:
    """``superseded`` wins over ``invalid``: it says where the newer version is."""
    if superseded_by is not None:
        return Validity.SUPERSEDED.value
    return Validity.VALID.value if is_valid else Validity.INVALID.value


def _row(row: Any, **scored: Any) -> MemoryRow:
    return MemoryRow(id=row.id, content=row.content, memory_type=row.memory_type,
                     tier=row.tier, namespace=row.namespace, category=row.category,
                     importance=row.importance, strength=row.strength,
                     freshness=row.freshness,
                     state=memory_state(row.is_valid, row.superseded_by),
                     created_at=row.created_at, speaker=row.speaker, source=row.source,
                     **scored)


def _conditions(memory_filter: MemoryFilter) -> list[ColumnElement[bool]]:
    """The filter as SQL conditions, with the search index's namespace and validity rules."""
    where: list[ColumnElement[bool]] = []
    if memory_filter.memory_types:
        where.append(Memory.memory_type.in_(sorted(memory_filter.memory_types)))
    if memory_filter.tiers:
        where.append(Memory.tier.in_(sorted(memory_filter.tiers)))
    prefix = memory_filter.namespace
    if prefix:
        where.append(or_(Memory.namespace == prefix,
                         and_(Memory.namespace >= prefix + "/", Memory.namespace < prefix + "0")))
    validity = memory_filter.validity
    # ``is_valid`` is compared through a cast so that no planner walks its index: nearly
    # every memory is valid, and SQLite, without statistics, would pick that index and
    # sort every valid row for each page instead of reading the created_at index in order.
    is_valid = cast(Memory.is_valid, Integer)
    if validity is Validity.VALID:
        where += [is_valid == 1, Memory.superseded_by.is_(None)]
    elif validity is Validity.INVALID:
        where += [is_valid == 0, Memory.superseded_by.is_(None)]
    elif validity is Validity.SUPERSEDED:
        where.append(Memory.superseded_by.is_not(None))
    if memory_filter.since is not None:
        where.append(Memory.created_at >= memory_filter.since)
    if memory_filter.until is not None:
        where.append(Memory.created_at < memory_filter.until)
    if memory_filter.import_batch is not None:
        where.append(of_import_batch(Memory.origin, memory_filter.import_batch))
    return where


def browse(storage: StoragePort, memory_filter: MemoryFilter, after: Cursor | None = None,
           limit: int | None = None) -> Page:
    """One page (``PAGE_SIZE`` rows unless told) of matching memories, newest first,
    starting after ``after``."""
    limit = PAGE_SIZE if limit is None else limit
    if limit < 1:
        raise InvalidInputError(f"A page needs at least one row, not {limit}.",
                                "Ask for a positive number of rows.")
    query = select(*_COLUMNS).where(*_conditions(memory_filter))
    if after is not None:
        query = query.where(or_(Memory.created_at < after.created_at,
                                and_(Memory.created_at == after.created_at,
                                     Memory.id < after.id)))
    query = query.order_by(Memory.created_at.desc(), Memory.id.desc()).limit(limit + 1)
    with storage.read() as session:
        found = [_row(row) for row in session.execute(query)]
    rows = found[:limit]
    following = Cursor(rows[-1].created_at, rows[-1].id) if len(found) > limit else None
    return Page(rows, following)


def count(storage: StoragePort, memory_filter: MemoryFilter) -> int:
    """How many memories match (shown above the list)."""
    query = select(func.count()).select_from(Memory).where(*_conditions(memory_filter))
    with storage.read() as session:
        return session.execute(query).scalar_one()


def search(storage: StoragePort, recall: RecallService, text: str,
           memory_filter: MemoryFilter, k: int = 50) -> list[MemoryRow]:
    """Hybrid recall over memories under the filter: at most ``k``, best first, each with
    its score and the signals that produced it (text rank and BM25, vector similarity,
    RRF, recency, strength, graph). The search every surface runs
    (``core.recall.search``): graph additions fill the places the head left, in recall's
    order."""
    results = search_recall(recall, text, k, memory_filter.search_filters(),
                            kinds=MEMORIES_ONLY)
    ids = [result.id for result in results]
    rows: dict[int, Any] = {}
    of_run = ([] if memory_filter.import_batch is None
              else [of_import_batch(Memory.origin, memory_filter.import_batch)])
    with storage.read() as session:
        for chunk in batched(sorted(ids), 500):
            rows.update((row.id, row) for row in session.execute(
                select(*_COLUMNS).where(Memory.id.in_(chunk), *of_run)))
    wanted = memory_filter.validity
    listed = []
    for result in results:
        row = rows.get(result.id)
        if row is None:  # deleted since recall read it, or not of the import run asked for
            continue
        described = _row(row, score=result.score, signals=result.signals,
                         excerpt=result.excerpt)
        if wanted in (Validity.ALL, Validity.VALID) or described.state == wanted.value:
            listed.append(described)
    return listed


def namespaces(storage: StoragePort) -> list[str]:
    """The namespaces in use, for the namespace filter (an indexed column, few values)."""
    with storage.read() as session:
        return list(session.scalars(
            select(Memory.namespace).distinct().order_by(Memory.namespace)))
