"""A data folder Hearth opened once, made per test session (per xdist worker) and copied
for each test that needs a new one.

Opening a new SQLite database runs every Alembic revision: 0.5 to 1 s on the shared 2-core
machine, paid by about a thousand tests. A copy of a folder whose database was migrated by
the same code takes a few milliseconds, and is what the test would have had after its own
first open: the template is made by ``Hearth.open`` itself (the folder's modes, the lock
files beside the database), and ``SqliteTemplate.make`` checks that the open wrote no row,
so a copy holds the schema and nothing else. The template is made anew by every run from
the migrations in the tree, so a broken migration still fails the tests that copy it
(``test_storage.py`` compares the copied schema with the models); upgrades from older
revisions are tested on databases those tests make (``test_migration_*.py``).
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

import pytest
from sqlalchemy import exists, select

if TYPE_CHECKING:
    from core.app import Hearth

DATABASE = "hearth.db"
SIDECARS = ("-wal", "-shm", "-journal")


@dataclass(frozen=True)
class SqliteTemplate:
    """``home``: a data folder Hearth has opened (and closed) with its default settings."""

    home: Path

    @classmethod
    def make(cls, folder: Path) -> SqliteTemplate:
        """Open a new data folder in ``folder`` the way a first start does, in an
        environment without the user's or the run's ``HEARTH_*`` settings."""
        from core.app import Hearth
        from core.config import Settings

        home = folder / "home"
        with pytest.MonkeyPatch.context() as patch:
            for name in list(os.environ):
                if name.startswith("HEARTH_"):
                    patch.delenv(name)
            with Hearth.open(home, settings=Settings()) as opened:
                assert opened.storage.path == home / DATABASE, opened.storage.location
                _assert_empty(opened)
        left = [home / f"{DATABASE}{suffix}" for suffix in SIDECARS
                if (home / f"{DATABASE}{suffix}").exists()]
        assert not left, f"closing the template left {left}: a copy would miss its writes"
        return cls(home)

    @property
    def database(self) -> Path:
        """The migrated, closed database file."""
        return self.home / DATABASE

    def copy_database(self, path: Path) -> Path:
        """A new migrated database at ``path`` (which must not exist)."""
        assert not path.exists(), path
        shutil.copyfile(self.database, path)
        return path

    def copy_home(self, home: Path) -> Path:
        """A data folder at ``home`` as Hearth's first open leaves it; a folder the test
        has already made is left as it is (Hearth will migrate its database on open)."""
        if not home.exists():
            shutil.copytree(self.home, home)
        return home


def _assert_empty(opened: Hearth) -> None:
    """The first open wrote no row into Hearth's tables: the template is the schema and
    nothing else."""
    from core.storage.orm import Base

    with opened.storage.read() as session:
        filled = [table.name for table in Base.metadata.sorted_tables
                  if session.scalar(select(exists().select_from(table)))]
    assert not filled, f"a first open wrote rows into {filled}"
