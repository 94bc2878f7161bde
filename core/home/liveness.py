"""Unfinished work whose process is gone: found at open and marked ``interrupted``.

An exchange is ``pending`` while its reply streams and a run is ``running`` while it runs.
A process killed in the middle (``hearth ask`` or ``hearth dream`` SIGKILLed, a crash, the
power) would leave them so for good, and nothing in the row can tell a dead owner from a
live one: the desktop window may be streaming a reply while a ``hearth`` command opens the
same folder.

So the process working on such a row *claims* it: an exclusive ``flock`` on
``<home>/running/<kind>-<id>.lock``, taken before the row is committed and released only
after its final state is. The operating system drops the lock when the process dies,
however it dies, and never reuses it for another process (unlike a pid). At open,
``reconcile`` marks every pending exchange and running run whose claim is free (or was
never made, by an older Hearth) ``interrupted``, keeping whatever it had written (a partial
reply, finished stages), and removes claim files nobody holds.

The order makes it race-free: an owner's claim is held whenever its row can be seen as
unfinished, and the update is conditional on the row still being unfinished, so a row
finished between the check and the update is left as it is.
"""

from __future__ import annotations

import fcntl
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.storage.orm import Interaction, Run, utcnow
from core.storage.port import StoragePort

log = logging.getLogger(__name__)

CLAIMS_FOLDER = "running"
INTERACTION, RUN = "interaction", "run"
LEARNING = "learning"
"""An exchange queued for learning in a live process (``LearningPipeline``): the next
start of another process leaves it to its owner."""
INTERRUPTED = "interrupted"
REPLY_INTERRUPTED = "The reply was interrupted: the program stopped before it finished."
RUN_INTERRUPTED = "the process stopped before the run finished"


class Claim:
    """An exclusive hold on one row's claim file (or nothing, for a database without a
    folder); ``release`` (idempotent) removes it."""

    def __init__(self, path: Path | None, fd: int | None) -> None:
        self._path = path
        self._fd = fd

    def release(self) -> None:
        """Remove the file, then let the lock go (in that order, so nobody can take a lock
        on a file that is about to disappear)."""
        if self._fd is None or self._path is None:
            return
        try:
            self._path.unlink(missing_ok=True)
        finally:
            os.close(self._fd)
            self._fd = None


class Claims:
    """The claim files of one data folder (none for a database without a folder, such as
    a private in-memory one, whose rows no other process can see)."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    @classmethod
    def beside(cls, storage: StoragePort) -> Claims:
        """The claims of the database ``storage`` opened: a folder next to the file."""
        return cls(storage.path.parent / CLAIMS_FOLDER if storage.path is not None else None)

    def hold(self, kind: str, row_id: int) -> Claim:
        """Claim a row this process is about to commit unfinished.

        ``<kind>-<id>.lock``, or ``<kind>-<id>.<n>.lock`` when that one is held: SQLite
        reuses the id of a deleted last row, whose owner may still be running (a chat
        deleted while its reply streams). Never waits. A file removed between opening and
        locking it (a ``sweep``) is opened again, so the lock held is on the file others
        see."""
        if self.folder is None:
            return Claim(None, None)
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        generation = 0
        while True:
            suffix = f".{generation}" if generation else ""
            path = self.folder / f"{kind}-{row_id}{suffix}.lock"
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
            if not _try_lock(fd):
                os.close(fd)
                generation += 1
            elif _same_file(fd, path):
                return Claim(path, fd)
            else:
                os.close(fd)

    def alive(self, kind: str, row_id: int) -> bool:
        """Whether a live process holds one of the row's claims (True when that cannot be
        known: no folder)."""
        if self.folder is None:
            return True
        return any(_held(path) for path in self.folder.glob(f"{kind}-{row_id}.*lock"))

    def sweep(self) -> None:
        """Remove claim files nobody holds (left by processes that were killed)."""
        if self.folder is None or not self.folder.is_dir():
            return
        for path in self.folder.glob("*.lock"):
            try:
                fd = os.open(path, os.O_RDWR)
            except FileNotFoundError:
                continue  # its owner finished meanwhile
            try:
                if _try_lock(fd) and _same_file(fd, path):
                    path.unlink()
            finally:
                os.close(fd)


def claim_new_row(storage: StoragePort, kind: str,
                  create: Callable[[Session], int]) -> tuple[int, Claim]:
    """Insert an unfinished row (``create`` adds it in the write session and returns its
    id), claimed by this process before it is committed; the caller releases the claim
    once the row's final state is committed."""
    claims = Claims.beside(storage)
    claim: Claim | None = None
    try:
        with storage.write() as session:
            row_id = create(session)
            claim = claims.hold(kind, row_id)
    except BaseException:
        if claim is not None:  # the row was never committed
            claim.release()
        raise
    return row_id, claim


@dataclass(frozen=True)
class Reconciled:
    """What ``reconcile`` marked interrupted."""

    interactions: Sequence[int]
    runs: Sequence[int]


def reconcile(storage: StoragePort) -> Reconciled:
    """Mark pending exchanges and running runs whose process is gone ``interrupted``."""
    claims = Claims.beside(storage)
    if claims.folder is None:
        return Reconciled((), ())
    with storage.read() as session:
        pending = session.scalars(select(Interaction.id).where(
            Interaction.status == "pending")).all()
        running = session.scalars(select(Run.id).where(Run.status == "running")).all()
    dead = Reconciled([i for i in pending if not claims.alive(INTERACTION, i)],
                      [r for r in running if not claims.alive(RUN, r)])
    if dead.interactions or dead.runs:
        with storage.write() as session:
            session.execute(update(Interaction).where(
                Interaction.id.in_(dead.interactions), Interaction.status == "pending")
                .values(status=INTERRUPTED, error=REPLY_INTERRUPTED))
            session.execute(update(Run).where(Run.id.in_(dead.runs), Run.status == "running")
                            .values(status=INTERRUPTED, error=RUN_INTERRUPTED,
                                    finished_at=utcnow()))
        log.info("marked interrupted (their process is gone): exchanges %s, runs %s",
                 list(dead.interactions), list(dead.runs))
    claims.sweep()
    return dead


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock on ``fd`` if nobody holds it, without waiting."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _held(path: Path) -> bool:
    """Whether another open file holds the lock on ``path`` (False once it is gone)."""
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return False
    try:
        return not _try_lock(fd)
    finally:
        os.close(fd)


def _same_file(fd: int, path: Path) -> bool:
    """Whether ``path`` still names the file open as ``fd`` (not removed or replaced)."""
    try:
        return os.stat(path).st_ino == os.fstat(fd).st_ino
    except FileNotFoundError:
        return False
