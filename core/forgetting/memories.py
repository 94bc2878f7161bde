"""A user's delete of memories: the rows, and every trace of their words Hearth derived.

Why this is not ``MemoryService.invalidate``: invalidating keeps a wrong memory (it can be
restored); a delete is the user's "this must not be kept". In one write transaction
``erase_memories``:

* deletes the memory rows: their full-text entries and vectors (and long texts' windows)
  go by trigger, their links to other memories by foreign key (``ON DELETE CASCADE``), and
  a memory they had replaced stops pointing at them (``ON DELETE SET NULL``: it is shown as
  valid again, since what replaced it is gone);
* replaces a verbatim copy of a deleted memory's text by ``[forgotten]`` in the records
  Hearth derived it from or wrote about it (``TRACES``: the candidate event it came from,
  the dream's audit entry naming it, a run's record). Chats, notes, facts and other
  memories are the user's own material and are left as they are: deleting a memory is
  not a forget of the conversation it came from (``hearth facts forget`` is);
* records the delete in the audit log by ids and count, never by text;
* keeps a one-way hash of each imported memory's external id (``core.forgetting.imported``),
  so importing the same export, transcript or note again does not bring it back.

The caller then makes the bytes go from the files (``service.erase_from_files``) and, when
the user asks, from the backups taken before (``MemoriesErasure``, for
``core.forgetting.backups``: the same delete, in a copy).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core.errors import InvalidInputError, NotFoundError
from core.forgetting import imported
from core.forgetting.database import Redactor, apply, find
from core.forgetting.matching import ValueMatcher
from core.forgetting.places import PLACES
from core.storage.orm import AuditEntry, Memory
from core.storage.port import StoragePort, batched

TRACES = tuple(place for place in PLACES
               if place.table in ("context_events", "audit_log", "runs"))
"""Places whose copies of a deleted memory's words are Hearth's own bookkeeping about it."""
AUDIT_ACTION = "memory.delete"
MAX_IDS_AUDITED = 50


@dataclass(frozen=True)
class MemoriesErasure:
    """Deleted memories as a backup taken before must lose them too
    (``core.forgetting.backups.CopyErasure``): their texts, in memory only. In a copy the
    memories are found by their text, since a number may have been given again since."""

    texts: tuple[str, ...]

    @cached_property
    def matcher(self) -> ValueMatcher:
        return ValueMatcher(self.texts)

    def erase(self, storage: StoragePort) -> None:
        with storage.write() as session:
            _delete(session, _ids_of(session, self.texts), self.matcher)

    def held_in(self, session: Session) -> bool:
        matcher = self.matcher
        return bool(_ids_of(session, self.texts)) or bool(
            find(session, Redactor(matcher, matcher), TRACES))


@dataclass(frozen=True)
class MemoriesErased:
    """What ``erase_memories`` did: the memories deleted, and the traces redacted per place
    label. ``erasure`` holds the deleted texts, in memory only, for the file check and the
    backups."""

    deleted: int
    places: Counter[str]
    erasure: MemoriesErasure


def erase_memories(storage: StoragePort, memory_ids: Sequence[int]) -> MemoriesErased:
    """Delete the memories ``memory_ids`` and redact their traces, all in one transaction
    (see the module docstring). All or nothing: an unknown id raises ``NotFoundError`` and
    nothing is deleted."""
    wanted = sorted(set(memory_ids))
    if not wanted:
        raise InvalidInputError("No memory was named to delete.",
                                "Give the numbers of the memories, e.g. 12 15.")
    with storage.write() as session:
        contents = {row.id: row.content for chunk in batched(wanted, 500)
                    for row in session.execute(select(Memory.id, Memory.content)
                                               .where(Memory.id.in_(chunk)))}
        missing = [memory_id for memory_id in wanted if memory_id not in contents]
        if missing:
            listed = ", ".join(f"#{memory_id}" for memory_id in missing[:10])
            raise NotFoundError(f"There is no memory {listed}.",
                                "It may have been deleted already; nothing was deleted.")
        erasure = MemoriesErasure(tuple(dict.fromkeys(contents.values())))
        places = _delete(session, wanted, erasure.matcher)
        session.add(AuditEntry(
            action=AUDIT_ACTION, actor="user",
            arguments={"ids": wanted[:MAX_IDS_AUDITED], "count": len(wanted)},
            result_summary=f"deleted {len(wanted)}; redacted {sum(places.values())} places"))
    return MemoriesErased(len(wanted), places, erasure)


def _delete(session: Session, ids: Sequence[int], matcher: ValueMatcher) -> Counter[str]:
    """Delete the memory rows ``ids`` (recording the imported ones as forgotten) and
    replace their words in ``TRACES``."""
    for chunk in batched(list(ids), 500):
        imported.record(session, session.scalars(select(Memory.external_id)
                                                 .where(Memory.id.in_(chunk))))
        session.execute(delete(Memory).where(Memory.id.in_(chunk)))
    return apply(session, find(session, Redactor(matcher, matcher), TRACES))


def _ids_of(session: Session, texts: Sequence[str]) -> list[int]:
    return [memory_id for chunk in batched(list(texts), 500)
            for memory_id in session.scalars(select(Memory.id).where(Memory.content.in_(chunk)))]
