"""``hearth export`` / ``hearth import export``: the whole database as one JSON file.

The file is a versioned envelope::

    {"format": "hearth-export", "version": 1, "schema_revision": "0002",
     "exported_at": "2026-11-22T10:00:00+00:00",
     "tables": {"chat_sessions": [{"id": ..., ...}, ...], ...}}

Every table of ``core.storage.orm`` is included, in dependency order, rows by primary key;
datetimes are ISO-8601 UTC and JSON columns stay JSON. Vectors and ``embedding_model`` are
left out: embeddings are derived (the embedder is deterministic), so the importer
re-embeds instead of trusting vectors from a model it may not have. That keeps the file
portable across models and readable by other tools.

Importing restores into an empty database only (merging two histories with overlapping ids
is a different feature), preserving ids; then it backfills embeddings in committed batches.
The whole file is checked first (columns, times, and that its rows fit together: required
values, unique values, references), so a damaged file writes nothing. The rows are then
written in short transactions (``core.storage.pacing``), so a chat or ``facts set`` in the
same data folder meanwhile waits a fraction of a second, not the length of the import. An
interrupted import is finished by running it again with the same file: a database holding
part of this export's rows and nothing else counts as empty, and only the missing rows are
written (then the missing vectors). One that holds all of them is refused like any other
non-empty database (there is nothing to import; ``hearth reembed`` finishes the vectors).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Table, UniqueConstraint, bindparam, exc, insert, select, update
from sqlalchemy.orm import Session

from core.embedding import CancelCheck, Embedder, ProgressCallback
from core.errors import InvalidInputError
from core.reembed import backfill_embeddings
from core.storage.orm import Base, UTCDateTime, utcnow
from core.storage.pacing import FIRST_SIZE, WritePacer
from core.storage.port import StoragePort, batched

FORMAT = "hearth-export"
VERSION = 1
DERIVED_COLUMNS = frozenset({"embedding_model"})
LOOKUP_BATCH = 500  # ids per IN (...) lookup

Row = dict[str, Any]


def exported_columns(table: Table) -> list[Column[Any]]:
    return [column for column in table.columns if column.name not in DERIVED_COLUMNS]


# --- export ----------------------------------------------------------------------------


def export_all(storage: StoragePort, path: Path) -> dict[str, int]:
    """Write every table to ``path`` atomically; returns the row count per table."""
    with storage.read() as session:
        tables = {table.name: _dump_table(session, table) for table in Base.metadata.sorted_tables}
    envelope = {
        "format": FORMAT,
        "version": VERSION,
        "schema_revision": storage.schema_revision(),
        "exported_at": utcnow().isoformat(),
        "tables": tables,
    }
    _write_json_atomically(path, envelope)
    return {name: len(rows) for name, rows in tables.items()}


def _dump_table(session: Session, table: Table) -> list[Row]:
    query = select(*exported_columns(table)).order_by(*table.primary_key.columns)
    return [{key: _to_json(value) for key, value in row.items()}
            for row in session.execute(query).mappings()]


def _to_json(value: Any) -> Any:
    return value.astimezone(timezone.utc).isoformat() if isinstance(value, datetime) else value


def _write_json_atomically(path: Path, document: Any) -> None:
    """Temp file + fsync + rename: a crash leaves the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as handle:
            json.dump(document, handle, ensure_ascii=False, indent=1)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


# --- import ----------------------------------------------------------------------------


def import_export(
    path: Path,
    storage: StoragePort,
    embedder: Embedder,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
) -> dict[str, int]:
    """Restore an export into an empty database (or finish restoring it), then re-embed;
    returns rows per table.

    ``progress``/``cancel`` apply to the re-embedding. The rows are committed before it
    starts, so a cancelled import is complete except for vectors (``hearth reembed``).
    """
    tables = _decode_tables(_read_envelope(path))
    _check_consistency(tables)
    wanted = {table.name: _by_key(table, tables.get(table.name, []))
              for table in Base.metadata.sorted_tables}
    with storage.read() as session:
        restored = [_restored_already(session, table, wanted[table.name])
                    for table in Base.metadata.sorted_tables]
    if all(restored) and any(wanted.values()):
        raise InvalidInputError(
            "The target database is not empty: it already holds everything in this export.",
            "There is nothing to import. If an import of it stopped while re-embedding, "
            "`hearth reembed` finishes it.")
    pacer = WritePacer(storage)
    for table in Base.metadata.sorted_tables:
        _restore_table(pacer, table, wanted[table.name])
    backfill_embeddings(storage, embedder, progress=progress, cancel=cancel)
    return {table.name: len(tables.get(table.name, [])) for table in Base.metadata.sorted_tables}


def _read_envelope(path: Path) -> Mapping[str, Any]:
    try:
        envelope = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InvalidInputError(f"{path} does not exist.", "Check the file name.") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"{path} is not a JSON file ({exc}).",
                                "Choose a file written by `hearth export`.") from exc
    if not isinstance(envelope, dict) or envelope.get("format") != FORMAT:
        raise InvalidInputError(f"{path} is not a Hearth export.",
                                "Choose a file written by `hearth export`.")
    if envelope.get("version") != VERSION:
        raise InvalidInputError(
            f"{path} is a Hearth export of format version {envelope.get('version')!r}; "
            f"this Hearth reads version {VERSION}.",
            "Import it with the Hearth version that wrote it, or update Hearth.")
    if not isinstance(envelope.get("tables"), dict):
        raise InvalidInputError(f"{path} has no tables.", "The file is damaged or incomplete.")
    return envelope


def _decode_tables(envelope: Mapping[str, Any]) -> dict[str, list[Row]]:
    """Check table and column names against the schema and turn ISO strings into datetimes,
    so that a bad file fails before anything is written."""
    known = Base.metadata.tables
    decoded: dict[str, list[Row]] = {}
    for name, rows in envelope["tables"].items():
        if name not in known:
            raise InvalidInputError(f"The export has a table {name!r} this Hearth does not know.",
                                    "Import it with the Hearth version that wrote it.")
        if not isinstance(rows, list):
            raise InvalidInputError(f"tables.{name} is not a list.", "The file is damaged.")
        decoded[name] = [_decode_row(known[name], f"tables.{name}[{i}]", row)
                         for i, row in enumerate(rows)]
    return decoded


def _decode_row(table: Table, where: str, row: Any) -> Row:
    if not isinstance(row, dict):
        raise InvalidInputError(f"{where} is not an object.", "The file is damaged.")
    columns = {column.name: column for column in exported_columns(table)}
    unknown = set(row) - columns.keys() - DERIVED_COLUMNS
    if unknown:
        raise InvalidInputError(f"{where} has unknown columns: {', '.join(sorted(unknown))}.",
                                "Import it with the Hearth version that wrote it.")
    missing = columns.keys() - set(row)
    if missing:
        raise InvalidInputError(f"{where} lacks columns: {', '.join(sorted(missing))}.",
                                "The file is damaged or was edited by hand.")
    return {name: _from_json(columns[name], f"{where}.{name}", row[name]) for name in columns}


def _from_json(column: Column[Any], where: str, value: Any) -> Any:
    if value is None or not isinstance(column.type, UTCDateTime):
        return value
    try:
        moment = datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{where} is not an ISO-8601 time: {value!r}.",
                                "The file is damaged or was edited by hand.") from exc
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _check_consistency(tables: Mapping[str, list[Row]]) -> None:
    """What the database would refuse half-way through: a missing required value, a
    repeated unique value, a reference to a row the export does not have. Checked before
    anything is written, since the rows are committed in many transactions."""
    referenced = {fk.column for table in Base.metadata.sorted_tables
                  for column in table.columns for fk in column.foreign_keys}
    keys = {(column.table.name, column.name): {row[column.name]
                                               for row in tables.get(column.table.name, [])}
            for column in referenced}
    for table in Base.metadata.sorted_tables:
        rows = tables.get(table.name, [])
        for index, row in enumerate(rows):
            _check_row(table, f"tables.{table.name}[{index}]", row, keys)
        for columns in _unique_column_sets(table):
            _check_unique(table.name, columns, rows)


def _check_row(table: Table, where: str, row: Row,
               keys: Mapping[tuple[str, str], set[Any]]) -> None:
    for column in exported_columns(table):
        value = row[column.name]
        if value is None:
            if not column.nullable:
                raise _inconsistent(f"{where}.{column.name} is missing (null)")
            continue
        for fk in column.foreign_keys:
            if value not in keys[(fk.column.table.name, fk.column.name)]:
                raise _inconsistent(f"{where}.{column.name} refers to {fk.column.table.name} "
                                    f"{value!r}, which the export does not have")


def _check_unique(name: str, columns: tuple[str, ...], rows: list[Row]) -> None:
    seen: set[tuple[Any, ...]] = set()
    for index, row in enumerate(rows):
        value = tuple(row[column] for column in columns)
        if None in value:
            continue
        if value in seen:
            raise _inconsistent(f"tables.{name}[{index}] repeats {', '.join(columns)} "
                                f"{value if len(value) > 1 else value[0]!r}")
        seen.add(value)


def _unique_column_sets(table: Table) -> set[tuple[str, ...]]:
    """The primary key and every unique constraint, as column-name tuples."""
    sets = {tuple(column.name for column in table.primary_key.columns)}
    sets |= {(column.name,) for column in table.columns if column.unique}
    sets |= {tuple(column.name for column in constraint.columns)
             for constraint in table.constraints if isinstance(constraint, UniqueConstraint)}
    return sets


def _inconsistent(problem: str) -> InvalidInputError:
    return InvalidInputError(f"The export is inconsistent: {problem}.",
                             "The file is damaged or was edited by hand; nothing was imported.")


def _by_key(table: Table, rows: list[Row]) -> dict[Any, Row]:
    (key,) = table.primary_key.columns
    return {row[key.name]: row for row in rows}


def _self_references(table: Table) -> list[str]:
    """Columns that point into the same table (a supersede chain): restored in a second
    pass, so no row refers to one not inserted yet."""
    return [column.name for column in table.columns
            if any(fk.column.table is table for fk in column.foreign_keys)]


def _is_exported(stored: Mapping[str, Any], wanted: Row, late: Sequence[str]) -> bool:
    """Whether a stored row is the export's own (its ``late`` self-references may still be
    unset, if the import stopped between its two passes)."""
    return all(stored[name] == wanted[name] or (name in late and stored[name] is None)
               for name in wanted)


def _restored_already(session: Session, table: Table, wanted: Mapping[Any, Row]) -> bool:
    """Whether ``table`` holds every row of the export, complete. Only an empty table, or
    one holding rows of this export (an interrupted import of it), may be restored into:
    a row of anything else is refused."""
    (key,) = table.primary_key.columns
    late = _self_references(table)
    complete = 0
    for stored in session.execute(select(*exported_columns(table))).mappings():
        row = wanted.get(stored[key.name])
        if row is None or not _is_exported(stored, row, late):
            raise InvalidInputError(
                f"The target database is not empty (table {table.name} has rows that are "
                "not in this export).",
                "Import an export into a new data folder (--home), or restore a backup instead.")
        complete += all(stored[name] == row[name] for name in late)
    return complete == len(wanted)


def _restore_table(pacer: WritePacer, table: Table, wanted: Mapping[Any, Row]) -> None:
    """Insert the rows that are not there yet, with their ids, in short transactions; then
    fill in the self-references."""
    late = _self_references(table)
    pacer.resize_from(FIRST_SIZE)
    for keys in pacer.slices(list(wanted)):
        with pacer.write() as session:
            present = _present(session, table, wanted, keys, late)
            missing = [{**wanted[k], **dict.fromkeys(late)} for k in keys if k not in present]
            if missing:
                _insert(session, table, missing)
    for name in late:
        _link_self_references(pacer, table, name, wanted)


def _present(session: Session, table: Table, wanted: Mapping[Any, Row],
             keys: Sequence[Any], late: Sequence[str]) -> set[Any]:
    """Which of ``keys`` are stored already (by an interrupted run of this import). A row
    someone else wrote there since the import started stops it: the export would overwrite
    it, and merging two histories is not what an import does."""
    (key,) = table.primary_key.columns
    found: set[Any] = set()
    for chunk in batched(list(keys), LOOKUP_BATCH):
        for stored in session.execute(select(*exported_columns(table))
                                      .where(key.in_(chunk))).mappings():
            if not _is_exported(stored, wanted[stored[key.name]], late):
                raise InvalidInputError(
                    f"Something else wrote to the database during the import (table "
                    f"{table.name}, id {stored[key.name]!r}); the import stopped there.",
                    "Import the export into a new data folder (--home) that nothing else "
                    "uses meanwhile.")
            found.add(stored[key.name])
    return found


def _link_self_references(pacer: WritePacer, table: Table, name: str,
                          wanted: Mapping[Any, Row]) -> None:
    (key,) = table.primary_key.columns
    links = [{"row_key": row_key, "target": row[name]}
             for row_key, row in wanted.items() if row[name] is not None]
    statement = (update(table).where(key == bindparam("row_key"))
                 .values({name: bindparam("target")}))
    pacer.resize_from(FIRST_SIZE)
    for piece in pacer.slices(links):
        with pacer.write() as session:
            session.execute(statement, list(piece))


def _insert(session: Session, table: Table, rows: list[Row]) -> None:
    try:
        session.execute(insert(table), rows)
    except exc.IntegrityError as error:
        raise InvalidInputError(
            f"The export's {table.name} rows are inconsistent ({error.orig}); the rows "
            "before them were imported.",
            "The file is damaged or was edited by hand: import a sound export into a new "
            "data folder (--home).") from error
