"""What tests that run on every storage backend need to reach an adapter's own kind."""

from __future__ import annotations

from core.storage.port import SearchIndex, StoragePort


def search_index(storage: StoragePort, **options: int) -> SearchIndex:
    """Another search index over the same database, of the adapter's own kind, with planner
    ``options`` (``exact_max_rows``, ``shortlist_factor``, ``min_shortlist``): how a test
    forces the quantised (SQLite) or HNSW (PostgreSQL) path on small data."""
    return type(storage.search)(storage.engine, **options)  # type: ignore[attr-defined]
