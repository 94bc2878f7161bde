"""Search: the one recall behind every place a person or a program searches Hearth's memory.

``hearth search`` (and ``--batch``), MCP's ``search_memory`` and the window's searches (the
Memories list, the memory map's rings) all call ``search``, so what they search and how
they rank it cannot drift apart:

* **at most k results.** Recall appends rows after its head of k (archival summaries that
  matched, rows a type + time question names, memories one link away: step 7 of
  ``core.recall.service``): the chat's context takes them within its token budget, but a
  ``--k`` or a ``limit`` is a promise to a script or an agent. A search keeps the head
  and fills the places the head left empty from those additions, in recall's order: a
  dream that linked or summarised memories never turns 5 results into 8.
* **memories and notes**, ranked together, for the command as for an agent; memories
  alone when a filter only memories have is set (type, tier, namespace, category: a note
  has none of them, and ``SearchFilters`` would let every note through such a filter), or
  when the caller searches memories only (the Memories list).
* **at a moment**, when asked: ``as_of`` (``hearth search --as-of``, ``--batch`` lines,
  ``search_memory``'s ``as_of``) leaves out what was created after it and counts recency
  and the question's dates from it (``core.recall.as_of``).
"""

from __future__ import annotations

from datetime import datetime

from core.recall.service import RecallQuery, RecallResult, RecallService
from core.storage.port import IndexedKind, SearchFilters

SEARCHED_KINDS = (IndexedKind.MEMORY, IndexedKind.NOTE)
MEMORIES_ONLY = (IndexedKind.MEMORY,)
GRAPH_RESULTS = RecallQuery.graph
"""Recall's default: memories found along graph edges may fill the places left."""


def searched_kinds(filters: SearchFilters) -> tuple[IndexedKind, ...]:
    """Memories and notes, or memories alone under a filter that only memories have."""
    if filters.memory_types or filters.tiers or filters.namespaces or filters.categories:
        return MEMORIES_ONLY
    return SEARCHED_KINDS


def search(recall: RecallService, text: str, k: int, filters: SearchFilters | None = None,
           *, kinds: tuple[IndexedKind, ...] | None = None,
           graph: int = GRAPH_RESULTS, as_of: datetime | None = None) -> list[RecallResult]:
    """The best ``k`` results for ``text`` (fewer when fewer match), best first.

    ``kinds`` defaults to ``searched_kinds(filters)``; ``graph`` 0 leaves out memories
    found only along an edge (the memory map draws its links itself); ``as_of`` asks the
    question at that moment (``core.recall.as_of``: nothing newer, recency from then)."""
    filters = filters if filters is not None else SearchFilters()
    query = RecallQuery(text=text, k=k, kinds=kinds or searched_kinds(filters),
                        filters=filters, graph=graph, as_of=as_of)
    return recall.recall(query)[:k]
