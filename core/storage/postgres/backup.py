"""Backups of a PostgreSQL database with ``pg_dump``, and restoring one with ``pg_restore``.

A backup is ``pg_dump --format=custom`` (one compressed archive, ``hearth-<stamp>.dump`` in
the data folder's ``backups/``), taken in one snapshot while Hearth keeps running, like
SQLite's online backup. Restoring one (``restore``) loads it with ``pg_restore --clean
--if-exists --single-transaction``, every entry but the pgvector extension's (which its
owner, a superuser, enabled): the database's objects are replaced in one transaction, so a
failure leaves the database as it was.

The client tools must be at least as new as the server (an older ``pg_dump`` refuses a
newer server: "aborting because of server version mismatch"). They are looked for on
``PATH``, then, when the server runs on this machine (a Unix socket or a loopback address),
in the server's own ``bin`` folder (its ``pg_config`` BINDIR, which only a superuser or a
member of ``pg_read_all_settings`` may read): the first of version high enough is used.
When there is none, ``ClientToolsError`` names each one found with its version, the
server's version, and the package to install ("pg_dump 15.4 is older than the server
(PostgreSQL 16.2 ...): install postgresql-client-16 ..."). ``hearth doctor``
(``core.storage.postgres.health``) and ``hearth migrate`` into a server run the same check,
so the problem is known before the first dream stops at it. The password never reaches a
command line (where other users could read it) or a message: the tools get it in
``PGPASSWORD``, messages show the URL masked. They never get ``HEARTH_PASSPHRASE``
(``encryption.environment_for_child``).
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
_VERSION = re.compile(r"\(PostgreSQL\)\s+(\d+(?:\.\d+)*)")
WHAT_IT_DOES = {"pg_dump": "back the database up", "pg_restore": "restore a backup"}
_EXTENSION_ENTRY = re.compile(r"^\d+; \d+ \d+ (COMMENT - )?EXTENSION ")
_COMMENT_ON_EXTENSION = re.compile(r"^\d+; \d+ \d+ COMMENT - EXTENSION ")


class ClientToolsError(DatabaseError):
    """No ``pg_dump`` or ``pg_restore`` that can work with the server: none is installed, or
    each one found is older than the server. The hint says what to install."""


@dataclass(frozen=True)
class ClientTool:
    """A client tool found for a server: where it is, the version it reports ("15.4", or
    "" when it reports none Hearth can read) and that version's major number (0: none)."""

    path: Path
    version: str
    major: int


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
        raise ClientToolsError(f"pg_restore is not installed, so {source} cannot be "
                               "checked.", CLIENT_HINT)
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
    server's major version; ``ClientToolsError`` saying what to install when there is none."""
    return usable_tool(name, url, search_path=search_path).path


def usable_tool(name: str, url: str, *, search_path: str | None = None) -> ClientTool:
    """``find_tool``, with the version the tool reports (what ``hearth doctor`` shows)."""
    server = Server.of(url)
    on_path = shutil.which(name, path=search_path)
    if on_path is None and not server.is_local:
        raise ClientToolsError(f"{name} is not installed, so {masked(url)} cannot be backed "
                               "up or restored by Hearth.", CLIENT_HINT)
    number, bindir = _server_facts(server, url)
    major = number // 10000
    candidates = [Path(on_path)] if on_path else []
    if server.is_local and bindir is not None and (bindir / name).is_file():
        candidates.append(bindir / name)
    found = [ClientTool(tool, *tool_version(tool)) for tool in candidates]
    for tool in found:
        if tool.major >= major:
            return tool
    if not found:
        raise ClientToolsError(
            f"{name} is not installed, so {masked(url)} cannot be backed up or restored by "
            "Hearth.", _install_hint(name, major))
    listed = ", ".join(f"{name} {tool.version} ({tool.path})" if tool.version
                       else f"{tool.path} (which reports no version)" for tool in found)
    raise ClientToolsError(
        f"{listed} {'is' if len(found) == 1 else 'are'} older than the server (PostgreSQL "
        f"{_version_words(number)} at {masked(url)}), so Hearth cannot "
        f"{WHAT_IT_DOES.get(name, 'use it')} with {'it' if len(found) == 1 else 'them'}.",
        _install_hint(name, major))


def _install_hint(name: str, major: int) -> str:
    """What to install for a server of version ``major``: the client package of that
    version (Debian's has only its own release's; the PostgreSQL project's apt repository
    has every one), or any ``name`` at least as new, first on ``PATH``."""
    return (f"Install postgresql-client-{major} (Debian and Ubuntu: `sudo apt install "
            f"postgresql-client-{major}`, from the PostgreSQL project's apt repository when "
            f"your release has no such package), or put a {name} of version {major} or "
            "newer first on PATH.")


def tool_version(tool: Path) -> tuple[str, int]:
    """The version a client tool reports and its major number (``pg_dump (PostgreSQL)
    16.2`` → ("16.2", 16); ``9.6.0`` → 9, as the server numbers 9.6 too); ("", 0) when it
    reports none, or cannot run."""
    try:
        result = subprocess.run([str(tool), "--version"], capture_output=True, text=True,
                                check=False, timeout=30, env=environment_for_child())
    except (OSError, subprocess.TimeoutExpired):
        return "", 0
    found = _VERSION.search(result.stdout)
    if found is None:
        return "", 0
    return found.group(1), int(found.group(1).split(".")[0])


def tool_major(tool: Path) -> int:
    """The major version a client tool reports (``pg_dump (PostgreSQL) 16.2`` → 16)."""
    return tool_version(tool)[1]


def _version_words(number: int) -> str:
    """``server_version_num`` as people write it: 160002 → 16.2, 90624 → 9.6.24."""
    major = number // 10000
    if major >= 10:
        return f"{major}.{number % 10000}"
    return f"{major}.{number // 100 % 100}.{number % 100}"


def _server_facts(server: Server, url: str) -> tuple[int, Path | None]:
    """The server's version number (``server_version_num``: 160002 for 16.2), and its
    ``bin`` folder when it will say (the ``pg_config`` view is for superusers and members
    of ``pg_read_all_settings``)."""
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
    return number, Path(row[0]) if row and row[0] else None


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
