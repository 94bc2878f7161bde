"""The plain searches Hearth's ranking is measured against, on the same stored index.

Both read the candidates straight from the storage port's ``SearchIndex`` (the same FTS5
table and the same stored vectors recall uses), so the difference to Hearth's row is what
its ranking adds (fusion by scores, context, cues, recency, strength, tiers):

* **plain BM25**: FTS5's ``bm25()`` order of the full-text matches, nothing else;
* **plain RRF**: the BM25 and cosine candidates (50 each), fused by reciprocal rank
  (k = 60), nothing else.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from sqlalchemy import select

from core.app import Hearth
from core.storage.orm import Memory
from core.storage.port import IndexedKind, SearchFilters

CANDIDATES = 50
RRF_K = 60


def plain_bm25(hearth: Hearth, text: str, scope: SearchFilters, limit: int) -> list[int]:
    """The memory ids FTS5's BM25 ranks first for ``text`` within ``scope``."""
    with hearth.storage.read() as session:
        hits = hearth.storage.search.text_search(session, IndexedKind.MEMORY, text, scope,
                                                 limit)
    return [hit.id for hit in hits]


def plain_rrf(hearth: Hearth, text: str, scope: SearchFilters, limit: int) -> list[int]:
    """The memory ids a reciprocal-rank fusion of BM25 and cosine ranks first."""
    index = hearth.storage.search
    vector = hearth.embedder.embed_query(text)
    with hearth.storage.read() as session:
        lists = (index.text_search(session, IndexedKind.MEMORY, text, scope, CANDIDATES),
                 index.vector_search(session, IndexedKind.MEMORY, vector, scope, CANDIDATES))
    fused: dict[int, float] = defaultdict(float)
    for hits in lists:
        for hit in hits:
            fused[hit.id] += 1.0 / (RRF_K + hit.rank)
    return sorted(fused, key=lambda row_id: -fused[row_id])[:limit]


def origins(hearth: Hearth, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
    """Each memory's ``origin`` (an imported turn's conversation, session and turn ids)."""
    wanted = list(ids)
    if not wanted:
        return {}
    with hearth.storage.read() as session:
        rows = session.execute(select(Memory.id, Memory.origin)
                               .where(Memory.id.in_(wanted))).all()
    return {row_id: origin or {} for row_id, origin in rows}
