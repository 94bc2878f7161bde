"""The one place that chooses a database: the ``database_url`` setting (or
``HEARTH_DATABASE_URL``) names the backend, and this module opens its adapter behind the
storage port.

* no URL (the default), or ``sqlite:///file.db``: SQLite, in the data folder's
  ``hearth.db`` or the file named, with the settings' busy timeout and write wait;
* ``postgresql://user:password@host/dbname``: the PostgreSQL adapter
  (``core.storage.postgres.adapter.PostgresStorage``), imported only then, so the
  embedded default loads no PostgreSQL driver.

Nothing else in ``core`` imports an adapter (``tests/project/test_architecture.py``).
Restoring a backup is here too, because it must work on a database that cannot be opened (a
damaged SQLite file is exactly what a restore is for). A URL in any message is masked
(``database_url.masked``): its password is never shown. A password kept out of
``settings.json`` (the system keyring, or the data folder's pass file) is found here, in
``core.config.database_password``, before anything connects.
"""

from __future__ import annotations

import importlib
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from core.config import Settings
from core.home.paths import HearthPaths
from core.errors import DatabaseError
from core.config.database_password import with_password
from core.config.database_url import Backend, backend_of, masked, sqlite_file
from core.storage.port import StoragePort

POSTGRES_ADAPTER = "core.storage.postgres.adapter"
POSTGRES_BACKUP = "core.storage.postgres.backup"


def open_storage(settings: Settings, paths: HearthPaths, *,
                 read_only: bool = False) -> StoragePort:
    """The database ``settings.database_url`` names, opened (and migrated unless
    ``read_only``) by its adapter. A PostgreSQL password kept out of the settings is found
    again (``database_password.with_password``)."""
    url = with_password(settings.database_url, paths.home)
    if backend_of(url) is Backend.POSTGRESQL:
        assert url is not None  # only a URL names PostgreSQL
        adapter = _postgres_module(POSTGRES_ADAPTER, url)
        return cast(StoragePort, adapter.PostgresStorage(url, read_only=read_only))
    from core.storage.sqlite.adapter import SqliteStorage
    from core.storage.sqlite.restore import refuse_lost_database

    database = sqlite_file(url, paths.database)
    refuse_lost_database(paths, database)
    return SqliteStorage(database, settings.busy_timeout_ms,
                         write_wait_seconds=settings.write_wait_seconds, read_only=read_only)


def open_url(url: str, settings: Settings, paths: HearthPaths) -> StoragePort:
    """The database ``url`` names, opened and migrated by its adapter, as the target of a
    copy (``core.storage.transfer``): a SQLite file that does not exist yet is created, and
    ``sqlite://`` with no file names the data folder's ``hearth.db``."""
    url = with_password(url, paths.home) or url
    if backend_of(url) is Backend.POSTGRESQL:
        adapter = _postgres_module(POSTGRES_ADAPTER, url)
        return cast(StoragePort, adapter.PostgresStorage(
            url, write_wait_seconds=settings.write_wait_seconds))
    from core.storage.sqlite.adapter import SqliteStorage

    database = sqlite_file(url, paths.database)
    database.parent.mkdir(parents=True, exist_ok=True)
    return SqliteStorage(database, settings.busy_timeout_ms,
                         write_wait_seconds=settings.write_wait_seconds)


def restore_backup(settings: Settings, paths: HearthPaths, backup: Path,
                   now: datetime | None = None) -> Path | None:
    """Put ``backup`` in place of the database ``settings`` name; returns where the previous
    database was set aside (a SQLite file), or None (none there, or a PostgreSQL database,
    which ``pg_restore`` replaces in place). The caller holds the folder's exclusive lock."""
    url = with_password(settings.database_url, paths.home)
    if backend_of(url) is Backend.POSTGRESQL:
        assert url is not None
        _postgres_module(POSTGRES_BACKUP, url).restore(url, backup)
        return None
    from core.storage.sqlite.restore import restore_backup as restore_file

    return restore_file(paths, backup, now, database=sqlite_file(url, paths.database))


def convert_database_file(path: Path, old_key: str | None, new_key: str | None) -> None:
    """Rewrite the SQLite file ``path`` from ``old_key`` to ``new_key`` (None: plain), in
    place and only once the new file is checked (``core.storage.folder_cipher``)."""
    from core.storage.sqlite.cipher_files import convert

    convert(path, old_key, new_key)


def convert_derived_index_files(database: Path, old_key: str | None,
                                new_key: str | None) -> int:
    """Rewrite the ANN index files beside the SQLite file ``database`` from ``old_key`` to
    ``new_key`` (None: plain), each committed only once written (``core.storage.folder_cipher``),
    and, when encrypting, delete its full-text index folders (an encrypted folder keeps none:
    they would hold every term in the clear); returns how many ANN files were rewritten."""
    from core.storage.sqlite.ann import convert_files
    from core.storage.sqlite.text_index import remove_files

    converted = convert_files(database, old_key, new_key)
    if new_key is not None:
        remove_files(database)
    return converted


def describe(settings: Settings) -> str:
    """Which database ``settings`` name, for ``hearth doctor`` and the window: the URL
    with its password masked."""
    url = settings.database_url
    if not url:
        return "SQLite in the data folder (the embedded default)"
    return f"{backend_of(url).value}: {masked(url)}"


def _postgres_module(name: str, url: str) -> Any:
    """A module of the PostgreSQL adapter; a sentence when this Hearth has none, or its
    driver is missing."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name and (exc.name == name or name.startswith(f"{exc.name}.")):
            raise DatabaseError(
                f"PostgreSQL support is not installed in this Hearth, so {masked(url)} "
                "cannot be used.",
                "Install a Hearth with PostgreSQL support, or clear database_url to use the "
                "embedded SQLite database.") from exc
        raise DatabaseError(
            f"PostgreSQL support needs the Python package {exc.name!r}, which is not "
            f"installed, so {masked(url)} cannot be used.",
            f"Install it (pip install {exc.name}), or clear database_url to use the "
            "embedded SQLite database.") from exc
