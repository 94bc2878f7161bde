"""Recovery that cannot lose: restore and export never take the live database with them, a
restore changes nothing until a verified copy is in place, backups leave no debris."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest
from datafolder import digest, make_home, only_backups, read_facts, scramble
from privileged import immutable  # noqa: F401 (a fixture)

PROJECT_ROOT = Path(__file__).resolve().parents[2]  # where `hearth_cli` runs the command


@pytest.fixture
def home(tmp_path: Path, embedder) -> Path:
    folder = tmp_path / "home"
    make_home(folder, embedder)
    return folder


def test_restore_refuses_the_live_database_under_any_name(hearth_cli, home: Path,
                                                          tmp_path: Path) -> None:
    database = home / "hearth.db"
    before = digest(database)
    alias = tmp_path / "looks-like-a-backup.db"
    alias.symlink_to(database)
    names = [database, home / "hearth.db-wal", home / "hearth.db-shm", alias,
             Path(os.path.relpath(database, PROJECT_ROOT)), home / "backups" / ".." / "hearth.db"]
    for name in names:
        run = hearth_cli(home, "restore", str(name))
        run.assert_sentence()
        assert "live database" in run.err, run.err
    assert digest(database) == before
    assert list(home.glob("hearth.db.*")) == []  # nothing set aside, nothing staged
    listed = hearth_cli(home, "facts", "list", "--json")
    listed.assert_ok()
    assert "Porto" in listed.out


def test_export_refuses_the_files_hearth_keeps(hearth_cli, home: Path) -> None:
    (home / "settings.json").write_text("{}", encoding="utf-8")
    kept = {path: digest(path) for path in [home / "hearth.db", home / "settings.json",
                                            *only_backups(home)]}
    targets = [*kept, home / "hearth.db-wal", home / "backups" / "new.json",
               home / "logs" / "export.json"]
    for target in targets:
        run = hearth_cli(home, "export", str(target))
        run.assert_sentence()
        assert "Hearth's own files" in run.err, run.err
    assert {path: digest(path) for path in kept} == kept
    assert not (home / "hearth.db-wal").exists()
    assert not (home / "backups" / "new.json").exists()
    hearth_cli(home, "export", str(home / "my-export.json")).assert_ok()  # a new file is fine


def crash_after_writing(database: Path, sql: str) -> None:
    """A process that commits ``sql`` and dies without closing: the change is only in the
    -wal beside the database, as after a crash or a power cut."""
    script = ("import os, sys; from core.storage.sqlite.engine import dbapi_module, "
              "register_terms_function; "
              "c = dbapi_module().connect(sys.argv[1], isolation_level=None); "
              "register_terms_function(c); c.execute(sys.argv[2]); os._exit(0)")
    subprocess.run([sys.executable, "-c", script, str(database), sql], check=True,
                   cwd=PROJECT_ROOT)


def test_restore_sets_the_previous_database_aside_whole(hearth_cli, home: Path) -> None:
    (backup,) = only_backups(home)
    database = home / "hearth.db"
    crash_after_writing(database, "UPDATE user_facts SET value = 'Faro' "
                                  "WHERE key = 'home_city'")
    assert Path(f"{database}-wal").stat().st_size > 0
    run = hearth_cli(home, "restore", str(backup))
    run.assert_ok()
    (aside,) = home.glob("hearth.db.before-restore-*")
    assert str(aside) in run.out
    assert read_facts(home / "hearth.db")["home_city"] == "Porto"
    # the aside copy is one complete file: its last write was checkpointed into it
    assert not Path(f"{aside}-wal").exists()
    assert read_facts(aside)["home_city"] == "Faro"
    assert list(home.glob("hearth.db.restoring-*")) == []
    listed = hearth_cli(home, "facts", "list", "--json")
    listed.assert_ok()
    assert "Porto" in listed.out and "Faro" not in listed.out


def test_a_restore_that_cannot_swap_changes_nothing(hearth_cli, home: Path,
                                                    immutable) -> None:  # noqa: F811
    (backup,) = only_backups(home)
    database = home / "hearth.db"
    before = digest(database)
    immutable(database)  # cannot be renamed aside
    run = hearth_cli(home, "restore", str(backup))
    run.assert_sentence()
    assert "Nothing was changed" in run.err
    assert str(database) in run.err and str(backup) in run.err
    assert digest(database) == before
    assert sorted(p.name for p in home.glob("hearth.db*")) == ["hearth.db"]
    hearth_cli(home, "facts", "list").assert_ok()


def refused_restore(hearth_cli, home: Path, backup: Path):
    """``hearth restore BACKUP`` refused with a sentence that points to the other backups,
    the database and the folder left exactly as they were."""
    database = home / "hearth.db"
    before = digest(database)
    run = hearth_cli(home, "restore", str(backup))
    run.assert_sentence()
    assert run.code == 1, (run.code, run.err)
    assert "hearth backup --list" in run.err, run.err
    assert digest(database) == before
    assert sorted(path.name for path in home.glob("hearth.db*")) == ["hearth.db"]
    return run


def test_restore_refuses_a_newer_versions_backup_and_another_programs_database(
        hearth_cli, home: Path, tmp_path: Path) -> None:
    (backup,) = only_backups(home)
    newer = Path(shutil.copyfile(backup, tmp_path / "newer.db"))
    with closing(sqlite3.connect(newer)) as connection:
        connection.execute("UPDATE alembic_version SET version_num = '9999'")
        connection.commit()
    run = refused_restore(hearth_cli, home, newer)
    assert f"{newer} was made by a newer version of Hearth" in run.err, run.err
    assert "9999" in run.err and "with that newer Hearth" in run.err
    photos = tmp_path / "photos.db"
    with closing(sqlite3.connect(photos)) as connection:
        connection.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
        connection.commit()
    run = refused_restore(hearth_cli, home, photos)
    assert f"{photos} is not a Hearth backup" in run.err, run.err


def test_a_damaged_backup_is_named_as_damaged_not_the_database(hearth_cli,
                                                               home: Path) -> None:
    (backup,) = only_backups(home)
    scramble(backup, "memories")
    run = refused_restore(hearth_cli, home, backup)
    assert f"The backup {backup} is damaged" in run.err, run.err
    assert "hearth restore" not in run.err  # the way back for a damaged database


def test_after_a_restore_cut_short_no_empty_database_is_started(hearth_cli,
                                                                home: Path) -> None:
    """The state an interrupted restore leaves: the database set aside, none in its place.
    The next command must say where it is, not quietly start an empty one."""
    aside = home / "hearth.db.before-restore-20260101T000000000000Z"
    os.replace(home / "hearth.db", aside)
    run = hearth_cli(home, "facts", "list")
    run.assert_sentence()
    assert aside.name in run.err and "hearth restore" in run.err
    assert not (home / "hearth.db").exists()
    hearth_cli(home, "restore", str(aside)).assert_ok()
    assert read_facts(home / "hearth.db")["home_city"] == "Porto"


def test_backups_leave_no_debris_and_clean_old_debris(hearth_cli, home: Path) -> None:
    backups = home / "backups"
    (finished,) = only_backups(home)
    kept = digest(finished)
    debris = [backups / name for name in (
        "hearth-20250101T000000000000Z.partial", "hearth-20250101T000000000000Z.partial-wal",
        "hearth-20250101T000000000000Z.partial-shm",
        "hearth-20250101T000000000000Z.partial-journal",
        "hearth-20240101T000000000000Z.db-wal", "hearth-20240101T000000000000Z.db-shm")]
    for path in debris:
        path.write_bytes(b"")
    hearth_cli(home, "backup").assert_ok()
    names = sorted(p.name for p in backups.iterdir() if not p.name.endswith(".lock"))
    assert all(name.startswith("hearth-") and name.endswith(".db") for name in names), names
    assert len(names) == 2
    assert digest(finished) == kept
