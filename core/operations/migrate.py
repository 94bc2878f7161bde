"""Copying the data folder's database into an empty database of the other backend (SQLite
↔ PostgreSQL), for ``hearth migrate`` (``core.storage.transfer``).

Both databases are opened by their adapters, so both are at the schema head; the copy
carries the scheduler's job store along. Afterwards a PostgreSQL target is checked as
``hearth doctor`` checks it, and what fails comes back as ``problems`` (a ``pg_dump`` older
than the server means no backup, and so no dream). The caller holds the folder alone
(``folder_lock.held_alone``) throughout, so nothing changes the home while it is copied.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.errors import HearthError
from core.storage.port import HealthCheck
from core.storage.transfer import CopyCancelled, CopyReport

if TYPE_CHECKING:
    from core.config import Settings
    from core.home.paths import HearthPaths

__all__ = ["Copied", "CopyCancelled", "CopyReport", "HealthCheck", "copy_database"]

Progress = Callable[[int, int], None]
Watched = Callable[[], AbstractContextManager[Progress]]
"""Opens what shows the copy's progress (a terminal's bar), around the copy alone."""


@dataclass(frozen=True)
class Copied:
    """A finished copy: where it went, what it wrote, and what a server target lacks."""

    target: str
    report: CopyReport
    problems: tuple[HealthCheck, ...]


def copy_database(settings: Settings, paths: HearthPaths, target_url: str,
                  source_url: str | None, *, replace: bool, watched: Watched) -> Copied:
    """Copy the database ``source_url`` names (None: the one this home uses) into the empty
    one ``target_url`` names (``replace``: emptied first). Ctrl-C during the copy stops it
    between two pages with ``CopyCancelled``; the target keeps a marker the next copy names."""
    from core.config.database_url import identity
    from core.scheduling import job_store_table
    from core.storage import transfer
    from core.storage.factory import open_storage, open_url

    origin = open_url(source_url, settings, paths) if source_url else open_storage(settings,
                                                                                   paths)
    try:
        target = open_url(target_url, settings, paths)
        try:
            if identity(origin.location) == identity(target.location):
                raise HearthError(f"{target.location} is the database being copied.",
                                  "Name another database with --to.")
            with watched() as progress:
                try:
                    report = transfer.copy_database(origin, target, replace=replace,
                                                    job_store=job_store_table(),
                                                    progress=progress)
                except KeyboardInterrupt:
                    raise CopyCancelled(
                        f"The copy into {target.location} was stopped; it is marked "
                        "unfinished.", "Run the same command again with --replace to "
                                       "start over.") from None
            problems = (() if target_url.startswith("sqlite") else
                        tuple(check for check in target.health_checks() if not check.ok))
            return Copied(target.location, report, problems)
        finally:
            target.close()
    finally:
        origin.close()
