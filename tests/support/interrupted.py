"""A ``WritePacer`` that dies between two transactions, like a process killed mid-job.

Long jobs commit in short transactions (``core.storage.pacing``); their promise is that a
run stopped between two of them is completed by the next run, with nothing written twice.
Tests patch a job's pacer with this one to stop it at a chosen transaction.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.orm import Session

from core.storage.pacing import WritePacer
from core.storage.port import StoragePort


class Killed(BaseException):
    """Stands for the process being killed: not an ``Exception``, so no handler for
    ordinary failures catches it on the way out."""


class KilledAfter(WritePacer):
    """Commits ``transactions`` transactions, then raises ``Killed`` instead of the next."""

    def __init__(self, storage: StoragePort, *, transactions: int, first_size: int = 2) -> None:
        super().__init__(storage, first_size=first_size)
        self.left = transactions

    @contextmanager
    def write(self) -> Iterator[Session]:
        if self.left == 0:
            raise Killed(f"killed before a transaction of {self.size} items")
        self.left -= 1
        with super().write() as session:
            yield session
