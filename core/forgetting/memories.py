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
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core.embedding import Embedder
from core.errors import InvalidInputError, NotFoundError
from core.forgetting import imported
from core.forgetting.database import (
    Found,
    Redactor,
    apply,
    embed_plans,
    find,
    plan_reembedding,
    store_current,
)
from core.forgetting.deleted_rows import (
    deleted_memories,
    deleted_memories_tokens,
    drop_deleted_memories,
)
from core.forgetting.matching import ValueMatcher, is_distinctive
from core.forgetting.places import PLACES, Place
from core.forgetting.preview import PlaceInPreview, describe
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
    memories are found by their text, since a number may have been given again since.
    ``said`` are their words as looked for elsewhere (``said_texts``); ``everywhere``: the
    person erased them everywhere, so the copy loses them in every place too, not only in
    Hearth's own records of them (an import's removal)."""

    texts: tuple[str, ...]
    said: tuple[str, ...] = ()
    everywhere: bool = False

    @cached_property
    def matcher(self) -> ValueMatcher:
        return ValueMatcher((*self.texts, *self.said))

    @property
    def _places(self) -> tuple[Place, ...]:
        return PLACES if self.everywhere else TRACES

    def erase(self, storage: StoragePort) -> None:
        with storage.write() as session:
            _delete(session, _ids_of(session, self.texts), self.matcher, self._places)

    def held_in(self, session: Session) -> bool:
        matcher = self.matcher
        return bool(_ids_of(session, self.texts)) or bool(
            find(session, Redactor(matcher, matcher), self._places))


@dataclass(frozen=True)
class MemoriesErased:
    """What ``erase_memories`` did: the memories deleted, the places rewritten per place
    label, and ``left``: every other place that still holds their words (unticked by the
    person, or outside what this delete rewrites). ``erasure`` holds the deleted texts, in
    memory only, for the file check and the backups."""

    deleted: int
    places: Counter[str]
    erasure: MemoriesErasure
    left: tuple[PlaceInPreview, ...] = ()
    redactor_matcher: ValueMatcher = ValueMatcher(())
    """The words looked for (as said, not only as stored): what the file check and the
    logs look for."""


@dataclass(frozen=True)
class WordsFound:
    """Where the words of some memories are, besides the memories themselves."""

    texts: tuple[str, ...]
    """The memories' texts, whole (how backups find the rows)."""
    said: tuple[str, ...]
    """Their words as looked for elsewhere (``said_texts``)."""
    redactor: Redactor
    found: tuple[Found, ...]
    places: tuple[PlaceInPreview, ...]


def said_texts(rows: Sequence[tuple[str, Any]]) -> list[str]:
    """What to look for of each memory ``(content, origin)``: its text, and for an imported
    turn ("user: …") the words as they were said, which is how its chat message keeps
    them. A text too short or too common to tell apart is left out (``is_distinctive``)."""
    texts: list[str] = []
    for content, origin in rows:
        speaker = origin.get("speaker") if isinstance(origin, dict) else None
        said = content.removeprefix(f"{speaker}: ") if isinstance(speaker, str) else content
        texts.extend(text for text in dict.fromkeys((content, said)) if is_distinctive(text))
    return texts


def words_found(session: Session, memory_ids: Sequence[int]) -> WordsFound:
    """The places that hold the words of the memories ``memory_ids`` (their own rows and a
    recently deleted copy of them are not listed). NotFoundError names missing ones."""
    wanted = sorted(set(memory_ids))
    if not wanted:
        raise InvalidInputError("No memory was named.",
                                "Give the numbers of the memories, e.g. 12 15.")
    stored = {row.id: (row.content, row.origin) for chunk in batched(wanted, 500)
              for row in session.execute(select(Memory.id, Memory.content, Memory.origin)
                                         .where(Memory.id.in_(chunk)))}
    stored |= deleted_memories(session, [i for i in wanted if i not in stored])
    missing = [memory_id for memory_id in wanted if memory_id not in stored]
    if missing:
        listed = ", ".join(f"#{memory_id}" for memory_id in missing[:10])
        raise NotFoundError(f"There is no memory {listed}.",
                            "It may have been deleted already; nothing was changed.")
    said = tuple(said_texts(list(stored.values())))
    matcher = ValueMatcher(said)
    redactor = Redactor(matcher, matcher)
    own = {f"memories:{memory_id}" for memory_id in wanted}
    own |= deleted_memories_tokens(session, wanted)
    found = tuple(item for item in find(session, redactor) if item.token not in own)
    return WordsFound(tuple(dict.fromkeys(content for content, _ in stored.values())), said,
                      redactor, found, describe(session, found, redactor))


def erase_memories(storage: StoragePort, memory_ids: Sequence[int], *,
                   skip: frozenset[str] | None = None,
                   embedder: Embedder | None = None) -> MemoriesErased:
    """Delete the memories ``memory_ids`` and rewrite their words, all in one transaction
    (see the module docstring). ``skip`` (``Found.token``) names the places left as they
    are: None for the import's undo, which rewrites Hearth's own records of them
    (``TRACES``) and leaves the person's material. All or nothing: an unknown id raises
    ``NotFoundError`` and nothing is deleted. With ``embedder`` the rewritten rows get
    vectors of their new text."""
    with storage.read() as session:
        words = words_found(session, memory_ids)
        chosen = [item for item in words.found
                  if (item.place in TRACES if skip is None else item.token not in skip)]
        plans = plan_reembedding(session, words.redactor, chosen) if embedder else []
    embedded = embed_plans(embedder, plans) if embedder is not None and plans else []
    wanted = sorted(set(memory_ids))
    with storage.write() as session:
        for chunk in batched(wanted, 500):
            imported.record(session, session.scalars(select(Memory.external_id)
                                                     .where(Memory.id.in_(chunk))))
            session.execute(delete(Memory).where(Memory.id.in_(chunk)))
        drop_deleted_memories(session, wanted)
        tokens = {item.token for item in chosen}
        again = [item for item in find(session, words.redactor)
                 if item.token in tokens]  # as they are now, inside the transaction
        places = apply(session, again)
        if embedder is not None:
            store_current(storage, session, plans, embedded, embedder.model_id)
        session.add(AuditEntry(
            action=AUDIT_ACTION, actor="user",
            arguments={"ids": wanted[:MAX_IDS_AUDITED], "count": len(wanted)},
            result_summary=f"deleted {len(wanted)}; redacted {sum(places.values())} places"))
    left = tuple(place for place in words.places if place.token not in tokens)
    erasure = MemoriesErasure(words.texts, words.said, everywhere=skip is not None)
    return MemoriesErased(len(wanted), places, erasure, left, words.redactor.everywhere)


def _delete(session: Session, ids: Sequence[int], matcher: ValueMatcher,
            places: Sequence[Place]) -> Counter[str]:
    """Delete the memory rows ``ids`` (recording the imported ones as forgotten) and
    replace their words in ``places`` (a backup's copy of the delete or erase)."""
    for chunk in batched(list(ids), 500):
        imported.record(session, session.scalars(select(Memory.external_id)
                                                 .where(Memory.id.in_(chunk))))
        session.execute(delete(Memory).where(Memory.id.in_(chunk)))
    return apply(session, find(session, Redactor(matcher, matcher), places))


def _ids_of(session: Session, texts: Sequence[str]) -> list[int]:
    return [memory_id for chunk in batched(list(texts), 500)
            for memory_id in session.scalars(select(Memory.id).where(Memory.content.in_(chunk)))]
