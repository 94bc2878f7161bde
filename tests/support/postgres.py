"""A real PostgreSQL with pgvector for the tests, on loopback with a random password.

One server per test session (per xdist worker): ``PostgresServer.start`` runs ``initdb``
and ``postgres`` from the ``pgserver`` wheel's bundled binaries (PostgreSQL 16 with
pgvector), or from Debian's ``postgresql`` package when its pgvector is installed too. The
server listens on 127.0.0.1 only, on a free port, with no unix socket; ``pg_hba.conf``
admits host 127.0.0.1 with scram-sha-256 and nothing else, and both roles have random
passwords. Durability is switched off (``fsync``, ``synchronous_commit``): a test server's
data never has to survive a crash of the machine.

A test gets a database of its own, cloned from a template that is migrated once and has
the ``vector`` extension (created by the superuser, as on a home server): ``CREATE
DATABASE ... TEMPLATE`` copies files, which is much faster than migrating every time. It
is owned by the unprivileged role ``hearth``, which is what Hearth connects as. The clone
still takes 0.1 s on a quiet machine and half a second or more on a busy one, mostly
waiting for the server to write the copy; so while one test runs, the server is already
making the next test's clone: ``create_database`` sends the next ``CREATE DATABASE`` on a
connection of its own without waiting for the answer (libpq's asynchronous query; no
Python thread, which would run beside the tests), and the next call collects it.

As root (a container), the server runs as the ``pgserver`` system user (PostgreSQL refuses
to run as root), the way ``pgserver`` itself does it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import secrets
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
from psycopg import pq
from sqlalchemy.engine import URL

SERVICE_USER = "pgserver"
"""The system user a server started by root runs as."""
TEMPLATE = "hearth_template"
ROLE = "hearth"
START_ATTEMPTS = 3
"""Another program can take the free port between finding it and the server binding it."""


class ServerUnavailable(Exception):
    """No PostgreSQL with pgvector can be started here; the message says why."""


@dataclass(frozen=True)
class Binaries:
    """A PostgreSQL installation: its ``bin`` folder, and where it came from."""

    bin: Path
    origin: str


def pgserver_binaries() -> Binaries | str:
    """The ``pgserver`` wheel's PostgreSQL, or why it cannot be used."""
    try:
        with quiet_import():
            from pgserver._commands import POSTGRES_BIN_PATH
    except ImportError as error:
        return f"the pgserver package is not installed ({error})"
    extension = POSTGRES_BIN_PATH.parent / "share" / "postgresql" / "extension"
    if not (extension / "vector.control").is_file():
        return f"pgserver's PostgreSQL at {POSTGRES_BIN_PATH} has no pgvector"
    return Binaries(POSTGRES_BIN_PATH, "pgserver")


@contextlib.contextmanager
def quiet_import() -> Iterator[None]:
    """Importing ``pgserver`` sets up its own server class, whose runtime folder lookup
    warns when ``XDG_RUNTIME_DIR`` is unset; we use only its binaries and helpers."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def debian_binaries() -> Binaries | str:
    """Debian's ``postgresql`` package (the newest installed), if it has pgvector."""
    installed = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"),
                       key=lambda path: int(path.parent.parent.name)
                       if path.parent.parent.name.isdigit() else 0)
    if not installed:
        return "Debian's postgresql package is not installed"
    folder = installed[-1].parent
    version = folder.parent.name
    if not Path(f"/usr/share/postgresql/{version}/extension/vector.control").is_file():
        return (f"Debian's PostgreSQL {version} has no pgvector "
                f"(apt-get install postgresql-{version}-pgvector)")
    return Binaries(folder, f"Debian PostgreSQL {version}")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class PostgresServer:
    """A running test server; ``database()`` makes a fresh migrated database for a test."""

    def __init__(self, binaries: Binaries, base: Path, port: int, superuser_password: str,
                 role_password: str, user: str | None) -> None:
        self.binaries = binaries
        self.base = base
        self.port = port
        self._superuser_password = superuser_password
        self._role_password = role_password
        self._user = user
        self._names = itertools.count(1)
        self._spare: tuple[str, pq.PGconn] | None = None

    # --- starting and stopping ---------------------------------------------------------

    @classmethod
    def start(cls) -> PostgresServer:
        """Start a server from the first usable installation, or raise ``ServerUnavailable``
        saying why none could start."""
        reasons = []
        for found in (pgserver_binaries(), debian_binaries()):
            if isinstance(found, str):
                reasons.append(found)
                continue
            try:
                return cls._start_with(found)
            except (OSError, subprocess.SubprocessError, psycopg.Error) as error:
                reasons.append(f"{found.origin} did not start: {error}")
        raise ServerUnavailable("; ".join(reasons))

    @classmethod
    def _start_with(cls, binaries: Binaries) -> PostgresServer:
        user = service_user()
        base = Path(tempfile.mkdtemp(prefix="hearth-postgres-"))
        try:
            if user is not None:
                _make_usable_by(binaries, base, user)
            superuser_password = secrets.token_urlsafe(24)
            password_file = base / "password"
            password_file.write_text(superuser_password + "\n")
            if user is not None:
                shutil.chown(password_file, user)
            _run(user, [binaries.bin / "initdb", "-D", base / "data", "-U", "postgres",
                        f"--pwfile={password_file}", "--auth=scram-sha-256",
                        "--encoding=UTF8", "--locale=C.UTF-8"])
            password_file.unlink()
            (base / "data" / "pg_hba.conf").write_text(
                "# Hearth's test server: loopback only, passwords only\n"
                "host all all 127.0.0.1/32 scram-sha-256\n")
            for attempt in range(START_ATTEMPTS):
                port = free_port()
                try:
                    _run(user, [binaries.bin / "pg_ctl", "-D", base / "data", "-w", "-t", "60",
                                "-l", base / "server.log", "-o", _server_options(port),
                                "start"])
                    break
                except subprocess.CalledProcessError:
                    if attempt == START_ATTEMPTS - 1:
                        raise
            server = cls(binaries, base, port, superuser_password,
                         secrets.token_urlsafe(24), user)
            server._prepare_template()
            return server
        except BaseException as error:
            log = base / "server.log"
            detail = (getattr(error, "stderr", None) or "") + (
                log.read_text()[-2000:] if log.exists() else "")
            _stop(binaries, base, user)
            shutil.rmtree(base, ignore_errors=True)
            if detail and isinstance(error, Exception):
                raise ServerUnavailable(f"{error}: {detail.strip()}") from error
            raise

    def stop(self) -> None:
        if self._spare is not None:  # a clone under way finishes before the server stops
            with contextlib.suppress(psycopg.Error):
                self._collect(self._spare)
        _stop(self.binaries, self.base, self._user)
        shutil.rmtree(self.base, ignore_errors=True)

    # --- databases ---------------------------------------------------------------------

    def url(self, database: str, *, role: str = ROLE, password: str | None = None) -> str:
        """A ``postgresql://`` URL for ``database`` (as the ``hearth`` role by default)."""
        if password is None:
            password = self._role_password if role == ROLE else self._superuser_password
        return URL.create("postgresql", username=role, password=password, host="127.0.0.1",
                          port=self.port, database=database).render_as_string(
                              hide_password=False)

    def superuser_url(self, database: str = "postgres") -> str:
        return self.url(database, role="postgres")

    @contextlib.contextmanager
    def superuser(self, database: str = "postgres") -> Iterator[psycopg.Connection]:
        with psycopg.connect(self.superuser_url(database), autocommit=True) as connection:
            yield connection

    def create_database(self, *, template: str | None = TEMPLATE) -> str:
        """A new database owned by ``hearth`` (a migrated copy of the template unless
        ``template`` is None: then an empty one); returns its name. A copy of the template
        is the one the server cloned ahead, if any (its error, if the clone failed, is
        raised here), and the next clone is started."""
        if template != TEMPLATE:
            name = self._name()
            with self.superuser() as connection:
                connection.execute(self._create_statement(name, template))
            return name
        spare, self._spare = self._spare, None
        if spare is None:
            spare = self._send_clone()
        self._spare = self._send_clone()
        return self._collect(spare)

    def _name(self) -> str:
        return f"hearth_test_{os.getpid()}_{next(self._names)}"

    @staticmethod
    def _create_statement(name: str, template: str | None) -> str:
        clause = f" TEMPLATE {template}" if template else ""
        return f"CREATE DATABASE {name} OWNER {ROLE}{clause}"

    def _send_clone(self) -> tuple[str, pq.PGconn]:
        """Send ``CREATE DATABASE ... TEMPLATE`` on a new connection, without waiting."""
        name = self._name()
        connection = pq.PGconn.connect(self.superuser_url().encode())
        if connection.status != pq.ConnStatus.OK:
            message = connection.get_error_message()
            connection.finish()
            raise psycopg.OperationalError(message)
        try:
            connection.send_query(self._create_statement(name, TEMPLATE).encode())
        except psycopg.Error:
            connection.finish()
            raise
        return name, connection

    @staticmethod
    def _collect(sent: tuple[str, pq.PGconn]) -> str:
        """Wait for a clone sent by ``_send_clone``; its database's name."""
        name, connection = sent
        errors = []
        try:
            while (result := connection.get_result()) is not None:
                if result.status != pq.ExecStatus.COMMAND_OK:
                    errors.append(result.get_error_field(pq.DiagnosticField.MESSAGE_PRIMARY)
                                  or b"CREATE DATABASE failed")
        finally:
            connection.finish()
        if errors:
            raise psycopg.OperationalError(errors[0].decode("utf-8", "replace"))
        return name

    def drop_database(self, name: str) -> None:
        with self.superuser() as connection:
            connection.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def _prepare_template(self) -> None:
        """The role Hearth connects as, and the migrated template every test copies."""
        from core.storage.postgres.adapter import PostgresStorage

        with self.superuser() as connection:
            connection.execute(f"CREATE ROLE {ROLE} LOGIN PASSWORD "
                               f"'{self._role_password}'")
            connection.execute(f"CREATE DATABASE {TEMPLATE} OWNER {ROLE}")
        with self.superuser(TEMPLATE) as connection:
            connection.execute("CREATE EXTENSION vector")
        PostgresStorage(self.url(TEMPLATE)).close()


def service_user() -> str | None:
    """The system user to run the server as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    import pwd

    try:
        pwd.getpwnam(SERVICE_USER)
    except KeyError:
        with quiet_import():
            from pgserver.utils import ensure_user_exists

        ensure_user_exists(SERVICE_USER)
    return SERVICE_USER


def _make_usable_by(binaries: Binaries, base: Path, user: str) -> None:
    """Let ``user`` run the binaries and own the server's folder (``pgserver`` opens the
    installation's folders the same way when it runs as root)."""
    import stat

    with quiet_import():
        from pgserver.utils import ensure_folder_permissions, ensure_prefix_permissions

    if binaries.origin == "pgserver":
        ensure_prefix_permissions(binaries.bin)
        read = stat.S_IRGRP | stat.S_IROTH
        ensure_folder_permissions(binaries.bin, read | stat.S_IXGRP | stat.S_IXOTH)
        ensure_folder_permissions(binaries.bin.parent / "lib", read)
        ensure_folder_permissions(binaries.bin.parent / "share", read)
    shutil.chown(base, user, user)


def _server_options(port: int) -> str:
    return (f"-c listen_addresses=127.0.0.1 -c port={port} -c unix_socket_directories='' "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off "
            "-c max_connections=200")


def _run(user: str | None, command: list[str | Path]) -> None:
    subprocess.run([str(part) for part in command], check=True, capture_output=True,
                   text=True, user=user, timeout=120, cwd="/")


def _stop(binaries: Binaries, base: Path, user: str | None) -> None:
    if (base / "data" / "postmaster.pid").exists():
        with contextlib.suppress(subprocess.SubprocessError):
            _run(user, [binaries.bin / "pg_ctl", "-D", base / "data", "-m", "immediate",
                        "-w", "stop"])
