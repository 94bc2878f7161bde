"""An import run as one batch: listed, and removable as a whole.

Each ``hearth import`` run (ChatGPT, Claude, transcript, notes) opens an ``import_runs``
row (``run``) and names it in the ``origin`` of every memory it adds
(``origin.import_batch``); when it ends, however it ends, the run counts what it added
from those memories, so a run cancelled part-way still counts what it committed, and
records how it ended (``outcome``): ``finished``, ``cancelled`` (the user stopped it:
``EmbeddingCancelled``), ``interrupted`` (Ctrl-C: ``KeyboardInterrupt``) or ``failed``
(anything else), so a stopped run is never listed as done. ``runs``
lists them for ``hearth imports`` and the window; ``memories_of`` gives the memories a run
added, which ``core.operations.imports.undo_import`` deletes through the forget machinery
(audited, and recorded as forgotten so that importing the same file again leaves them out),
after ``remove_turns`` took their raw records: the imported exchanges, and the imported
chats left empty, so the chat list does not keep what the user removed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.sql.elements import ColumnElement

from core.embedding import EmbeddingCancelled
from core.errors import NotFoundError
from core.forgetting import imported
from core.storage.affected import affected
from core.storage.orm import AuditEntry, ChatSession, ImportRun, Interaction, Memory, utcnow
from core.storage.port import IMPORTED_SOURCE, StoragePort, batched
from core.storage.sql import import_batch_of, of_import_batch

BATCH_KEY = "import_batch"
FINISHED, CANCELLED, INTERRUPTED, FAILED = "finished", "cancelled", "interrupted", "failed"


@dataclass(frozen=True)
class ImportRunInfo:
    """One import run, as plain data: ``added`` memories when it ended, ``present`` of
    them still kept now; ``outcome`` how it ended (None while it runs, or if its process
    was killed)."""

    id: int
    source: str
    started_at: datetime
    finished_at: datetime | None
    added: int
    present: int
    undone_at: datetime | None
    outcome: str | None = None


def with_batch(origin: Mapping[str, Any], batch: int | None) -> dict[str, Any]:
    """``origin`` naming the import run ``batch`` (unchanged without one)."""
    return dict(origin) if batch is None else {**origin, BATCH_KEY: batch}


def _of_batch(batch: int) -> ColumnElement[bool]:
    """The memories the run ``batch`` added, on the expression index of
    ``origin.import_batch`` (``core.storage.sql.of_import_batch``)."""
    return of_import_batch(Memory.origin, batch)


@contextmanager
def run(storage: StoragePort, source: str) -> Iterator[int]:
    """An import run from ``source``: recorded before it writes (its id is yielded, for the
    memories' ``origin``), and, when it ends, with how it ended and how many memories it
    added."""
    with storage.write() as session:
        row = ImportRun(source=source, started_at=utcnow(), added=0)
        session.add(row)
        session.flush()
        batch = row.id
    outcome = FAILED
    try:
        yield batch
        outcome = FINISHED
    except EmbeddingCancelled:
        outcome = CANCELLED
        raise
    except KeyboardInterrupt:
        outcome = INTERRUPTED
        raise
    finally:
        with storage.write() as session:
            ended = session.get(ImportRun, batch)
            if ended is not None:
                ended.added = session.scalar(select(func.count()).select_from(Memory)
                                        .where(_of_batch(batch))) or 0
                ended.finished_at = utcnow()
                ended.outcome = outcome


def runs(storage: StoragePort) -> list[ImportRunInfo]:
    """Every import run, newest first."""
    with storage.read() as session:
        batch = import_batch_of(Memory.origin)
        counted = select(batch, func.count()).select_from(Memory).where(
            batch.is_not(None)).group_by(batch)
        present = {row[0]: row[1] for row in session.execute(counted)}
        return [ImportRunInfo(run.id, run.source, run.started_at, run.finished_at, run.added,
                              present.get(run.id, 0), run.undone_at, run.outcome)
                for run in session.scalars(select(ImportRun).order_by(ImportRun.id.desc()))]


def memories_of(storage: StoragePort, batch: int) -> list[int]:
    """The memories the run ``batch`` added that are still kept; NotFoundError if there
    is no such run."""
    with storage.read() as session:
        if session.get(ImportRun, batch) is None:
            raise NotFoundError(f"There is no import run {batch}.",
                                "See the runs with `hearth imports`.")
        return list(session.scalars(select(Memory.id).where(_of_batch(batch))
                                    .order_by(Memory.id)))


def mark_undone(storage: StoragePort, batch: int) -> None:
    """Record that what the run ``batch`` added was removed."""
    with storage.write() as session:
        run = session.get(ImportRun, batch)
        if run is not None:
            run.undone_at = utcnow()


def remove_turns(storage: StoragePort, batch: int, memory_ids: list[int]) -> tuple[int, int]:
    """Delete, in one transaction, the imported exchanges the memories ``memory_ids`` of the
    run ``batch`` were made from (recorded as forgotten, like the memories) and the imported
    chats that have none left; audited by counts. Returns (exchanges, chats) deleted."""
    with storage.write() as session:
        keys: set[str] = set()
        chats: set[str] = set()
        for chunk in batched(memory_ids, 500):
            for key, chat in session.execute(select(Memory.external_id, Memory.session_id)
                                             .where(Memory.id.in_(chunk))):
                if key:
                    keys.add(key)
                if chat:
                    chats.add(chat)
        imported.record(session, keys)
        exchanges = 0
        for part in batched(sorted(keys), 500):
            exchanges += affected(session.execute(delete(Interaction).where(
                Interaction.external_id.in_(part), Interaction.channel == "import"))) or 0
        emptied = [chat for chat in sorted(chats) if session.scalar(
            select(func.count()).select_from(Interaction)
            .where(Interaction.session_id == chat)) == 0]
        for part in batched(emptied, 500):
            session.execute(delete(ChatSession).where(ChatSession.id.in_(part),
                                                      ChatSession.source == IMPORTED_SOURCE))
        session.add(AuditEntry(action="import.undo", actor="user",
                               arguments={"run": batch, "memories": len(memory_ids)},
                               result_summary=f"deleted {exchanges} imported exchanges, "
                                              f"{len(emptied)} imported chats"))
    return exchanges, len(emptied)
