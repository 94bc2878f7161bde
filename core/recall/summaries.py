"""Archival summaries as a way into their originals.

The dream's merge stage folds stale, similar memories into one archival summary and moves
the originals to the source tier, linked from the summary by ``summary_of`` edges. In recall
a summary is a way into its originals, not a rival to them: when a summary matches a
question, its originals among the candidates rise in proportion to their own match, the
best-matching one to ``recall_summary_share`` of the summary's relevance (if that is more
than its own) and the others by the same factor, and the summary itself is listed after the
head (``core.recall.service``), unless the question's filters ask for the archival tier.
Lifting every original to the same level, as first built, let "Enjoy your walk with Bruno!"
tie with the turn naming Bruno's dog school once a summary about Bruno matched, and after a
year of dreams cost the hard set an answer. Originals that did not match are not pulled in:
expanding hits by their neighbours in a similarity graph measured worse, not better. So
consolidation can only add ways to reach a memory: measured on imported conversations,
summaries ranked as rivals took head places from the very turns they summarise (recall@10
0.900 → 0.890 after one dream).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from core.storage.orm import MemoryEdge
from core.storage.port import batched

SUMMARY_EDGE = "summary_of"


_ORIGINALS = select(MemoryEdge.from_id, MemoryEdge.to_id).where(
    MemoryEdge.kind == SUMMARY_EDGE, MemoryEdge.from_id.in_(bindparam("ids", expanding=True)))
"""Built once and run on the session's connection, as recall's hydration is (it runs on
every recall, with ~100 candidate ids)."""


def originals_of(session: Session, summary_ids: Iterable[int]) -> dict[int, list[int]]:
    """``summary id -> its originals' ids`` (summaries without originals are absent)."""
    found: dict[int, list[int]] = {}
    connection = session.connection()
    for chunk in batched(sorted(set(summary_ids)), 500):
        for edge in connection.execute(_ORIGINALS, {"ids": list(chunk)}):
            found.setdefault(edge.from_id, []).append(edge.to_id)
    return found
