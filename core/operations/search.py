"""Searching what Hearth knows, as ``hearth search`` and an agent's ``search_memory`` ask:
hybrid recall (full text and vectors) over memories and notes, now or as of a moment
(``core.recall``; the moment's text is read by ``core.recall.as_of``).

A result comes back as recall's own frozen ``RecallResult``: its score, the signals that
found it and where it came from; the filters are the storage port's ``SearchFilters``,
plain values."""

from __future__ import annotations

from datetime import datetime

from core.app import Hearth
from core.recall import RecallResult
from core.recall.as_of import as_of as moment_of
from core.recall.search import search as run_search
from core.storage.port import SearchFilters

__all__ = ["RecallResult", "SearchFilters", "moment_of", "search"]


def search(hearth: Hearth, query: str, k: int, filters: SearchFilters, *,
           as_of: datetime | None = None) -> tuple[RecallResult, ...]:
    """The best ``k`` results for ``query`` under ``filters``, best first; with ``as_of``,
    as the question would have been answered then (nothing newer is found, recency and
    dates count from it)."""
    return tuple(run_search(hearth.recall, query, k, filters, as_of=as_of))
