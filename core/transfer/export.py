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

Before anything is written, the whole file is checked: against the schema (every table
present and known, every row with exactly the exported columns, every value of its column's
type — strictly: ``"7"`` is not an integer, ``1`` is not a boolean — strings within their
column's length, times ISO-8601 within years 1..9999 in UTC, JSON columns of their declared
shape), then for fit (required values, unique values, references), so a damaged file names
the table, row and column and writes nothing. An export written at an older schema revision
may lack the tables and columns that came later (they start empty, or with their defaults);
at this version's revision nothing may be missing.

The rows are then written in short transactions (``core.storage.pacing``), so a chat or
``facts set`` in the same data folder meanwhile waits a fraction of a second, not the length
of the import. An interrupted import is finished by running it again with the same file: a
database holding part of this export's rows and nothing else counts as empty, and only the
missing rows are written (then the missing vectors). One that holds all of them is refused
like any other non-empty database (there is nothing to import; ``hearth reembed`` finishes
the vectors).
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from functools import cache
from pathlib import Path
from typing import Annotated, Any, NotRequired

from pydantic import ConfigDict, Field, Strict, StringConstraints, TypeAdapter, ValidationError
from sqlalchemy import JSON, Column, Table, UniqueConstraint, bindparam, exc, insert, select, update
from sqlalchemy.orm import Session
from typing_extensions import TypedDict

from core.embedding import CancelCheck, Embedder, ProgressCallback
from core.errors import InvalidInputError, translated_os_errors
from core.home.private_files import write_privately
from core.embedding.reembed import backfill_embeddings
from core.storage import former_names
from core.storage.identity import continue_ids_after
from core.storage.orm import Base, UTCDateTime, utcnow
from core.storage.migrate import head_revision
from core.storage.pacing import FIRST_SIZE, WritePacer
from core.storage.port import StoragePort, batched
from core.transfer.validation import Moment, fail, problems_in, read_document

FORMAT = "hearth-export"
VERSION = 1
DERIVED_COLUMNS = frozenset({"embedding_model"})
LOOKUP_BATCH = 500  # ids per IN (...) lookup
EXPORT_HINT = "Choose a file written by `hearth export`."
DAMAGED_HINT = "The file is damaged or was edited by hand; export it again with `hearth export`."
SQLITE_INTEGER = Field(ge=-(2**63), le=2**63 - 1)

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
    """A crash leaves the old file or the new one, never half; the file is the user's alone
    (``core.home.private_files.write_privately``). A full disk or a read-only place is a
    sentence, and leaves no partial file behind."""
    with translated_os_errors(path):
        write_privately(path, lambda handle: json.dump(document, handle, ensure_ascii=False,
                                                       indent=1))


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
    envelope = read_document(path, EXPORT_HINT)
    if not isinstance(envelope, dict) or envelope.get("format") != FORMAT:
        raise InvalidInputError(f"{path} is not a Hearth export.", EXPORT_HINT)
    if envelope.get("version") != VERSION:
        raise InvalidInputError(
            f"{path} is a Hearth export of format version {envelope.get('version')!r}; "
            f"this Hearth reads version {VERSION}.",
            "Import it with the Hearth version that wrote it, or update Hearth.")
    if not isinstance(envelope.get("tables"), dict):
        raise InvalidInputError(f"{path} has no tables.", "The file is damaged or incomplete.")
    return envelope


def _decode_tables(envelope: Mapping[str, Any]) -> dict[str, list[Row]]:
    """Every table checked against the schema (see the module docstring), so that a bad
    file fails before anything is written; rows come back with aware UTC datetimes.

    An export written at an older schema revision lacks what later versions added: there a
    missing table is empty and a missing column takes its default (or none, where the
    column may be empty). At this version's own revision, anything missing is damage. One
    written before four tables took the window's words reads under the new names
    (``core.storage.former_names``)."""
    tables: Mapping[str, Any] = envelope["tables"]
    revision = envelope.get("schema_revision")
    if isinstance(revision, str) and revision < former_names.RENAMED_AT:
        tables = former_names.upgrade_export(tables)
    known = Base.metadata.tables
    for name in tables:
        if name not in known:
            raise InvalidInputError(f"The export has a table {name!r} this Hearth does not know.",
                                    "Import it with the Hearth version that wrote it.")
    older = envelope.get("schema_revision") != head_revision()
    missing = [name for name in known if name not in tables]
    if missing and not older:
        raise InvalidInputError(f"The export has no {', '.join(missing)} table.", DAMAGED_HINT)
    decoded: dict[str, list[Row]] = {}
    problems: list[str] = []
    for name, rows in tables.items():
        try:
            decoded[name] = _rows_adapter(name, older).validate_python(_without_derived(rows))
        except ValidationError as error:
            problems += problems_in(error, prefix=("tables", name), whole="the export")
    fail(problems, "The export", DAMAGED_HINT)
    return decoded


def _without_derived(rows: Any) -> Any:
    """Rows without the columns the importer recomputes (written by older exports)."""
    if not isinstance(rows, list):
        return rows
    return [{key: value for key, value in row.items() if key not in DERIVED_COLUMNS}
            if isinstance(row, dict) else row for row in rows]


@cache
def _rows_adapter(table_name: str, older: bool) -> TypeAdapter[list[Row]]:
    """A validator for a list of ``table_name``'s rows: exactly its exported columns, each
    of its column's type (see :func:`_column_type`); from an ``older`` schema revision, the
    columns that have a default or may be empty may also be absent."""
    table = Base.metadata.tables[table_name]
    fields = {column.name: (NotRequired[_column_type(column)]
                            if older and _may_be_absent(column) else _column_type(column))
              for column in exported_columns(table)}
    row = TypedDict(f"{table_name}_row", fields)  # type: ignore[misc]  # built at run time
    row.__pydantic_config__ = ConfigDict(extra="forbid")  # type: ignore[attr-defined]  # pydantic reads it
    return TypeAdapter(list[row])  # type: ignore[arg-type]  # a row type built at run time


def _may_be_absent(column: Column[Any]) -> bool:
    """A column an insert can leave out: it has a default, or it may be empty."""
    return column.nullable or column.default is not None or column.server_default is not None


def _column_type(column: Column[Any]) -> Any:
    """The JSON a column accepts: its Python type, strictly (``"7"`` is not an integer),
    bounded as the database bounds it; ``None`` only where the column is nullable."""
    if isinstance(column.type, UTCDateTime):
        kind: Any = Moment
    elif isinstance(column.type, JSON):
        kind = _json_shape(column)
    elif column.type.python_type is int:
        kind = Annotated[int, Strict(), SQLITE_INTEGER]
    elif column.type.python_type is float:
        kind = Annotated[float, Strict(), Field(allow_inf_nan=False)]
    elif column.type.python_type is str:
        length = getattr(column.type, "length", None)
        kind = Annotated[str, Strict(), StringConstraints(max_length=length)]
    else:
        kind = Annotated[column.type.python_type, Strict()]
    return kind | None if column.nullable else kind


def _json_shape(column: Column[Any]) -> Any:
    """A JSON column's declared container (``Mapped[list[str]]`` → a list of anything): the
    outer shape is what code reading the row relies on; the inside is the application's."""
    mapper = next(m for m in Base.registry.mappers if m.local_table is column.table)
    declared = typing.get_type_hints(mapper.class_)[mapper.get_property_by_column(column).key]
    (value_type,) = typing.get_args(declared)  # Mapped[X] → X
    is_union = typing.get_origin(value_type) in (typing.Union, types.UnionType)
    shapes = {typing.get_origin(t) for t in (typing.get_args(value_type) if is_union
                                            else (value_type,))}
    if list in shapes:
        return list[Any]
    if dict in shapes:
        return dict[str, Any]
    return Any


def _check_consistency(tables: Mapping[str, list[Row]]) -> None:
    """What the database would refuse half-way through and the schema check cannot see: a
    repeated unique value, a reference to a row the export does not have. Checked before
    anything is written, since the rows are committed in many transactions."""
    referenced = {fk.column for table in Base.metadata.sorted_tables
                  for column in table.columns for fk in column.foreign_keys}
    keys = {(column.table.name, column.name): {row.get(column.name)
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
    """Every reference the row makes points at a row of the export (a null where none is
    allowed was refused by the schema check already)."""
    for column in exported_columns(table):
        value = row.get(column.name)  # absent in an older export: the column's default
        if value is None:
            continue
        for fk in column.foreign_keys:
            if value not in keys[(fk.column.table.name, fk.column.name)]:
                raise _inconsistent(f"{where}.{column.name} refers to {fk.column.table.name} "
                                    f"{value!r}, which the export does not have")


def _check_unique(name: str, columns: tuple[str, ...], rows: list[Row]) -> None:
    seen: set[tuple[Any, ...]] = set()
    for index, row in enumerate(rows):
        value = tuple(row.get(column) for column in columns)
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


def _is_exported(stored: Mapping[Any, Any], wanted: Row, late: Sequence[str]) -> bool:
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
        complete += all(stored[name] == row.get(name) for name in late)
    return complete == len(wanted)


def _restore_table(pacer: WritePacer, table: Table, wanted: Mapping[Any, Row]) -> None:
    """Insert the rows that are not there yet, with their ids, in short transactions (new
    rows written after the import then get ids after them); then fill in the
    self-references."""
    late = _self_references(table)
    pacer.resize_from(FIRST_SIZE)
    for keys in pacer.slices(list(wanted)):
        with pacer.write() as session:
            present = _present(session, table, wanted, keys, late)
            missing = [{**wanted[k], **dict.fromkeys(late)} for k in keys if k not in present]
            if missing:
                _insert(session, table, missing)
    with pacer.write() as session:
        continue_ids_after(session, table)
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
             for row_key, row in wanted.items() if row.get(name) is not None]
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
