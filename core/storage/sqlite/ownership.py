"""Whether a SQLite file is Hearth's: a database Hearth may open, migrate and write, or a
backup it may restore.

Any SQLite file in the database's place would otherwise be taken for an old Hearth
database: migrated (Hearth's tables added beside its own) and switched to WAL, changing
another program's file. So before the first connection that may write, and before a
restore copies anything, the file's tables are read (read-only) and compared with Hearth's:

* no table at all: a new database, which the first open migrates;
* Alembic's ``alembic_version`` with a revision, the tables of Hearth's first schema, and no
  table Hearth does not make: Hearth's;
* the same at a revision this version does not know: a newer Hearth's, whatever other
  tables that version made;
* anything else: another program's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import Any

from core.errors import DatabaseError
from core.storage import former_names, migrate, orm
from core.storage.search_base import META_TABLE
from core.storage.sqlite.derived import CHANGES_TABLE
from core.storage.sqlite.engine import (
    connect_file,
    read_only_parameters,
    sqlite_uri,
    translated_errors,
)
from core.storage.sqlite.search import KINDS

VERSION_TABLE = "alembic_version"
FIRST_SCHEMA = frozenset({
    "interactions", "chat_sessions", "user_facts", "fact_history", "profile_versions",
    "scaffold_versions", "working_memory_versions", "notes", "memories", "memory_edges",
    "context_events", "agent_learnings", "pending_intentions", "audit_log", "runs",
})
"""What migration 0001 makes: every Hearth database, of any version, has these (four of
them under their later names from revision 0023: ``former_names.TABLES``)."""
MADE_ELSEWHERE = frozenset({
    "link_changes", "link_state",  # migration 0014, as raw SQL (core.consolidation.link_log)
    "apscheduler_jobs",  # the scheduler's job store (core.scheduling.JOBSTORE_TABLE)
    "hearth_copy_unfinished",  # a copy cut short (core.storage.transfer.MARKER)
    "change_log",  # migration 0021 (core.storage.change_log)
})
"""Tables Hearth makes that neither the models nor the search index declare."""
FTS5_SHADOWS = ("data", "idx", "docsize", "config")
"""FTS5's own tables beside each index (no ``content`` one: Hearth's indexes read their text
from the table they index)."""


class Owner(str, Enum):
    """Whose a database is (see the module docstring)."""

    NEW = "new"
    HEARTH = "hearth"
    NEWER_HEARTH = "newer hearth"
    OTHER = "other"


@dataclass(frozen=True)
class Ownership:
    """Whose a database is, its schema revision (if it has one), and the tables in it that
    this version of Hearth does not make."""

    owner: Owner
    revision: str | None = None
    unknown: tuple[str, ...] = ()

    @property
    def reason(self) -> str:
        """Why it is not Hearth's, in a few words."""
        if self.unknown:
            shown = ", ".join(self.unknown[:3])
            more = f" and {len(self.unknown) - 3} more" if len(self.unknown) > 3 else ""
            return f"it holds tables Hearth does not make: {shown}{more}"
        return "it has no record of Hearth's schema"


def hearth_tables() -> frozenset[str]:
    """Every table a database this version of Hearth opens may hold (an older one's former
    names too: it is migrated as it opens)."""
    search = {name for spec in KINDS.values()
              for name in (spec.vectors, spec.bits, spec.chunks, spec.fts,
                           *(f"{spec.fts}_{shadow}" for shadow in FTS5_SHADOWS))}
    return frozenset({*orm.Base.metadata.tables, *search, *MADE_ELSEWHERE, META_TABLE,
                      CHANGES_TABLE, VERSION_TABLE, *former_names.TABLES})


def ownership(connection: Any) -> Ownership:
    """Whose the database on the DB-API ``connection`` is (see the module docstring)."""
    tables = {name for (name,) in connection.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table'") if not name.startswith("sqlite_")}
    if not tables:
        return Ownership(Owner.NEW)
    unknown = tuple(sorted(tables - hearth_tables()))
    known_as_first = tables | {old for old, new in former_names.TABLES.items()
                              if new in tables}
    if VERSION_TABLE not in tables or not FIRST_SCHEMA <= known_as_first:
        return Ownership(Owner.OTHER, unknown=unknown)
    row = connection.execute(f"SELECT version_num FROM {VERSION_TABLE}").fetchone()
    if row is None:
        return Ownership(Owner.OTHER, unknown=unknown)
    if not migrate.is_known(row[0]):
        return Ownership(Owner.NEWER_HEARTH, row[0])
    return Ownership(Owner.OTHER if unknown else Owner.HEARTH, row[0], unknown)


def refuse_another_programs(path: Path) -> None:
    """Refuse, without writing anything, to open a database at ``path`` that is another
    program's (a newer Hearth's is refused by ``migrate``, with its own sentence)."""
    if not path.is_file() or path.stat().st_size == 0:
        return
    with translated_errors(path):
        connection = connect_file(path, sqlite_uri(path, **read_only_parameters(path)),
                                  uri=True)
        try:
            found = ownership(connection)
        finally:
            connection.close()
    if found.owner is Owner.OTHER:
        raise DatabaseError(
            f"{path} is not a Hearth database ({found.reason}), so Hearth leaves it as it is.",
            "Move it out of the data folder to start a new database there, or choose another "
            "data folder with --home.")
