"""What every index derived from the database and kept in files beside it shares.

The ANN index of vectors (``core.storage.sqlite.ann``) and the full-text index of terms
(``core.storage.sqlite.text_index``) are built from the tables, never trusted blind: one
change log (``vector_changes``, filled by triggers in the writer's transaction, numbered by
AUTOINCREMENT so it never goes back) says what changed since a file was written; the
database's ``generation`` (new for every copy, ``new_generation``) says whether it is the
database the file was built from; a header renamed into place commits each file; and a
file that disagrees is *stale* until rebuilt. ``IndexState`` is what ``hearth status`` and
the doctor report of each.

The log's ``vectors`` column names the source a change belongs to: a vector table
(``memories_vec``) or, for the text index, a table's full-text index (``memories_fts``).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine
from sqlalchemy import text as sql

from core.storage.durable import sync_folder
from core.storage.write_turns import WRITE_OPTION

log = logging.getLogger(__name__)

CHANGES_TABLE = "vector_changes"
META_TABLE = "vector_index_meta"

ProgressCallback = Callable[[int, int], None]
CancelCheck = Callable[[], bool]
Rebuild = Callable[[ProgressCallback | None, CancelCheck | None], bool]
"""One index's rebuild: ``rebuild(progress, cancel)``, False if cancelled."""
HeaderT = TypeVar("HeaderT")


@dataclass(frozen=True)
class IndexState:
    """What ``status`` reports for one derived index."""

    table: str
    rows: int
    state: str
    """"current", "stale" (built but disagreeing: rebuilt by the next refresh), "missing"
    (large enough to need one, none built yet), "not needed" (below the size from which
    it is used) or "off" (not kept in this data folder)."""
    reason: str = ""


class Stale(Exception):
    """The file does not agree with the rows; the message says how."""


# --- the change log (schema, created with the vector tables) -------------------------------


def _create_log_table(connection: Connection) -> None:
    connection.execute(sql(
        f"CREATE TABLE IF NOT EXISTS {CHANGES_TABLE} (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        f"vectors TEXT NOT NULL, item_id INTEGER NOT NULL)"))
    connection.execute(sql(
        f"CREATE INDEX IF NOT EXISTS {CHANGES_TABLE}_by_table ON {CHANGES_TABLE} "
        f"(vectors, seq)"))


def create_change_log(connection: Connection, tables: Iterable[str]) -> None:
    """The log table, its index by table, and insert/update/delete triggers on ``tables``."""
    _create_log_table(connection)
    for table in tables:
        for event, row in (("INSERT", "new"), ("UPDATE", "new"), ("DELETE", "old")):
            connection.execute(sql(
                f"CREATE TRIGGER IF NOT EXISTS {table}_log_{event.lower()} AFTER {event} "
                f"ON {table} BEGIN INSERT INTO {CHANGES_TABLE} (vectors, item_id) "
                f"VALUES ('{table}', {row}.id); END"))


def create_text_change_log(connection: Connection, table: str, columns: Iterable[str],
                           source: str) -> None:
    """Triggers logging ``table``'s rows under ``source`` when one is added, deleted or
    its text ``columns`` change (not when a counter or a flag does: recall writes those)."""
    _create_log_table(connection)
    changed = f"UPDATE OF {', '.join(columns)}"
    for event, row in (("INSERT", "new"), (changed, "new"), ("DELETE", "old")):
        connection.execute(sql(
            f"CREATE TRIGGER IF NOT EXISTS {source}_log_{event.split()[0].lower()} "
            f"AFTER {event} ON {table} BEGIN INSERT INTO {CHANGES_TABLE} (vectors, item_id) "
            f"VALUES ('{source}', {row}.id); END"))


def change_log_objects(sources: Iterable[str]) -> set[str]:
    """The names ``create_change_log`` (and ``create_text_change_log``) create for
    ``sources`` (to tell whether a database has them)."""
    return {CHANGES_TABLE} | {f"{source}_log_{event}" for source in sources
                              for event in ("insert", "update", "delete")}


def new_generation(dbapi_connection: Any) -> None:
    """Give a copy of a database (a backup) a generation of its own, on its DB-API
    connection: restored later, it is not the database any existing index was built from,
    even where its change log would agree (it may have been written to since)."""
    exists = dbapi_connection.execute(
        f"SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = '{META_TABLE}'"
    ).fetchone()
    if exists:
        dbapi_connection.execute(f"UPDATE {META_TABLE} SET value = ? WHERE key = "
                                 "'generation'", (secrets.token_hex(8),))
        dbapi_connection.commit()


def high_water(connection: Connection) -> int:
    """The last change number ever given (trimming never lowers it)."""
    value = connection.execute(sql("SELECT seq FROM sqlite_sequence WHERE name = :name"),
                               {"name": CHANGES_TABLE}).scalar_one_or_none()
    return int(value or 0)


def trim_log(connection: Connection, source: str, through: int) -> None:
    """Drop ``source``'s log entries up to ``through`` and record how far it was trimmed."""
    connection.execute(sql(f"DELETE FROM {CHANGES_TABLE} WHERE vectors = :table "
                           f"AND seq <= :seq"), {"table": source, "seq": through})
    connection.execute(sql(f"INSERT OR REPLACE INTO {META_TABLE} (key, value) "
                           "VALUES (:key, :value)"),
                       {"key": trimmed_key(source), "value": str(through)})


def trimmed_key(source: str) -> str:
    return f"trimmed:{source}"


def generation(connection: Connection) -> str:
    """The database's generation, which every index file built from it records."""
    value = connection.execute(sql(
        f"SELECT value FROM {META_TABLE} WHERE key = 'generation'")).scalar_one_or_none()
    if value is None:
        raise RuntimeError("the vector tables have no generation; call ensure_dimensions")
    return str(value)


def log_position(connection: Connection, source: str, applied: int) -> tuple[str | None, int,
                                                                             int, int | None]:
    """In one statement (it runs before every search): the generation, how far
    ``source``'s log was trimmed, the high-water mark, and its newest entry after
    ``applied`` (None if there is none)."""
    found, trimmed, water, newest = connection.execute(sql(
        f"SELECT (SELECT value FROM {META_TABLE} WHERE key = 'generation'), "
        f"(SELECT value FROM {META_TABLE} WHERE key = :trimmed), "
        "(SELECT seq FROM sqlite_sequence WHERE name = :changes), "
        f"(SELECT max(seq) FROM {CHANGES_TABLE} WHERE vectors = :table AND seq > :seq)"),
        {"trimmed": trimmed_key(source), "changes": CHANGES_TABLE,
         "table": source, "seq": applied}).one()
    return found, int(trimmed or 0), int(water or 0), newest


def logged_since(connection: Connection, source: str, applied: int) -> tuple[list[int], int]:
    """The distinct ids ``source``'s log names after ``applied``, and its last entry
    (``applied`` if there is none)."""
    rows = connection.execute(sql(
        f"SELECT seq, item_id FROM {CHANGES_TABLE} WHERE vectors = :table AND seq > :seq "
        f"ORDER BY seq"), {"table": source, "seq": applied}).all()
    if not rows:
        return [], applied
    return sorted({int(row[1]) for row in rows}), int(rows[-1][0])


def write_atomically(path: Path, data: bytes) -> None:
    """Write ``data`` to a new private file, flush it to disk, rename it over ``path``."""
    partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
    handle = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.write(handle, data)
        os.fsync(handle)
    finally:
        os.close(handle)
    os.replace(partial, path)
    sync_folder(path.parent)


def read_header(path: Path, kind: type[HeaderT], version: int, what: str) -> HeaderT | None:
    """The header of ``kind`` at ``path``, or None if it is missing, not one of ours or of
    another ``version`` (a warning names ``what`` index it was: it will be rebuilt)."""
    try:
        header = kind(**json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError) as error:
        log.warning("ignoring the %s header %s (%s); it will be rebuilt", what, path, error)
        return None
    return header if getattr(header, "version", None) == version else None


def rebuild_each(todo: Sequence[tuple[IndexState, Rebuild]],
                 progress: ProgressCallback | None, cancel: CancelCheck | None) -> bool:
    """Run each rebuild in turn with one ``progress(done, total)`` over all their rows;
    False as soon as one is cancelled."""
    total = sum(state.rows for state, _ in todo)
    done = 0
    for state, rebuild in todo:
        def step(count: int, _total: int, base: int = done) -> None:
            if progress is not None:
                progress(base + count, max(total, base + count))

        if not rebuild(step, cancel):
            return False
        done += state.rows
    return True


def trim_unindexed(engine: Engine, states: Iterable[IndexState], folder: Path) -> None:
    """Trim the whole log of the sources that need no index and have none (nobody reads
    their entries)."""
    unindexed = [state.table for state in states if state.state == "not needed"
                 and not (folder / f"{state.table}.json").exists()]
    if unindexed:
        with engine.execution_options(**{WRITE_OPTION: True}).begin() as connection:
            through = high_water(connection)
            for source in unindexed:
                trim_log(connection, source, through)


def commit_header(engine: Engine, path: Path, header: Any, source: str, applied: int) -> None:
    """Commit a written index by its header (a dataclass), renamed into place, then trim
    ``source``'s log up to ``applied``, which the index now holds."""
    write_atomically(path, json.dumps(asdict(header)).encode())
    with engine.execution_options(**{WRITE_OPTION: True}).begin() as connection:
        trim_log(connection, source, applied)
