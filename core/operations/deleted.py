"""Entries the user deleted and can still bring back (``core.forgetting.recently_deleted``).

A fact, memories or a note deleted by the person go from everything at once and wait here
until their undo ends; ``restore`` puts one back. Results are plain frozen data."""

from __future__ import annotations

from core.app import Hearth
from core.forgetting.recently_deleted import FACT, MEMORIES, NOTE, DeletedItem, Restored
from core.operations.changes import Changes, Domain
from core.operations.done import Done

__all__ = ["DeletedItem", "Restored", "changes_of", "recently_deleted", "restore"]

_DOMAINS = {FACT: Changes.of(Domain.FACTS, Domain.CHATS), MEMORIES: Changes.of(Domain.MEMORIES),
            NOTE: Changes.of(Domain.NOTES)}
"""A fact's delete or return also moves the chats' "Remembered: …" lines."""


def changes_of(kind: str) -> Changes:
    """What deleting or bringing back an entry of ``kind`` changes."""
    return _DOMAINS[kind]


def recently_deleted(hearth: Hearth) -> tuple[DeletedItem, ...]:
    """What can still be brought back, newest first."""
    return tuple(hearth.deleted.listed())


def restore(hearth: Hearth, entry_id: int) -> Done[Restored]:
    """Bring the entry back (``NotFoundError`` once its undo has ended)."""
    restored = hearth.deleted.restore(entry_id)
    return Done(restored, changes_of(restored.kind))
