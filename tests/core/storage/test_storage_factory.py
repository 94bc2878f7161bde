"""The storage factory: which adapter a database URL opens, what it says about a URL it
cannot use, and that a URL's password is never shown."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from sqlalchemy import text

from core.app import Hearth
from core.operations import data
from core.config import Settings, load_settings
from core.home.paths import HearthPaths
from core.errors import DatabaseError, InvalidInputError, ReadOnlyError
from core.operations.doctor import run_checks
from core.storage import factory
from core.config.database_url import Backend, backend_of, masked, sqlite_file
from core.storage.sqlite.adapter import SqliteStorage

SECRET = "hunter2"
SERVER = f"postgresql://hearth:{SECRET}@127.0.0.1:1/hearth"
"""Port 1 on loopback: nothing listens there, so no test ever reaches a server with it."""


@pytest.fixture
def paths(tmp_path: Path) -> HearthPaths:
    return HearthPaths(tmp_path / "home")


def test_no_url_opens_sqlite_in_the_data_folder_with_todays_options(paths) -> None:
    settings = Settings(busy_timeout_ms=1234, write_wait_seconds=7.5)
    storage = factory.open_storage(settings, paths)
    try:
        assert isinstance(storage, SqliteStorage)
        assert storage.path == paths.database and paths.database.is_file()
        assert storage._write_wait_seconds == 7.5
        with storage.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 1234
    finally:
        storage.close()
    read_only = factory.open_storage(settings, paths, read_only=True)
    try:
        with pytest.raises(ReadOnlyError), read_only.write() as session:
            session.execute(text("CREATE TABLE t (x)"))
    finally:
        read_only.close()


def test_a_sqlite_url_opens_the_file_it_names(paths, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere" / "memory.db"
    storage = factory.open_storage(Settings(database_url=f"sqlite:///{elsewhere}"), paths)
    try:
        assert storage.path == elsewhere and elsewhere.is_file()
        assert not paths.database.exists()
    finally:
        storage.close()
    assert sqlite_file("sqlite://", paths.database) == paths.database


def test_an_unknown_scheme_is_one_sentence_without_the_password(paths) -> None:
    with pytest.raises(ValueError, match="SQLite and PostgreSQL") as caught:
        Settings(database_url=f"mysql://hearth:{SECRET}@localhost/hearth")
    assert SECRET not in str(caught.value)
    with pytest.raises(InvalidInputError) as refused:
        backend_of(f"mysql://hearth:{SECRET}@localhost/hearth")
    assert refused.value.message.count(".") == 1 and SECRET not in str(refused.value)
    with pytest.raises(InvalidInputError, match="not a URL") as unreadable:
        backend_of(f"{SECRET} pasted in the wrong field")
    assert SECRET not in unreadable.value.message


def test_a_password_is_masked_in_every_rendering() -> None:
    assert masked(SERVER) == "postgresql://hearth:***@127.0.0.1:1/hearth"
    assert masked(f"postgresql+psycopg://u:{SECRET}@/db?host=/run/pg").count(SECRET) == 0
    assert masked("not a url :// at all") == "an unreadable database URL"
    assert masked(None) == "the embedded SQLite database"
    assert SECRET not in factory.describe(Settings(database_url=SERVER))
    assert backend_of(SERVER) is Backend.POSTGRESQL and backend_of(None) is Backend.SQLITE


def test_a_missing_postgresql_adapter_or_driver_is_a_sentence(tmp_path: Path,
                                                             monkeypatch) -> None:
    with pytest.raises(DatabaseError, match="PostgreSQL support is not installed") as caught:
        factory._postgres_module("core.storage.postgres.no_such_adapter", SERVER)
    assert SECRET not in str(caught.value) and "database_url" in caught.value.hint
    (tmp_path / "adapter_needing_a_driver.py").write_text("import no_such_driver_xyz\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(DatabaseError, match="'no_such_driver_xyz'") as driver:
        factory._postgres_module("adapter_needing_a_driver", SERVER)
    assert SECRET not in str(driver.value)
    sys.modules.pop("adapter_needing_a_driver", None)


def test_the_environment_overrides_the_setting_and_is_masked_when_wrong(
        paths, monkeypatch, tmp_path: Path) -> None:
    database = tmp_path / "from-env.db"
    monkeypatch.setenv("HEARTH_DATABASE_URL", f"sqlite:///{database}")
    assert load_settings(paths).database_url == f"sqlite:///{database}"
    with Hearth.open(paths.home) as hearth:
        assert hearth.storage.path == database
        assert data.status(hearth).database_bytes == hearth.storage.size_bytes() > 0
    assert database.is_file() and not paths.database.exists()

    monkeypatch.setenv("HEARTH_DATABASE_URL", f"mysql://hearth:{SECRET}@localhost/x")
    with pytest.raises(InvalidInputError) as caught:
        load_settings(paths)
    assert "HEARTH_DATABASE_URL" in caught.value.message
    assert "***" in caught.value.message and SECRET not in str(caught.value)


def test_the_doctor_names_the_database_masked(paths) -> None:
    checks = run_checks(paths, Settings(database_url=SERVER,
                                        embedding_model_dir=paths.home / "no-model"))
    by_name = {check.name: check for check in checks}
    assert by_name["database_url"].detail == "postgresql: postgresql://hearth:***@127.0.0.1:1/hearth"
    assert not by_name["database"].ok
    assert all(SECRET not in f"{check.detail} {check.fix}" for check in checks)


def test_the_doctor_reports_the_sqlite_adapters_own_checks(paths) -> None:
    checks = run_checks(paths, Settings(embedding_model_dir=paths.home / "no-model"))
    by_name = {check.name: check for check in checks}
    assert by_name["database_url"].detail.startswith("SQLite in the data folder")
    assert by_name["database"].ok and "integrity ok" in by_name["database"].detail
    assert by_name["sqlite-vec"].ok and by_name["FTS5"].ok


def test_hearth_settings_and_doctor_show_the_database_url_masked(capsys, tmp_path: Path,
                                                                 monkeypatch) -> None:
    from cli.main import run

    monkeypatch.setenv("HEARTH_DATABASE_URL", SERVER)
    assert run(["--home", str(tmp_path / "h"), "settings", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["database_url"] == "postgresql://hearth:***@127.0.0.1:1/hearth"
    assert run(["--home", str(tmp_path / "h"), "doctor"]) == 1  # no server there
    out, err = capsys.readouterr()
    assert "postgresql://hearth:***@127.0.0.1:1/hearth" in out
    assert SECRET not in out + err
