"""Reading a recently deleted entry's rows (``core.forgetting.recently_deleted``) where an
erase needs them.

A person may delete a fact or a memory and then decide its words must go from everywhere:
within the undo window the entry is still kept, so the erase finds its values there, erases
them elsewhere, and removes the entry itself rather than leaving a rewritten copy to be
brought back. Entries are few (a window of minutes), so they are read whole.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.storage.orm import DeletedEntry

FACT_KIND, MEMORIES_KIND = "fact", "memories"


def _entries(session: Session, kind: str) -> list[DeletedEntry]:
    return list(session.scalars(select(DeletedEntry).where(DeletedEntry.kind == kind)))


def _fact_entries(session: Session, key: str) -> list[DeletedEntry]:
    return [entry for entry in _entries(session, FACT_KIND)
            if entry.rows.get("user_facts", [{}])[0].get("key") == key]


def deleted_fact_values(session: Session, key: str) -> list[str]:
    """The values the deleted fact ``key`` had (current first), if it waits in an entry."""
    values: list[str] = []
    for entry in _fact_entries(session, key):
        rows = entry.rows
        values += [str(row["value"]) for table in ("user_facts", "fact_history")
                   for row in rows.get(table, []) if row.get("value") is not None]
    return values


def deleted_fact_tokens(session: Session, key: str) -> set[str]:
    """The entries holding the deleted fact ``key`` (as ``Found.token``: its own rows)."""
    return {f"deleted_entries:{entry.id}" for entry in _fact_entries(session, key)}


def drop_deleted_fact(session: Session, key: str) -> None:
    """Remove the entries holding the deleted fact ``key``: it is being erased."""
    for entry in _fact_entries(session, key):
        session.delete(entry)


def deleted_memories(session: Session, memory_ids: Sequence[int]
                     ) -> dict[int, tuple[str, Any]]:
    """``(content, origin)`` of those of ``memory_ids`` that wait in an entry."""
    wanted = set(memory_ids)
    return {int(row["id"]): (str(row.get("content", "")), row.get("origin"))
            for entry in _entries(session, MEMORIES_KIND)
            for row in entry.rows.get("memories", []) if int(row["id"]) in wanted}


def deleted_memories_tokens(session: Session, memory_ids: Sequence[int]) -> set[str]:
    """The entries holding one of the deleted memories ``memory_ids`` (``Found.token``)."""
    wanted = set(memory_ids)
    return {f"deleted_entries:{entry.id}" for entry in _entries(session, MEMORIES_KIND)
            if any(int(row["id"]) in wanted for row in entry.rows.get("memories", []))}


def drop_deleted_memories(session: Session, memory_ids: Sequence[int]) -> None:
    """Take the memories ``memory_ids`` out of their entries (an entry left empty goes):
    they are being erased."""
    wanted = set(memory_ids)
    for entry in _entries(session, MEMORIES_KIND):
        rows = entry.rows
        kept = [row for row in rows.get("memories", []) if int(row["id"]) not in wanted]
        if not kept:
            session.delete(entry)
        elif len(kept) != len(rows.get("memories", [])):
            entry.rows = {**rows, "memories": kept}
