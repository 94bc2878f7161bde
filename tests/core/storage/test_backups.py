"""Restore's swap, where the CLI cannot reach: a rename that fails half way is undone, and
when even that fails the message says where the database is."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest
from sqlalchemy import select

from core.storage import backups
from core.storage.sqlite import restore
from core.home.paths import HearthPaths
from core.errors import DatabaseError
from core.storage import orm
from core.storage.sqlite.adapter import SqliteStorage


@pytest.fixture
def paths(tmp_path: Path) -> HearthPaths:
    paths = HearthPaths(tmp_path / "home")
    storage = SqliteStorage(paths.database)
    with storage.write() as session:
        session.add(orm.Note(title="in the backup", content="x"))
    backups.create_backup(storage, paths, keep=3)
    with storage.write() as session:
        session.add(orm.Note(title="only live", content="y"))
    storage.close()
    return paths


def notes(database: Path) -> list[str]:
    storage = SqliteStorage(database)
    try:
        with storage.read() as session:
            return sorted(session.scalars(select(orm.Note.title)))
    finally:
        storage.close()


def test_a_swap_that_fails_puts_the_database_back(paths: HearthPaths,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    (backup,) = backups.list_backups(paths)
    real = os.replace

    def staged_copy_refused(source: Path, target: Path) -> None:
        if ".restoring-" in Path(source).name:
            raise OSError(errno.EIO, "Input/output error", str(target))
        real(source, target)

    monkeypatch.setattr(backups.os, "replace", staged_copy_refused)
    with pytest.raises(DatabaseError) as caught:
        restore.restore_backup(paths, backup.path)
    assert "Nothing was changed" in caught.value.hint
    monkeypatch.undo()
    assert sorted(p.name for p in paths.home.glob("hearth.db*")) == ["hearth.db"]
    assert notes(paths.database) == ["in the backup", "only live"]


def test_a_database_that_cannot_be_put_back_is_named(paths: HearthPaths,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    (backup,) = backups.list_backups(paths)
    real = os.replace
    moved: list[Path] = []

    def first_works(source: Path, target: Path) -> None:  # setting aside works, nothing else
        if moved:
            raise OSError(errno.EIO, "Input/output error", str(target))
        real(source, target)
        moved.append(Path(target))

    monkeypatch.setattr(backups.os, "replace", first_works)
    with pytest.raises(backups.RestoreHalfDoneError) as caught:
        restore.restore_backup(paths, backup.path)
    monkeypatch.undo()
    (aside,) = moved
    assert str(aside) in caught.value.message
    assert str(paths.database) in caught.value.hint and str(backup.path) in caught.value.hint
    assert notes(aside) == ["in the backup", "only live"]
    assert backup.path.exists()
