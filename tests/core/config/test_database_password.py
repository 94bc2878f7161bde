"""The PostgreSQL password is kept out of ``settings.json`` (``core.config.database_password``):
in the system keyring when there is one, else in the data folder's ``database.pgpass``
(0600, libpq's format, named by the URL); a new Hearth finds it again and opens the
database. An older ``settings.json`` with the password in its URL keeps working and loses
the password at the next open. Against the tests' real PostgreSQL (``support.postgres``)
where a connection is the point.

``hearth migrate --switch`` in a subprocess on a machine without a keyring is in
``tests/core/storage/test_migrate.py``."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import keyring
import pytest
from keyrings.alt.file import PlaintextKeyring
from sqlalchemy.engine import make_url

from core.app import Hearth
from cli.main import run
from core.config import database_password
from core.config.database_password import (
    PASSFILE,
    Kept,
    as_entered,
    keep_password_out,
    keyring_name,
    pgpass_line,
    with_password,
)
from core.config.database_url import identity
from core.storage.postgres import backup


class SystemKeyring(PlaintextKeyring):
    """keyrings.alt's file backend in the test's folder, ranked as a system keyring is
    (Secret Service: 5), so Hearth uses it; never the desktop's own."""

    priority = 1


@pytest.fixture
def system_keyring(tmp_path: Path) -> Iterator[SystemKeyring]:
    previous = keyring.get_keyring()
    backend = SystemKeyring()
    backend.file_path = str(tmp_path / "keyring.cfg")
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture
def database(postgres_server) -> Iterator[str]:
    """A fresh migrated database of the test's own, its URL with the password in it."""
    name = postgres_server.create_database()
    yield postgres_server.url(name)
    postgres_server.drop_database(name)


def password_of(url: str) -> str:
    password = make_url(url).password
    assert password
    return str(password)


def stored_url(home: Path) -> str:
    return json.loads((home / "settings.json").read_text())["database_url"]


def test_switching_with_a_system_keyring_keeps_the_password_there(
        capsys: pytest.CaptureFixture[str], isolated_home: Path, embedder: Any,
        system_keyring: SystemKeyring, database: str) -> None:
    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        hearth.facts.remember("home_city", "Porto")

    assert run(["migrate", "--to", database, "--switch"]) == 0

    said = " ".join(capsys.readouterr().out.split())
    plain = make_url(database)._replace(password=None).render_as_string(hide_password=False)
    assert f'Its password is kept in the system keyring (service "Hearth", user "{plain}")' in said
    assert password_of(database) not in said
    assert password_of(database) not in (isolated_home / "settings.json").read_text()
    assert stored_url(isolated_home) == plain  # no password, no pass file named
    assert not (isolated_home / PASSFILE).exists()
    assert keyring.get_password("Hearth", plain) == password_of(database)
    with Hearth.open(isolated_home, embedder=embedder) as reopened:  # a new Hearth
        assert reopened.storage.location.startswith("postgresql://hearth:***@127.0.0.1:")
        assert reopened.facts.get("home_city").value == "Porto"


def test_an_older_settings_file_with_the_password_keeps_working_and_loses_it_at_open(
        capsys: pytest.CaptureFixture[str], isolated_home: Path, embedder: Any,
        database: str, postgres_server) -> None:
    """What an older ``hearth migrate --switch`` wrote: the URL with its password. It opens
    as before; the open moves the password to the pass file (no system keyring here), and
    every way of connecting finds it there: a new Hearth, the CLI, ``pg_dump``."""
    isolated_home.mkdir(parents=True)
    (isolated_home / "settings.json").write_text(json.dumps({"database_url": database}))

    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        hearth.facts.remember("home_city", "Porto")

    passfile = (isolated_home / PASSFILE).resolve()
    assert password_of(database) not in (isolated_home / "settings.json").read_text()
    assert make_url(stored_url(isolated_home)).query == {"passfile": str(passfile)}
    assert stat.S_IMODE(passfile.stat().st_mode) == 0o600
    with Hearth.open(isolated_home, embedder=embedder) as reopened:
        assert reopened.facts.get("home_city").value == "Porto"
    assert run(["facts", "list", "--json"]) == 0
    assert [fact["key"] for fact in json.loads(capsys.readouterr().out)] == ["home_city"]
    archive = isolated_home / "backups" / "hearth-20260101T000000000000Z.dump"
    backup.dump(stored_url(isolated_home), archive,
                search_path=str(postgres_server.binaries.bin))  # libpq reads the pass file
    assert archive.read_bytes().startswith(b"PGDMP")


def test_a_database_url_saved_in_the_window_loses_its_password(
        hearth: Hearth, isolated_home: Path) -> None:
    """Settings → Data → Database: the same as ``--switch`` (nothing connects here)."""
    from core.operations import settings as settings_ops

    saved = settings_ops.save(hearth, database_url="postgresql://me:se:cr\\et@db.example:5433/h")

    passfile = (isolated_home / PASSFILE).resolve()
    assert saved.password_kept_in == str(passfile) and saved.restart_needed
    assert "se:cr" not in (isolated_home / "settings.json").read_text()
    assert make_url(stored_url(isolated_home)) == make_url(hearth.settings.database_url)
    assert make_url(hearth.settings.database_url).password is None
    assert passfile.read_text().splitlines()[-1] == "db.example:5433:*:me:se\\:cr\\\\et"
    assert stat.S_IMODE(passfile.stat().st_mode) == 0o600
    assert settings_ops.database_url_shown(hearth.settings, isolated_home) == (
        "postgresql://me:***@db.example:5433/h")  # as entered, masked
    assert make_url(as_entered(hearth.settings.database_url, isolated_home)).password == (
        "se:cr\\et")


def test_a_form_shows_a_password_kept_in_the_keyring_masked_and_keeps_it_on_an_edit(
        hearth: Hearth, isolated_home: Path, system_keyring: SystemKeyring) -> None:
    from core.operations import settings as settings_ops

    settings_ops.save(hearth, database_url="postgresql://me:secret@db.example/h")
    assert hearth.settings.database_url == "postgresql://me@db.example/h"
    shown = settings_ops.database_url_shown(hearth.settings, isolated_home)
    assert shown == "postgresql://me:***@db.example/h"
    edited = settings_ops.database_url_entered(shown.replace("/h", "/other"),
                                               hearth.settings, isolated_home)
    assert edited == "postgresql://me:secret@db.example/other"  # saved without it, again


def test_the_pass_file_line_names_the_server_and_the_user() -> None:
    line = pgpass_line(make_url("postgresql://u@h:5432/d"), "p")
    assert line == "h:5432:*:u:p\n"
    assert pgpass_line(make_url("postgresql://u@/d"), "p") == "localhost:*:*:u:p\n"
    assert pgpass_line(make_url("postgresql:///d?host=/run/pg"), "p") == "/run/pg:*:*:*:p\n"


def test_a_moved_data_folder_finds_its_own_pass_file(tmp_path: Path) -> None:
    old, new = tmp_path / "old", tmp_path / "new"
    new.mkdir()
    kept = keep_password_out("postgresql://u:p@h/d", new)
    moved_url = make_url(kept.url or "").update_query_dict(
        {"passfile": str(old / PASSFILE)}).render_as_string(hide_password=False)
    assert make_url(with_password(moved_url, new) or "").query["passfile"] == str(
        new / PASSFILE)
    assert with_password(kept.url, new) == kept.url  # named and there: libpq's to read


def test_urls_that_carry_their_password_or_are_not_postgresql_are_left_alone(
        tmp_path: Path, system_keyring: SystemKeyring) -> None:
    for url in (None, "sqlite:///x.db", "postgresql://u@h/d"):
        assert keep_password_out(url, tmp_path) == Kept(url, None)  # nothing to keep
    for url in (None, "sqlite:///x.db", "postgresql://u:p@h/d"):
        assert with_password(url, tmp_path) == url
    assert not (tmp_path / PASSFILE).exists() and not Path(system_keyring.file_path).exists()
    assert with_password("postgresql://u@h/d", tmp_path) == "postgresql://u@h/d"  # none kept
    keyring.set_password("Hearth", keyring_name(make_url("postgresql://u@h/d")), "kept")
    assert with_password("postgresql+psycopg://u@h/d", tmp_path) == (
        "postgresql+psycopg://u:kept@h/d")


def test_without_a_system_keyring_the_pass_file_is_used(tmp_path: Path) -> None:
    """The tests' own keyring is keyring's "fail" backend; keyrings.alt's plain-text file
    (priority 0.5) is no system keyring either."""
    assert not database_password.keyring_usable()
    previous = keyring.get_keyring()
    keyring.set_keyring(PlaintextKeyring())
    try:
        assert not database_password.keyring_usable()
    finally:
        keyring.set_keyring(previous)
    assert keep_password_out("postgresql://u:p@h/d", tmp_path).place == str(
        (tmp_path / PASSFILE).resolve())


def test_one_database_however_its_url_is_written() -> None:
    assert identity("postgresql://u:***@h/d") == identity(
        "postgresql+psycopg://u@h:5432/d?passfile=%2Fx") == "postgresql://u@h:5432/d"
    assert identity("/data/hearth.db") == "/data/hearth.db"
