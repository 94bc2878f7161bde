"""Memories: browse and search them, read one's whole story, invalidate, restore, pin or
delete them, the memory map (the graph snapshot and what recall rings on it) and the
stats (growth, facts per category, strength and freshness).

Wraps the read models in ``core.views`` (browse, detail, graph), ``MemoryService`` and the
user's delete in ``core.forgetting``. Their results are already plain, frozen data
(``MemoryRow``, ``MemoryDetail``, ``GraphSnapshot``, ``Stats``…) and are handed on as they are; the
row classes' enums a filter names (``MemoryTier``, ``MemoryType``) are only values."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from core.app import Hearth
from core.forgetting.preview import PlaceInPreview
from core.forgetting.recently_deleted import MEMORIES as MEMORIES_KIND
from core.forgetting.recently_deleted import DeletedItem
from core.forgetting.service import MemoriesDeleted, MemoriesPreview, MemoryDeleteReport
from core.forgetting.wording import memories_deleted, words_left
from core.operations.deleted import changes_of
from core.knowledge.memories import said_by_assistant, speaker
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.recall.search import MEMORIES_ONLY
from core.recall.search import search as search_recall
from core.storage.orm import MemoryTier, MemoryType
from core.storage.port import SearchFilters
from core.transfer import batches
from core.transfer.batches import ImportRunInfo
from core.views import graph, memory_browse, memory_detail, stats
from core.views.graph import DEFAULT_LIMIT, Codes, GraphSnapshot, Neighbour, NodeDetails
from core.views.memory_browse import Cursor, MemoryFilter, MemoryRow, Page, Validity
from core.views.memory_detail import ChainLink, Edge, MemoryDetail, MemoryRef
from core.views.stats import Histogram, Stats

__all__ = [
    "DEFAULT_LIMIT", "ChainLink", "Codes", "Cursor", "Edge", "GraphSnapshot", "Histogram",
    "DeletedMemories", "ImportRunInfo", "Listing", "MemoriesDeleted", "MemoriesPreview",
    "MemoryDeleteReport", "MemoryDetail", "PlaceInPreview", "erase", "preview_erase",
    "words_left",
    "MemoryFilter", "MemoryRef", "MemoryRow", "MemoryTier", "MemoryType", "Neighbour",
    "NodeDetails", "Page", "Stats", "Validity", "delete", "invalidate", "list_memories", "map_node",
    "memories_deleted", "memory_map", "memory_stats", "more_memories", "pin", "read_memory",
    "recalled_ids", "restore", "said_by_assistant", "speaker",
]

MEMORIES = Changes.of(Domain.MEMORIES)
ERASE_CHANGES = Changes.knowledge() | Changes.of(Domain.CHATS, Domain.RUNS, Domain.NOTES)
"""An erase replaces the memories' words wherever they are: chats, notes, facts, runs."""


@dataclass(frozen=True)
class Listing:
    """What one load of the list found: the rows, where the next page starts (browsing),
    how many match in all (browsing), and, for the filters, the namespaces in use and the
    import runs whose memories were not removed (newest first)."""

    query: str
    memory_filter: MemoryFilter
    rows: tuple[MemoryRow, ...]
    next_page: Cursor | None
    total: int | None
    namespaces: tuple[str, ...]
    import_runs: tuple[ImportRunInfo, ...] = ()


def list_memories(hearth: Hearth, query: str, memory_filter: MemoryFilter,
                  search_results: int) -> Listing:
    """The first page newest first (no ``query``), or the best ``search_results`` hybrid
    recall finds for ``query``, under ``memory_filter`` (which may name an import run:
    what that run added)."""
    storage = hearth.storage
    namespaces = tuple(memory_browse.namespaces(storage))
    runs = tuple(run for run in batches.runs(storage) if run.undone_at is None)
    if query:
        rows = memory_browse.search(storage, hearth.recall, query, memory_filter,
                                    search_results)
        return Listing(query, memory_filter, tuple(rows), None, None, namespaces, runs)
    page = memory_browse.browse(storage, memory_filter)
    total = memory_browse.count(storage, memory_filter)
    return Listing(query, memory_filter, tuple(page.rows), page.next, total, namespaces,
                   runs)


def more_memories(hearth: Hearth, memory_filter: MemoryFilter, after: Cursor) -> Page:
    """The page of the list after ``after``."""
    return memory_browse.browse(hearth.storage, memory_filter, after)


def read_memory(hearth: Hearth, memory_id: int) -> MemoryDetail:
    """One memory's provenance, edges and supersede chain."""
    return memory_detail.memory_detail(hearth.storage, memory_id)


def invalidate(hearth: Hearth, memory_id: int, reason: str) -> Changes:
    """Mark a memory wrong: kept, but no longer recalled."""
    hearth.memories.invalidate(memory_id, reason)
    return MEMORIES


def restore(hearth: Hearth, memory_id: int) -> Changes:
    """Make an invalidated or replaced memory valid again."""
    hearth.memories.restore(memory_id)
    return MEMORIES


def pin(hearth: Hearth, memory_id: int) -> Changes:
    """Keep a memory always in mind (the core tier)."""
    hearth.memories.set_tier(memory_id, MemoryTier.CORE.value)
    return MEMORIES


@dataclass(frozen=True)
class DeletedMemories:
    """A delete of memories that can be undone, and where their words still are (an
    imported chat keeps the message a turn memory was made of)."""

    item: DeletedItem
    words_left: tuple[PlaceInPreview, ...]


def delete(hearth: Hearth, memory_ids: list[int]) -> Done[DeletedMemories]:
    """Delete the memories alone, with their links; it can be brought back until its undo
    ends (``core.operations.deleted.restore``). Says where their words still are."""
    left = hearth.forgetting.preview_memories(memory_ids).places
    return Done(DeletedMemories(hearth.deleted.delete_memories(memory_ids), left),
                changes_of(MEMORIES_KIND))


def preview_erase(hearth: Hearth, memory_ids: list[int]) -> MemoriesPreview:
    """Every other place that holds the memories' words, with the words around them."""
    return hearth.forgetting.preview_memories(memory_ids)


def erase(hearth: Hearth, memory_ids: list[int], skip: Iterable[str] = (),
          include: Iterable[str] = ()) -> Done[MemoriesDeleted]:
    """Erase memories for good, with their words in the places not left (``skip``; the
    unticked ones not in ``include``); the result can also remove them from the backups."""
    return Done(hearth.forgetting.erase_memories(memory_ids, skip=skip, include=include),
                ERASE_CHANGES)


# --- the memory map ----------------------------------------------------------------------------


def memory_map(hearth: Hearth, limit: int, valid_only: bool) -> GraphSnapshot:
    """The ``limit`` most important memories and the links between them."""
    return graph.load_graph(hearth.storage, limit=limit, valid_only=valid_only)


def map_node(hearth: Hearth, memory_id: int) -> NodeDetails:
    """One memory of the map, with its neighbours."""
    return graph.node_details(hearth.storage, memory_id)


def recalled_ids(hearth: Hearth, text: str, k: int, valid_only: bool) -> tuple[int, ...]:
    """The (at most ``k``) memories hybrid recall finds for ``text``, best first (no graph
    expansion: the map draws the links itself). ``valid_only`` False searches every
    state."""
    filters = SearchFilters(valid_only=True if valid_only else None)
    found = search_recall(hearth.recall, text, k, filters, kinds=MEMORIES_ONLY, graph=0)
    return tuple(result.id for result in found)


# --- the stats ---------------------------------------------------------------------------------


def memory_stats(hearth: Hearth) -> Stats:
    """Everything the Stats view plots: memories over time, facts per category, and how
    strength and freshness are spread (they move with facts and memories)."""
    return stats.stats(hearth.storage)
