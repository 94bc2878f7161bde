"""Versioned schema migrations (Alembic), run at start-up on Hearth's own engine.

Alembic is configured in code, not from an ``alembic.ini``: the script folder is the
``migrations`` package next to this file, and the connection is Hearth's, with sqlite-vec
loaded. A database written by a newer Hearth (a revision we do not know) is refused rather
than guessed at.

Opening an up-to-date database (every start but the first after an update) reads the stored
revision with one plain query and compares it with ``HEAD``, without importing Alembic at
all: Alembic's import alone costs a quarter of a second of the window's cold start. A
read-only open cannot migrate, so it only checks (``require_current``).
"""

from __future__ import annotations

from pathlib import Path

from typing import TYPE_CHECKING

from sqlalchemy import Engine, inspect, text

from core.errors import DatabaseError
from core.storage.sql import IMPORT_BATCH_INDEX

if TYPE_CHECKING:
    from alembic.config import Config

MIGRATIONS = Path(__file__).with_name("migrations")
HEAD = "0024"
"""The newest revision in ``migrations/versions``; a test checks it is Alembic's head, so a
new migration cannot be forgotten here."""


def alembic_config() -> Config:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return config


FULLTEXT_COLUMN = "fulltext"
"""PostgreSQL's full-text index: a generated tsvector column of each searchable table, and
its GIN index ``ix_<table>_fulltext`` (migration 0002), which the models do not declare."""


def include_object(obj: object, name: str | None, type_: str, reflected: bool,
                   compare_to: object | None) -> bool:
    """Compare only the ORM's tables with the database: FTS5 and vector tables (and their
    shadow tables), and PostgreSQL's full-text columns, are built by raw DDL in migrations
    or at run time, not by the models."""
    if not reflected or compare_to is not None:
        return True
    if type_ == "table":
        return False
    if type_ == "column":
        return name != FULLTEXT_COLUMN
    if type_ == "index":  # the expression index of migration 0018 is raw DDL too
        return not ((name or "").endswith(f"_{FULLTEXT_COLUMN}")
                    or name == IMPORT_BATCH_INDEX)
    return True


def head_revision() -> str:
    from alembic.script import ScriptDirectory

    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None, "the migrations folder has no revisions"
    return head


def current_revision(engine: Engine) -> str | None:
    from alembic.runtime.migration import MigrationContext

    with engine.connect() as connection:
        return MigrationContext.configure(connection).get_current_revision()


def _stored_revision(engine: Engine) -> str | None:
    """The revision in ``alembic_version`` read with plain SQL (None: a new database)."""
    with engine.connect() as connection:
        if not inspect(connection).has_table("alembic_version"):
            return None
        return connection.execute(text("SELECT version_num FROM alembic_version")).scalar()


def is_known(revision: str) -> bool:
    """Whether ``revision`` is one of this version's (``HEAD`` without importing Alembic)."""
    if revision == HEAD:
        return True
    from alembic.script import ScriptDirectory
    from alembic.util import CommandError

    try:
        return ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        return False


def is_current(engine: Engine) -> bool:
    """True when the schema is at ``HEAD`` (one plain query: no Alembic import)."""
    return _stored_revision(engine) == HEAD


def upgrade(engine: Engine, revision: str = "head", *, writer: Engine | None = None) -> None:
    """Bring the schema to ``revision``; a no-op when it is there already.

    The migration runs in one transaction of ``writer``, the adapter's engine for write
    transactions (``engine`` itself when none is given), so it holds the write lock from
    its first statement (SQLite's ``BEGIN IMMEDIATE``): a deferred one would read the
    schema, then fail at once on its first DDL if another process wrote meanwhile, instead
    of waiting for it. Serialising migrations between processes is the caller's job
    (``SqliteStorage`` holds a lock file)."""
    if revision == "head" and is_current(engine):
        return
    from alembic import command

    current = current_revision(engine)
    if current is not None and not is_known(current):
        raise _written_by_newer_version(current)
    if current == (head_revision() if revision == "head" else revision):
        return
    config = alembic_config()
    with (writer or engine).begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


def require_current(engine: Engine) -> None:
    """Refuse, without writing anything, a database whose schema is not ``HEAD``: for a
    read-only open, which cannot migrate it."""
    stored = _stored_revision(engine)
    if stored == HEAD:
        return
    if stored is not None and not is_known(stored):
        raise _written_by_newer_version(stored)
    raise DatabaseError(
        f"The database is at schema revision {stored or 'none'}, older than this version "
        f"of Hearth ({HEAD}), and it cannot be upgraded while it is read-only.",
        "Make the data folder writable and run any command once (`hearth stats`) to "
        "upgrade it; after that it can be read here read-only.",
    )


def _written_by_newer_version(revision: str) -> DatabaseError:
    return DatabaseError(
        f"The database is at schema revision {revision}, which this version of Hearth "
        "does not know (it was written by a newer version).",
        "Update Hearth, or open a backup made with this version.",
    )
