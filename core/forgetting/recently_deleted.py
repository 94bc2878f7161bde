"""Deleting one entry (a fact, some memories, a note), with an undo for a while.

A person who deletes a wrong fact wants that row gone and nothing else touched: the
sentence they wrote, the chat's title and the other facts stay as they are (erasing words
from everywhere is ``ForgetService``, a different act). And a delete is a click that can
be a mistake, so it can be undone for ``UNDO_WINDOW``.

In one write transaction a delete moves the entry's rows out of their tables into one
``deleted_entries`` row (``rows``: each row as it was, per table), so nothing reads them
any more: recall, the system prompt, the views and agents see them gone at once, and the
full-text and vector entries go by trigger as for any delete. The entry is purged at
``purge_after`` (``purge_expired``: at every open, every delete and by the scheduler), and
then it is gone for good; while it waits it is one of the places a forget searches
(``places.PLACES``), so erasing the same words everywhere reaches it too.

What an entry holds:

* a fact: its row, its earlier values and the ``fact`` events that recorded its learning
  (the chat's "Remembered: …" line reads them);
* memories: their rows, their links to memories that stay, and which memories they had
  replaced (those point at them again after an undo). An imported memory is recorded as
  deleted from its import at once (``core.forgetting.imported``), so importing the same
  file again leaves it out; an undo takes that record back;
* a note: its row.

``restore`` puts the rows back (under their old numbers where those are free), embeds the
restored texts again (their vectors went with the delete), and says what it could not put
back as it was: a fact given a new value since gets the deleted values as its earlier
values, nothing is overwritten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import DateTime, delete, insert, select, update
from sqlalchemy.orm import Session
from sqlalchemy.sql.schema import Table

from core.embedding import Embedder
from core.embedding.reembed import embed_rows
from core.errors import InvalidInputError, NotFoundError
from core.forgetting import imported
from core.forgetting.database import fact_events
from core.knowledge.facts import normalise_key
from core.storage.orm import (
    AuditEntry,
    Base,
    ContextEvent,
    DeletedEntry,
    FactHistory,
    Memory,
    MemoryEdge,
    Note,
    UserFact,
    UTCDateTime,
    utcnow,
)
from core.storage.port import IndexedKind, StoragePort, batched

UNDO_WINDOW = timedelta(minutes=30)
"""How long a deleted entry can be brought back: long enough to notice a wrong click after
the conversation moves on, short enough that "deleted" soon means gone."""

FACT, MEMORIES, NOTE = "fact", "memories", "note"
TITLE_CHARS = 120
"""Of a memory's or note's text in what the undo says."""


@dataclass(frozen=True)
class DeletedItem:
    """One entry that can still be brought back, as a front end shows it."""

    id: int
    kind: str
    title: str
    count: int
    """Facts, memories or notes it holds (one, except for several memories deleted at once)."""
    deleted_at: datetime
    purge_after: datetime


@dataclass(frozen=True)
class Restored:
    """What ``restore`` put back: the kind, what it was called, the rows' numbers now, and
    a sentence when something could not go back exactly as it was."""

    kind: str
    title: str
    ids: tuple[int, ...]
    note: str = ""


class RecentlyDeleted:
    """Delete single entries with an undo; see the module docstring."""

    def __init__(self, storage: StoragePort, embedder: Embedder) -> None:
        self._storage = storage
        self._embedder = embedder

    # --- deleting ------------------------------------------------------------------------

    def delete_fact(self, key: str) -> DeletedItem:
        """Delete the fact ``key``, its earlier values and the records of its learning;
        nothing else changes. NotFoundError if there is no such fact."""
        key = normalise_key(key)
        self.purge_expired()
        with self._storage.write() as session:
            fact = session.scalar(select(UserFact).where(UserFact.key == key))
            if fact is None:
                raise NotFoundError(f"There is no fact called “{key.replace('_', ' ')}”.",
                                    "See the facts with `hearth facts list`.")
            history = list(session.scalars(select(FactHistory)
                                           .where(FactHistory.fact_id == fact.id)))
            events = list(session.scalars(select(ContextEvent).where(fact_events(key))))
            rows = {"user_facts": [_row(fact)], "fact_history": [_row(h) for h in history],
                    "context_events": [_row(e) for e in events]}
            title = f"{key.replace('_', ' ')}: {_clip(fact.value)}"
            session.execute(delete(ContextEvent).where(fact_events(key)))
            session.execute(delete(UserFact).where(UserFact.id == fact.id))
            return self._keep(session, FACT, title, rows, count=1,
                              audited={"key": key})

    def delete_memories(self, memory_ids: Sequence[int]) -> DeletedItem:
        """Delete the memories ``memory_ids`` (all or none: NotFoundError names the missing
        ones); their words elsewhere stay where they are."""
        wanted = sorted(set(memory_ids))
        if not wanted:
            raise InvalidInputError("No memory was named to delete.",
                                    "Give the numbers of the memories, e.g. 12 15.")
        self.purge_expired()
        with self._storage.write() as session:
            found = [row for chunk in batched(wanted, 500) for row in session.scalars(
                select(Memory).where(Memory.id.in_(chunk)).order_by(Memory.id))]
            missing = sorted(set(wanted) - {row.id for row in found})
            if missing:
                listed = ", ".join(f"#{memory_id}" for memory_id in missing[:10])
                raise NotFoundError(f"There is no memory {listed}.",
                                    "It may have been deleted already; nothing was deleted.")
            ids = [row.id for row in found]
            edges = [edge for chunk in batched(ids, 500) for edge in session.scalars(
                select(MemoryEdge).where(MemoryEdge.from_id.in_(chunk)
                                         | MemoryEdge.to_id.in_(chunk)))]
            replaced = [{"id": memory_id, "superseded_by": by}
                        for chunk in batched(ids, 500)
                        for memory_id, by in session.execute(
                            select(Memory.id, Memory.superseded_by)
                            .where(Memory.superseded_by.in_(chunk),
                                   Memory.id.not_in(ids)))]
            rows = {"memories": [_row(row) for row in found],
                    "memory_edges": [_row(edge) for edge in {e.id: e for e in edges}.values()],
                    "replaced": replaced}
            title = (_clip(found[0].content) if len(found) == 1
                     else f"{len(found)} memories")
            imported.record(session, (row.external_id for row in found))
            for chunk in batched(ids, 500):
                session.execute(delete(Memory).where(Memory.id.in_(chunk)))
            return self._keep(session, MEMORIES, title, rows, count=len(found),
                              audited={"ids": ids[:50], "count": len(ids)})

    def delete_note(self, note_id: int) -> DeletedItem:
        """Delete the note ``note_id``; NotFoundError if there is none."""
        self.purge_expired()
        with self._storage.write() as session:
            note = session.get(Note, note_id)
            if note is None:
                raise NotFoundError(f"There is no note #{note_id}.",
                                    "It may have been deleted already.")
            title = _clip(note.title or note.content)
            rows = {"notes": [_row(note)]}
            session.delete(note)
            return self._keep(session, NOTE, title, rows, count=1,
                              audited={"id": note_id})

    def _keep(self, session: Session, kind: str, title: str,
              rows: Mapping[str, list[dict[str, Any]]], *, count: int,
              audited: dict[str, Any]) -> DeletedItem:
        now = utcnow()
        entry = DeletedEntry(kind=kind, title=title, rows=dict(rows), deleted_at=now,
                             purge_after=now + UNDO_WINDOW)
        session.add(entry)
        session.add(AuditEntry(action=f"{kind}.delete_entry", actor="user",
                               arguments={**audited, "kind": kind},
                               result_summary=f"deleted {count}; undo until purged"))
        session.flush()
        return _item(entry)

    # --- listing, undoing, purging -------------------------------------------------------

    def listed(self) -> list[DeletedItem]:
        """The entries that can still be brought back, newest first."""
        self.purge_expired()
        with self._storage.read() as session:
            return [_item(entry) for entry in session.scalars(
                select(DeletedEntry).order_by(DeletedEntry.deleted_at.desc(),
                                              DeletedEntry.id.desc()))]

    def restore(self, entry_id: int) -> Restored:
        """Bring the entry ``entry_id`` back; NotFoundError once its window has ended (it
        was purged) or when there is no such entry."""
        self.purge_expired()
        with self._storage.write() as session:
            entry = session.get(DeletedEntry, entry_id)
            if entry is None:
                raise NotFoundError(
                    "That deleted entry can no longer be brought back.",
                    f"Entries can be undone for {int(UNDO_WINDOW.total_seconds() // 60)} "
                    "minutes after they are deleted; `hearth deleted` lists those that can.")
            putting_back = {FACT: _put_fact_back, MEMORIES: _put_memories_back,
                            NOTE: _put_note_back}[entry.kind]
            restored = putting_back(session, entry.title, entry.rows)
            session.add(AuditEntry(action=f"{entry.kind}.restore_entry", actor="user",
                                   arguments={"entry": entry_id, "ids": list(restored.ids)},
                                   result_summary="restored"))
            session.delete(entry)
        kind = {FACT: IndexedKind.FACT, MEMORIES: IndexedKind.MEMORY, NOTE: IndexedKind.NOTE}
        embed_rows(self._storage, self._embedder, kind[restored.kind], restored.ids)
        return restored

    def purge_expired(self, now: datetime | None = None) -> int:
        """Remove the entries whose undo window has ended (``purge_expired``)."""
        return purge_expired(self._storage, now)


def purge_expired(storage: StoragePort, now: datetime | None = None) -> int:
    """Remove the entries whose undo window has ended; returns how many went. A read
    first, so the common case (nothing due) takes no write lock."""
    moment = now or utcnow()
    with storage.read() as session:
        due = list(session.scalars(select(DeletedEntry.id)
                                   .where(DeletedEntry.purge_after <= moment)))
    if not due:
        return 0
    with storage.write() as session:
        session.execute(delete(DeletedEntry).where(DeletedEntry.id.in_(due),
                                                   DeletedEntry.purge_after <= moment))
    return len(due)


# --- rows as JSON, and back ------------------------------------------------------------------


def _row(row: Base) -> dict[str, Any]:
    """A row's columns as JSON-ready values (times as ISO text)."""
    table: Table = row.__table__  # type: ignore[assignment]  # every mapped class has one
    return {column.name: _plain(getattr(row, column.key)) for column in table.columns}


def _plain(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _revived(table: Table, data: Mapping[str, Any]) -> dict[str, Any]:
    """``_row``'s output for ``table`` as column values again (columns unknown to this
    version are dropped)."""
    values: dict[str, Any] = {}
    for column in table.columns:
        if column.name not in data:
            continue
        value = data[column.name]
        if isinstance(value, str) and isinstance(column.type, (DateTime, UTCDateTime)):
            value = datetime.fromisoformat(value)
        values[column.name] = value
    return values


def _insert(session: Session, table: Table, data: Mapping[str, Any]) -> int:
    """Insert one row under its old id when that is free, else under a new one."""
    values = _revived(table, data)
    if session.scalar(select(table.c.id).where(table.c.id == values.get("id"))) is not None:
        values.pop("id")
    return int(session.execute(insert(table).returning(table.c.id), [values]).scalar_one())


def _exists(session: Session, table: Table, row_id: Any) -> bool:
    return row_id is not None and session.scalar(
        select(table.c.id).where(table.c.id == row_id)) is not None


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= TITLE_CHARS else flat[:TITLE_CHARS - 1] + "…"


def _item(entry: DeletedEntry) -> DeletedItem:
    main = {FACT: "user_facts", MEMORIES: "memories", NOTE: "notes"}[entry.kind]
    return DeletedItem(entry.id, entry.kind, entry.title, len(entry.rows.get(main, [])),
                       entry.deleted_at, entry.purge_after)


# --- putting each kind back ------------------------------------------------------------------


def _put_fact_back(session: Session, title: str,
                   rows: Mapping[str, list[dict[str, Any]]]) -> Restored:
    (fact,) = rows["user_facts"]
    facts: Table = UserFact.__table__  # type: ignore[assignment]
    history: Table = FactHistory.__table__  # type: ignore[assignment]
    events: Table = ContextEvent.__table__  # type: ignore[assignment]
    for event in rows.get("context_events", []):
        _insert(session, events, event)
    current = session.scalar(select(UserFact).where(UserFact.key == fact["key"]))
    if current is None:
        fact_id = _insert(session, facts, fact)
        for earlier in rows.get("fact_history", []):
            _insert(session, history, {**earlier, "fact_id": fact_id})
        return Restored(FACT, title, (fact_id,))
    # a new value was set since: the deleted ones become its earlier values
    deleted = _revived(facts, fact)
    for earlier in rows.get("fact_history", []):
        _insert(session, history, {**earlier, "fact_id": current.id})
    session.add(FactHistory(fact_id=current.id, value=deleted["value"],
                            category=deleted["category"], source=deleted["source"],
                            confidence=deleted["confidence"],
                            valid_from=deleted["created_at"], replaced_at=utcnow()))
    return Restored(FACT, title, (), note=(
        f"“{str(fact['key']).replace('_', ' ')}” has a new value since it was deleted, so "
        "the deleted values were put back as its earlier values."))


def _put_memories_back(session: Session, title: str,
                       rows: Mapping[str, list[dict[str, Any]]]) -> Restored:
    memories: Table = Memory.__table__  # type: ignore[assignment]
    edges: Table = MemoryEdge.__table__  # type: ignore[assignment]
    new_ids: dict[int, int] = {}
    for memory in rows["memories"]:
        values = dict(memory)
        again = session.scalar(select(Memory.id).where(
            Memory.external_id == values.get("external_id"))) if values.get(
            "external_id") else None
        if again is not None:  # imported again meanwhile: that copy stands for it
            new_ids[int(memory["id"])] = again
            continue
        for column, target in (("session_id", "chat_sessions"), ("interaction_id",
                               "interactions"), ("event_id", "context_events"),
                               ("superseded_by", "memories")):
            if not _exists(session, Base.metadata.tables[target], values.get(column)):
                values[column] = None  # what it pointed at is gone since
        new_ids[int(memory["id"])] = _insert(session, memories, values)
    for old_id, new_id in new_ids.items():  # one of them replaced another of them
        session.execute(update(Memory).where(Memory.id.in_(list(new_ids.values())),
                                             Memory.superseded_by == old_id)
                        .values(superseded_by=new_id))
    for edge in rows.get("memory_edges", []):
        ends = [new_ids.get(int(edge[end]), int(edge[end])) for end in ("from_id", "to_id")]
        if all(_exists(session, memories, end) for end in ends):
            values = {**edge, "from_id": ends[0], "to_id": ends[1]}
            if session.scalar(select(edges.c.id).where(
                    edges.c.from_id == ends[0], edges.c.to_id == ends[1],
                    edges.c.kind == edge["kind"])) is None:
                _insert(session, edges, values)
    for pointer in rows.get("replaced", []):
        session.execute(update(Memory).where(Memory.id == pointer["id"],
                                             Memory.superseded_by.is_(None))
                        .values(superseded_by=new_ids[int(pointer["superseded_by"])]))
    imported.take_back(session, (memory.get("external_id") for memory in rows["memories"]))
    return Restored(MEMORIES, title, tuple(new_ids.values()))


def _put_note_back(session: Session, title: str,
                   rows: Mapping[str, list[dict[str, Any]]]) -> Restored:
    notes: Table = Note.__table__  # type: ignore[assignment]
    (note,) = rows["notes"]
    values = dict(note)
    if not _exists(session, Base.metadata.tables["chat_sessions"], values.get("session_id")):
        values["session_id"] = None
    return Restored(NOTE, title, (_insert(session, notes, values),))


