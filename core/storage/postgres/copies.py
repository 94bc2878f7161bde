"""PostgreSQL's backup files: checking one, reading one, and rewriting one without what a
forget took away (``core.storage.port.BackupCopies``).

A PostgreSQL backup is a ``pg_dump`` archive (``hearth-<stamp>.dump``, custom format:
compressed, so a byte search of the file cannot see a text in it). To read one, or to take
something out of it, it is restored into a scratch database on the same server
(``<database>_scratch_<random>``), which is dropped afterwards, whatever happened:

* ``reading``: the scratch database, read-only, for "does this backup still hold it";
* ``rewrite``: the forget's erasure runs in the scratch database (opened as a
  ``PostgresStorage``, which brings it to the current schema, as a restore would), the
  caller's "does it still hold it" is asked of it, it is dumped again beside the original,
  that archive is checked, and only then renamed over the original with the original's
  modification time. A dump holds only live rows, so no freed space carries the old text.

This needs the right to create a database on the server (``CREATEDB``) with pgvector in
it: pgvector is not a trusted extension, so either the role is a superuser or the
server's ``template1`` has it enabled (every new database then starts with it). A server
that refuses gets a plain sentence saying the backup was left as it was and what to do
(delete the backup, or grant the rights): the backup is never silently kept as if it had
been cleaned.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg
from psycopg import sql
from sqlalchemy.orm import Session

from core.errors import DatabaseError, HearthError
from core.config.database_url import masked, parsed
from core.storage.durable import sync_folder
from core.storage.port import StoragePort
from core.storage.postgres import backup

REWRITING = ".forgetting"
"""Suffix of an archive being rewritten (not ``.dump``: backup listings never show it)."""
SCRATCH_HINT = ("Delete that backup to be rid of it, or let Hearth's database user create "
                "databases with pgvector in them (`ALTER ROLE <user> CREATEDB`, and "
                "`CREATE EXTENSION vector` in template1 as a superuser; docs/home-server.md) "
                "and remove it from the backups again.")


class PostgresCopies:
    """The ``pg_dump`` backups of the database at ``url`` (see the module docstring).
    ``open_copy``: the adapter, opening a scratch database as it opens the live one."""

    suffix = backup.DUMP_SUFFIX

    def __init__(self, url: str, open_copy: Callable[[str], StoragePort]) -> None:
        self._url = url
        self._open_copy = open_copy

    def verify(self, copy: Path) -> None:
        """Checked by a ``pg_restore`` as new as the server (an older one cannot read a
        newer server's archives)."""
        backup.verify(copy, tool=backup.find_tool("pg_restore", self._url))

    def set_aside(self) -> list[Path]:
        """None: a restore replaces the database's tables in place (``pg_restore``)."""
        return []

    def files(self, copy: Path) -> list[Path]:
        return [copy]

    @contextmanager
    def reading(self, copy: Path) -> Iterator[Session]:
        with self._scratch(copy) as url:
            storage = self._open_copy(url)
            try:
                with storage.read() as session:
                    yield session
            finally:
                storage.close()

    def rewrite(self, copy: Path, erase: Callable[[StoragePort], None],
                still_holds: Callable[[Session], bool]) -> None:
        working = copy.with_name(copy.name + REWRITING)
        try:
            with self._scratch(copy) as url:
                storage = self._open_copy(url)
                try:
                    erase(storage)
                    with storage.read() as session:
                        if still_holds(session):
                            raise HearthError("The rewritten copy still held it.",
                                              "Please report this; the backup was not "
                                              "changed.")
                finally:
                    storage.close()
                backup.dump(url, working)
            self.verify(working)
            _replace(working, copy)
        except BaseException:
            working.unlink(missing_ok=True)
            raise

    @contextmanager
    def _scratch(self, copy: Path) -> Iterator[str]:
        """A new database on the same server holding ``copy``'s content, dropped at the
        end; a sentence when the server does not allow it."""
        if not copy.is_file():
            raise HearthError(f"{copy.name} was removed meanwhile.", "Nothing to rewrite.")
        live = parsed(self._url)
        name = f"{live.database or 'hearth'}_scratch_{secrets.token_hex(4)}"[:63]
        url = live.set(database=name).render_as_string(hide_password=False)
        _create(self._url, name)
        try:
            backup.restore(url, copy, clean=False)
            yield url
        finally:
            _drop(self._url, name)


def _admin(url: str) -> psycopg.Connection:
    server = backup.Server.of(url)
    return psycopg.connect(server.conninfo, password=server.password, autocommit=True,
                           connect_timeout=10)


def _create(url: str, name: str) -> None:
    try:
        with _admin(url) as connection:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    except psycopg.errors.InsufficientPrivilege as exc:
        raise DatabaseError(
            f"The server at {masked(url)} does not let Hearth create a scratch database, "
            "which it needs to read a pg_dump backup and rewrite it without what you "
            "forgot, so that backup still holds it.", SCRATCH_HINT) from exc
    except psycopg.Error as exc:
        raise DatabaseError(f"A scratch database to rewrite a backup could not be made on "
                            f"{masked(url)} ({type(exc).__name__}).", SCRATCH_HINT) from exc


def _drop(url: str, name: str) -> None:
    with _admin(url) as connection:
        connection.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(
            sql.Identifier(name)))


def _replace(working: Path, original: Path) -> None:
    """Put the checked archive in place of the original, atomically and durably, keeping
    the original's modification time (backup listings show when the backup was taken)."""
    if not original.exists():
        raise HearthError(f"{original.name} was removed meanwhile.", "Nothing to rewrite.")
    stat = original.stat()
    os.utime(working, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    with working.open("rb") as handle:
        os.fsync(handle.fileno())
    os.replace(working, original)
    sync_folder(original.parent)
