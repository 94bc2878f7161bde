"""The PostgreSQL password is a secret: it is kept out of ``settings.json``.

``settings.json`` is the file people open, copy to another computer, paste into a bug
report or keep in a dotfiles repository, so the ``database_url`` it holds never carries a
password. When Hearth saves a URL that does (``hearth migrate --switch``, the window's
Settings → Data, or an older ``settings.json`` found at the next open), the password goes
to one of two places and the URL is saved without it (``keep_password_out``):

* **the system keyring**, when there is one (Secret Service on Linux, the Keychain on
  macOS, the Credential Locker on Windows: a backend of the ``keyring`` package with a
  priority of at least 1, so not keyring's "fail" backend nor a plain-text file backend of
  ``keyrings.alt``). Service ``Hearth``, user name the URL without its password
  (``postgresql://user@host:port/dbname``). The URL in ``settings.json`` then names no
  password at all, and opening the database asks the keyring for one (``with_password``).
* otherwise **a pass file in the data folder**, ``database.pgpass``, readable by the user
  alone (0600), in PostgreSQL's own ``.pgpass`` format (``host:port:*:user:password``), and
  named by the URL with libpq's standard ``passfile`` parameter:
  ``postgresql://user@host:port/dbname?passfile=/path/to/data/database.pgpass``. libpq reads
  it itself, for every connection Hearth makes and for ``pg_dump``/``pg_restore`` alike,
  and only sends the password to the host, port and user the line names. libpq also refuses
  a pass file that others may read; Hearth keeps it private like the rest of the folder
  (``core.home.private_files``). Why this format and not one of Hearth's own: nothing on the
  way to the server has to know about it, it works without a desktop session (a daemon
  started at boot, cron, SSH), and ``psql "$(…database_url…)"`` finds the password too.

A URL that still carries its password (an older ``settings.json`` before its next open,
``HEARTH_DATABASE_URL``, ``hearth migrate --to``) is used as it is: it keeps working.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from sqlalchemy.engine import URL

from core.config.database_url import Backend, backend_of, parsed
from core.errors import HearthError, InvalidInputError
from core.home.private_files import write_privately

KEYRING_SERVICE = "Hearth"
"""The keyring service Hearth keeps its secrets under (also a folder's key: the user name
tells them apart, a folder's path there, a database URL here)."""
PASSFILE = "database.pgpass"
"""The pass file in the data folder, when there is no system keyring."""
PASSFILE_PARAMETER = "passfile"
"""libpq's connection parameter naming a pass file."""
MIN_KEYRING_PRIORITY = 1
"""A backend below this is no system keyring: keyring's "fail" (0) and "null" (-1), and
``keyrings.alt``'s plain-text file (0.5)."""

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Kept:
    """A ``database_url`` made fit for ``settings.json``: ``url`` holds no password, and
    ``place`` says where the password went (None: there was none to keep)."""

    url: str | None
    place: str | None = None


def has_password(url: str | None) -> bool:
    """Whether ``url`` is a PostgreSQL URL that carries its password."""
    return bool(url) and backend_of(url) is Backend.POSTGRESQL and bool(
        parsed(url or "").password)


def keep_password_out(url: str | None, home: Path) -> Kept:
    """``url`` without its password, the password kept in the system keyring or else in
    the data folder's pass file (see the module docstring); a URL without a password (or
    not PostgreSQL's) is returned as it is."""
    if not has_password(url):
        return Kept(url)
    assert url is not None
    parts = parsed(url)
    password = str(parts.password)
    plain = _without_password(parts).difference_update_query([PASSFILE_PARAMETER])
    passfile = home / PASSFILE
    if keyring_usable():
        name = keyring_name(plain)
        try:
            _keyring().set_password(KEYRING_SERVICE, name, password)
        except _keyring_errors() as error:
            log.warning("The system keyring could not keep the database password (%s); it "
                        "goes to %s instead.", error, passfile)
        else:
            passfile.unlink(missing_ok=True)  # an earlier copy, no longer named by the URL
            return Kept(_rendered(plain), f'the system keyring (service "{KEYRING_SERVICE}", '
                                          f'user "{name}")')
    line = pgpass_line(plain, password)

    def write(handle: IO[str]) -> None:
        handle.write("# Hearth's database password (database_url names this file).\n")
        handle.write(line)

    write_privately(passfile, write)
    named = plain.update_query_dict({PASSFILE_PARAMETER: str(passfile.resolve())})
    return Kept(_rendered(named), str(passfile.resolve()))


def with_password(url: str | None, home: Path) -> str | None:
    """The URL to connect with: ``url`` with the password kept for it, when it carries
    none itself. A URL naming a pass file is left to libpq (the data folder's own pass
    file is named instead when the one named is gone: a folder that was moved); else the
    system keyring is asked. Without a kept password, ``url`` is returned as it is (a
    server that needs none, or libpq's own ``~/.pgpass``)."""
    if not url or backend_of(url) is not Backend.POSTGRESQL:
        return url
    parts = parsed(url)
    if parts.password:
        return url
    named = parts.query.get(PASSFILE_PARAMETER)
    if named is not None:
        own = home / PASSFILE
        if (isinstance(named, str) and Path(named).name == PASSFILE
                and not Path(named).exists() and own.is_file()):
            return _rendered(parts.update_query_dict({PASSFILE_PARAMETER: str(own)}))
        return url
    if not keyring_usable():
        return url
    try:
        password = _keyring().get_password(KEYRING_SERVICE, keyring_name(parts))
    except _keyring_errors() as error:
        log.warning("The system keyring could not be read for the database password (%s); "
                    "connecting without one.", error)
        return url
    return _rendered(parts.set(password=password)) if password else url


def as_entered(url: str | None, home: Path) -> str | None:
    """``url`` as a person entered it: with the password kept for it, wherever that is, and
    without the pass file parameter. For a form that shows it masked and saves an edit of
    its host or name with the same password (``core.operations.settings``)."""
    if not url or backend_of(url) is not Backend.POSTGRESQL:
        return url
    parts = parsed(url)
    plain = parts.difference_update_query([PASSFILE_PARAMETER])
    password = parts.password
    if not password and PASSFILE_PARAMETER in parts.query:
        named = parsed(with_password(url, home) or url).query.get(PASSFILE_PARAMETER)
        password = _from_passfile(Path(named), plain) if isinstance(named, str) else None
    elif not password:
        password = parsed(with_password(url, home) or url).password
    return _rendered(plain.set(password=password) if password else plain)


def _from_passfile(passfile: Path, url: URL) -> str | None:
    """The password ``passfile`` holds for the server and user of ``url`` (its first line
    that matches, as libpq reads it), or None."""
    try:
        lines = passfile.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    wanted = _fields(pgpass_line(url, ""))[:4]
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        fields = _fields(line)
        if len(fields) == 5 and all(field in (ANY, want)
                                    for field, want in zip(fields[:4], wanted, strict=True)):
            return fields[4]
    return None


def _fields(line: str) -> list[str]:
    """The fields of a ``.pgpass`` line, unescaped (``\\:`` is a colon, ``\\\\`` a
    backslash); a trailing newline is no part of them."""
    fields: list[str] = []
    current: list[str] = []
    escaped = False
    for character in line.rstrip("\n"):
        if escaped:
            current.append(character)
            escaped = False
        elif character == "\\":
            escaped = True
        elif character == ":" and len(fields) < 4:
            fields.append("".join(current))
            current = []
        else:
            current.append(character)
    fields.append("".join(current))
    return fields


def move_out_of_settings(home: Path) -> Kept | None:
    """Move the password out of a ``database_url`` that ``settings.json`` stores with one
    (written by an older Hearth or by hand); None when there was none. A failure is logged
    and changes nothing: such a URL keeps working."""
    from core.config import save_settings, stored_settings
    from core.home.paths import HearthPaths

    paths = HearthPaths(home)
    try:
        stored = stored_settings(paths).get("database_url")
        if not isinstance(stored, str) or not has_password(stored):
            return None
        kept = keep_password_out(stored, home)
        save_settings(paths, {"database_url": kept.url})
    except (HearthError, OSError, ValueError) as error:
        log.warning("The database password in %s could not be moved out of it (%s); it is "
                    "used from there.", paths.settings_file, error)
        return None
    log.warning("Moved the database password out of %s into %s.", paths.settings_file,
                kept.place)
    return kept


def keyring_name(url: URL) -> str:
    """The keyring user name of the password of ``url``: the URL without its password or
    a pass file, and with the plain ``postgresql`` scheme, however it was spelt."""
    plain = _without_password(url).set(drivername="postgresql").difference_update_query(
        [PASSFILE_PARAMETER])
    return _rendered(plain)


def pgpass_line(url: URL, password: str) -> str:
    """The ``.pgpass`` line for ``password`` on the server of ``url``: its host (a Unix
    socket folder, or ``localhost`` for the default one), its port when the URL names one,
    any database on it (a backup's scratch database too), and its user."""
    if "\n" in password or "\r" in password:
        raise InvalidInputError("The database password holds a line break, which a pass "
                                "file cannot keep.",
                                "Change the password of the database user, or keep the URL "
                                "in HEARTH_DATABASE_URL instead.")
    socket = url.query.get("host")
    if url.host:
        host = _escaped(url.host)
    elif socket is None:
        host = "localhost"  # libpq's default Unix socket
    elif isinstance(socket, str) and "," not in socket:
        host = _escaped(socket)
    else:
        host = ANY  # several hosts: the password is the same user's on each
    port = str(url.port) if url.port else ANY
    user = _escaped(url.username) if url.username else ANY
    return ":".join([host, port, ANY, user, _escaped(password)]) + "\n"


ANY = "*"
"""A ``.pgpass`` field that matches anything."""


def _escaped(field: str) -> str:
    return field.replace("\\", "\\\\").replace(":", "\\:")


def _without_password(url: URL) -> URL:
    """``url`` with no password (``URL.set`` leaves a field it is given None unchanged)."""
    return url._replace(password=None)


def _rendered(url: URL) -> str:
    return url.render_as_string(hide_password=False)


def keyring_usable() -> bool:
    """Whether a system keyring is there to keep a password (``MIN_KEYRING_PRIORITY``)."""
    try:
        backend = _keyring().get_keyring()
        return bool(getattr(backend, "priority", 0) >= MIN_KEYRING_PRIORITY)
    except Exception as error:  # a broken keyring configuration is no keyring
        log.debug("no usable system keyring: %s", error)
        return False


def _keyring() -> Any:
    import keyring

    return keyring


def _keyring_errors() -> tuple[type[BaseException], ...]:
    from keyring.errors import KeyringError

    return (KeyringError,)
