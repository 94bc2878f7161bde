"""An import run as one batch: listed, and removable as a whole.

Each ``hearth import`` run (ChatGPT, Claude, transcript, notes) opens an ``import_runs``
row (``run``) and names it in the ``origin`` of every memory it adds
(``origin.import_batch``); when it ends, however it ends, the run counts what it added
from those memories, so a run cancelled part-way still counts what it committed. ``runs``
lists them for ``hearth imports`` and the window; ``memories_of`` gives the memories a run
added, which
``core.operations.imports.undo_import`` deletes through the forget machinery (audited, and
recorded as forgotten so that importing the same file again leaves them out).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select

from core.errors import NotFoundError
from core.storage.orm import ImportRun, Memory, utcnow
from core.storage.port import StoragePort

BATCH_KEY = "import_batch"


@dataclass(frozen=True)
class ImportRunInfo:
    """One import run, as plain data: ``added`` memories when it finished, ``present`` of
    them still kept now."""

    id: int
    source: str
    started_at: datetime
    finished_at: datetime | None
    added: int
    present: int
    undone_at: datetime | None


def with_batch(origin: Mapping[str, Any], batch: int | None) -> dict[str, Any]:
    """``origin`` naming the import run ``batch`` (unchanged without one)."""
    return dict(origin) if batch is None else {**origin, BATCH_KEY: batch}


def _of_batch(batch: int) -> Any:
    return Memory.origin[BATCH_KEY].as_integer() == batch


@contextmanager
def run(storage: StoragePort, source: str) -> Iterator[int]:
    """An import run from ``source``: recorded before it writes (its id is yielded, for the
    memories' ``origin``), and, when it ends, with how many memories it added."""
    with storage.write() as session:
        row = ImportRun(source=source, started_at=utcnow(), added=0)
        session.add(row)
        session.flush()
        batch = row.id
    try:
        yield batch
    finally:
        with storage.write() as session:
            finished = session.get(ImportRun, batch)
            if finished is not None:
                finished.added = session.scalar(select(func.count()).select_from(Memory)
                                           .where(_of_batch(batch))) or 0
                finished.finished_at = utcnow()


def runs(storage: StoragePort) -> list[ImportRunInfo]:
    """Every import run, newest first."""
    with storage.read() as session:
        batch = Memory.origin[BATCH_KEY].as_integer()
        counted = select(batch, func.count()).select_from(Memory).where(
            batch.is_not(None)).group_by(batch)
        present = {row[0]: row[1] for row in session.execute(counted)}
        return [ImportRunInfo(run.id, run.source, run.started_at, run.finished_at, run.added,
                              present.get(run.id, 0), run.undone_at)
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
