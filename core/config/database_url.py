"""The ``database_url`` setting: which database Hearth keeps its memory in, read and shown
safely.

None (or an empty string) is the embedded default, SQLite in the data folder. A URL names
another: ``sqlite:///path/to/file.db``, or ``postgresql://user:password@host/dbname``
(``postgresql+psycopg://`` too). Its password is never shown: every message, log line and
view prints the URL through ``masked``, which is SQLAlchemy's own rendering with the
password hidden as ``***`` (the mark the audit log uses for secrets,
``core.conversation.audit.REDACTED``).

Nothing here connects or imports a driver: the storage factory (``core.storage.factory``)
does that, once it has checked the URL here.
"""

from __future__ import annotations

import enum
from pathlib import Path

from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError

from core.errors import InvalidInputError

MASK = "***"
URL_HINT = ("Leave database_url empty for the embedded SQLite database, or write "
            "sqlite:///path/to/hearth.db or postgresql://user:password@host/dbname.")


class Backend(str, enum.Enum):
    """The kinds of database Hearth can keep its memory in."""

    SQLITE = "sqlite"
    POSTGRESQL = "postgresql"


def parsed(url: str) -> URL:
    """``url`` as SQLAlchemy reads it; a string that is no URL is an ``InvalidInputError``
    that does not repeat it (it may hold a password)."""
    try:
        return make_url(url)
    except ArgumentError as exc:
        raise InvalidInputError("The database URL is not a URL Hearth can read.",
                                URL_HINT) from exc


def backend_of(url: str | None) -> Backend:
    """Which backend ``url`` names (None or empty: SQLite in the data folder)."""
    if not url:
        return Backend.SQLITE
    name = parsed(url).get_backend_name()
    try:
        return Backend(name)
    except ValueError:
        raise InvalidInputError(
            f"Hearth cannot keep its memory in a {name!r} database; it knows SQLite and "
            "PostgreSQL.", URL_HINT) from None


def masked(url: str | None) -> str:
    """``url`` with its password replaced by ``***``, fit for any message or log; a string
    that is no URL is not shown at all (it could be a password pasted in the wrong field)."""
    if not url:
        return "the embedded SQLite database"
    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return "an unreadable database URL"


def identity(location: str) -> str:
    """Which database ``location`` (a URL, masked or not, or a file) is, for comparing two:
    a PostgreSQL URL as ``postgresql://user@host:port/dbname``, whatever its driver, its
    password and its parameters (a ``passfile``); anything else as it is."""
    try:
        url = make_url(location)
    except ArgumentError:
        return location
    if url.get_backend_name() != Backend.POSTGRESQL.value:
        return location
    return URL.create("postgresql", username=url.username, host=url.host or "localhost",
                      port=url.port or 5432, database=url.database).render_as_string()


def sqlite_file(url: str | None, default: Path) -> Path:
    """The database file a SQLite ``url`` names: ``default`` (the data folder's) when there
    is no URL or it names no file (``sqlite://``)."""
    if not url:
        return default
    database = parsed(url).database
    if not database or database == ":memory:":
        return default
    return Path(database).expanduser().resolve()


def validated(url: str | None) -> str | None:
    """For the setting: None for empty, else ``url`` once its backend is known (the error
    a ``ValueError`` whose sentence pydantic shows next to the field)."""
    if url is None or not url.strip():
        return None
    try:
        backend_of(url.strip())
    except InvalidInputError as exc:
        raise ValueError(exc.message) from None
    return url.strip()
