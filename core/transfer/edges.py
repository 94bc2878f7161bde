"""The edges an import adds between the memories it wrote (wikilinks, attachments).

Importing again must not add an edge twice, and an edge can only join memories that exist
(a note or a message may have been left out because the user deleted it), so both importers
look their memories up by external id and insert only the edges that are missing.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from core.storage.orm import Memory, MemoryEdge, utcnow
from core.storage.port import batched
from core.transfer.turns import LOOKUP_BATCH


def memory_ids(session: Session, external_ids: Iterable[str]) -> dict[str, int]:
    """The ids of the memories with these external ids (absent ones are left out)."""
    ids: dict[str, int] = {}
    for chunk in batched(sorted(set(external_ids)), LOOKUP_BATCH):
        for key, memory_id in session.execute(
                select(Memory.external_id, Memory.id).where(Memory.external_id.in_(chunk))):
            assert key is not None  # it matched the IN list
            ids[key] = memory_id
    return ids


def add_missing_edges(session: Session, wanted: set[tuple[int, int]], kind: str) -> int:
    """Insert the ``(from, to)`` edges of ``kind`` that are not there yet; how many."""
    present: set[tuple[int, int]] = set()
    for sources in batched(sorted({source for source, _ in wanted}), LOOKUP_BATCH):
        present.update((source, target) for source, target in session.execute(
            select(MemoryEdge.from_id, MemoryEdge.to_id).where(
                MemoryEdge.kind == kind, MemoryEdge.from_id.in_(sources))))
    missing = sorted(wanted - present)
    if missing:
        session.execute(insert(MemoryEdge), [
            {"from_id": source, "to_id": target, "kind": kind, "weight": 1.0,
             "created_at": utcnow()} for source, target in missing])
    return len(missing)
