"""Backups of a PostgreSQL database with ``pg_dump``, and restoring one with ``pg_restore``.

A backup is ``pg_dump --format=custom`` (one compressed archive, ``hearth-<stamp>.dump`` in
the data folder's ``backups/``), taken in one snapshot while Hearth keeps running, like
SQLite's online backup. Restoring one (``restore``) loads it with ``pg_restore --clean
--if-exists --single-transaction``, every entry but the pgvector extension's (which its
owner, a superuser, enabled): the database's objects are replaced in one transaction, so a
failure leaves the database as it was.

The client tools must be at least as new as the server (an older ``pg_dump`` refuses a
newer server). They are looked for on ``PATH``, then, when the server runs on this machine
(a Unix socket or a loopback address), in the server's own ``bin`` folder (its ``pg_config``
BINDIR): the first of version high enough is used. When there is none the message says what
to install. The password never reaches a command line (where other users could read it) or
a message: the tools get it in ``PGPASSWORD``, messages show the URL masked. They never
get ``HEARTH_PASSPHRASE`` (``encryption.environment_for_child``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.engine import URL

from core.errors import DatabaseError, InvalidInputError
from core.config.database_url import MASK, masked, parsed
from core.home.encryption import environment_for_child

DUMP_SUFFIX = ".dump"
LOCAL_HOSTS = frozenset({"", "localhost", "127.0.0.1", "::1"})
CLIENT_HINT = ("Install the PostgreSQL client tools of the server's version or newer "
               "(Debian and Ubuntu: `sudo apt install postgresql-client`), or back up with "
               "the server's own backups.")
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+)")
_EXTENSION_ENTRY = re.compile(r"^\d+; \d+ \d+ (COMMENT - )?EXTENSION ")
_COMMENT_ON_EXTENSION = re.compile(r"^\d+; \d+ \d+ COMMENT - EXTENSION ")


@dataclass(frozen=True)
class Server:
    """How the client tools reach the database: a libpq URL without the password, and the
    password (for ``PGPASSWORD``)."""

    conninfo: str
    password: str | None
    host: str

    @classmethod
    def of(cls, url: str) -> Server:
        parts = parsed(url)
        if parts.get_backend_name() != "postgresql":
            raise InvalidInputError(f"{masked(url)} is not a PostgreSQL database URL.",
                                    "Write it as postgresql://user:password@host/dbname.")
        plain = URL.create("postgresql", username=parts.username, host=parts.host,
                           port=parts.port, database=parts.database, query=parts.query)
        socket = parts.query.get("host")
        host = parts.host or (socket if isinstance(socket, str) else "") or ""
        return cls(plain.render_as_string(hide_password=False), parts.password, host)

    @property
    def is_local(self) -> bool:
        """On this machine: a Unix socket folder or a loopback address."""
        return self.host.startswith("/") or self.host in LOCAL_HOSTS

    def environment(self) -> dict[str, str]:
        """The tools' environment: this process's, with the password in ``PGPASSWORD`` and
        without ``HEARTH_PASSPHRASE`` (``encryption.environment_for_child``)."""
        environment = environment_for_child()
        if self.password:
            environment["PGPASSWORD"] = self.password
        return environment

    def hidden(self, text: str) -> str:
        """``text`` (a tool's error) with the password masked, should it quote it."""
        return text.replace(self.password, MASK) if self.password else text


def dump(url: str, target: Path, *, search_path: str | None = None) -> None:
    """Write a ``pg_dump`` archive of the database at ``url`` to ``target``.
    ``search_path``: where to look for the tool instead of ``PATH``."""
    server = Server.of(url)
    tool = find_tool("pg_dump", url, search_path=search_path)
    target.parent.mkdir(parents=True, exist_ok=True)
    _run(server, [str(tool), "--format=custom", "--no-owner", f"--file={target}",
                  f"--dbname={server.conninfo}"], f"Backing up {masked(url)}")


def verify(source: Path, *, tool: Path | None = None) -> None:
    """Raise unless ``source`` is a readable ``pg_dump`` archive (its table of contents
    lists). ``tool``: the ``pg_restore`` to ask (found on ``PATH`` when None)."""
    program = tool or shutil.which("pg_restore")
    if program is None:
        raise DatabaseError(f"pg_restore is not installed, so {source} cannot be checked.",
                            CLIENT_HINT)
    result = subprocess.run([str(program), "--list", str(source)], capture_output=True,
                            text=True, check=False, env=environment_for_child())
    if result.returncode != 0:
        raise DatabaseError(f"{source} is not a readable pg_dump archive "
                            f"({_last_line(result.stderr)}).",
                            "Pick another file from the backups folder.")


def restore(url: str, source: Path, *, search_path: str | None = None,
            clean: bool = True) -> None:
    """Replace the database at ``url`` by the archive ``source``, in one transaction.
    ``clean=False`` loads it into a new, empty database (nothing to drop first).

    The pgvector extension itself is left out (``_restorable``): it belongs to whoever
    enabled it (a superuser, on a home server), so Hearth's role could neither drop it, as
    ``--clean`` would, nor comment on it; the database keeps the one it has, and a new one
    gets it from the archive's ``CREATE EXTENSION IF NOT EXISTS``."""
    server = Server.of(url)
    if not source.is_file():
        raise InvalidInputError(f"{source} does not exist.",
                                "List backups with `hearth backup --list`.")
    tool = find_tool("pg_restore", url, search_path=search_path)
    verify(source, tool=tool)
    replacing = ["--clean", "--if-exists"] if clean else []
    with tempfile.TemporaryDirectory(prefix="hearth-restore-") as folder:
        entries = Path(folder) / "entries.list"
        entries.write_text(_restorable(tool, source, keep_extension=not clean))
        _run(server, [str(tool), *replacing, "--single-transaction", "--exit-on-error",
                      "--no-owner", f"--use-list={entries}", f"--dbname={server.conninfo}",
                      str(source)],
             f"Restoring {source} into {masked(url)}")


def _restorable(tool: Path, source: Path, *, keep_extension: bool) -> str:
    """The archive's table of contents without the extension's comment (and, unless
    ``keep_extension``, without the extension): what ``--use-list`` restores."""
    listed = subprocess.run([str(tool), "--list", str(source)], capture_output=True,
                            text=True, check=True, env=environment_for_child()).stdout
    left_out = _COMMENT_ON_EXTENSION if keep_extension else _EXTENSION_ENTRY
    return "".join(line for line in listed.splitlines(keepends=True)
                   if not left_out.match(line))


def find_tool(name: str, url: str, *, search_path: str | None = None) -> Path:
    """The ``pg_dump`` or ``pg_restore`` to use for the server at ``url``: on ``PATH``
    (or ``search_path``), else in a local server's own ``bin`` folder, and at least the
    server's major version; a sentence saying what to install when there is none."""
    server = Server.of(url)
    on_path = shutil.which(name, path=search_path)
    if on_path is None and not server.is_local:
        raise DatabaseError(f"{name} is not installed, so {masked(url)} cannot be backed up "
                            "or restored by Hearth.", CLIENT_HINT)
    major, bindir = _server_facts(server, url)
    candidates = [Path(on_path)] if on_path else []
    if server.is_local and bindir is not None and (bindir / name).is_file():
        candidates.append(bindir / name)
    versions = {tool: tool_major(tool) for tool in candidates}
    for tool, version in versions.items():
        if version >= major:
            return tool
    if versions:
        found = ", ".join(f"{tool} is version {version}" for tool, version in versions.items())
        raise DatabaseError(f"{name} must be version {major} or newer to work with the "
                            f"PostgreSQL {major} server at {masked(url)}, but {found}.",
                            CLIENT_HINT)
    raise DatabaseError(f"{name} is not installed, so {masked(url)} cannot be backed up or "
                        "restored by Hearth.", CLIENT_HINT)


def tool_major(tool: Path) -> int:
    """The major version a client tool reports (``pg_dump (PostgreSQL) 16.2`` → 16)."""
    result = subprocess.run([str(tool), "--version"], capture_output=True, text=True,
                            check=False, env=environment_for_child())
    found = _VERSION.search(result.stdout)
    return int(found.group(1)) if found else 0


def _server_facts(server: Server, url: str) -> tuple[int, Path | None]:
    """The server's major version, and its ``bin`` folder when it will say (the
    ``pg_config`` view is for superusers and members of ``pg_read_all_settings``)."""
    import psycopg

    try:
        with psycopg.connect(server.conninfo, password=server.password,
                             connect_timeout=10) as connection:
            number = connection.info.server_version
            try:
                row = connection.execute(
                    "SELECT setting FROM pg_config WHERE name = 'BINDIR'").fetchone()
            except psycopg.Error:
                row = None
    except psycopg.OperationalError as exc:
        raise DatabaseError(f"The PostgreSQL server at {masked(url)} could not be reached "
                            f"({server.hidden(_last_line(str(exc)))}).",
                            "Check that it runs and that database_url is right.") from exc
    return number // 10000, Path(row[0]) if row and row[0] else None


def _run(server: Server, command: list[str], doing: str) -> None:
    result = subprocess.run(command, env=server.environment(), capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        tool = Path(command[0]).name
        raise DatabaseError(f"{doing} failed: {tool} said "
                            f"{server.hidden(_last_line(result.stderr))!r}.",
                            "Check that the server runs and the user may read (or, to "
                            "restore, replace) every table.")


def _last_line(text: str) -> str:
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "no message"
