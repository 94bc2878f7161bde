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
is a different feature), preserving ids, in one transaction; then it backfills embeddings
in committed batches, so an interrupted import finishes with ``hearth reembed``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import Column, Table, bindparam, exc, insert, select, update
from sqlalchemy.orm import Session

from core.embedding import CancelCheck, Embedder, ProgressCallback
from core.errors import InvalidInputError, translated_os_errors
from core.reembed import backfill_embeddings
from core.storage.orm import Base, UTCDateTime, utcnow
from core.storage.port import StoragePort

FORMAT = "hearth-export"
VERSION = 1
DERIVED_COLUMNS = frozenset({"embedding_model"})
INSERT_BATCH = 500

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
    """Temp file + fsync + rename: a crash leaves the old file or the new one, never half.
    A full disk or a read-only place is a sentence, and leaves no partial file behind."""
    partial = path.with_name(path.name + ".partial")
    with translated_os_errors(path):
        path.parent.mkdir(parents=True, exist_ok=True)
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
    """Restore an export into an empty database, then re-embed; returns rows per table.

    ``progress``/``cancel`` apply to the re-embedding. The rows are committed before it
    starts, so a cancelled import is complete except for vectors (``hearth reembed``).
    """
    tables = _decode_tables(_read_envelope(path))
    with storage.write() as session:
        _refuse_non_empty(session)
        for table in Base.metadata.sorted_tables:
            _restore_table(session, table, tables.get(table.name, []))
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


def _refuse_non_empty(session: Session) -> None:
    for table in Base.metadata.sorted_tables:
        if session.execute(select(1).select_from(table).limit(1)).first() is not None:
            raise InvalidInputError(
                f"The target database is not empty (table {table.name} has rows).",
                "Import an export into a new data folder (--home), or restore a backup instead.")


def _restore_table(session: Session, table: Table, rows: list[Row]) -> None:
    """Insert rows with their ids. Columns that point into the same table (a supersede
    chain) are filled in a second pass, so no row refers to one not inserted yet."""
    if not rows:
        return
    self_refs = [column.name for column in table.columns
                 if any(fk.column.table is table for fk in column.foreign_keys)]
    first_pass = [{**row, **dict.fromkeys(self_refs)} for row in rows]
    try:
        for start in range(0, len(rows), INSERT_BATCH):
            session.execute(insert(table), first_pass[start:start + INSERT_BATCH])
        for name in self_refs:
            _link_self_references(session, table, name, rows)
    except exc.IntegrityError as error:
        raise InvalidInputError(f"The export's {table.name} rows are inconsistent ({error.orig}).",
                                "The file is damaged or was edited by hand.") from error


def _link_self_references(session: Session, table: Table, name: str, rows: list[Row]) -> None:
    (key,) = table.primary_key.columns
    links = [{"row_key": row[key.name], "target": row[name]}
             for row in rows if row[name] is not None]
    if links:
        statement = (update(table).where(key == bindparam("row_key"))
                     .values({name: bindparam("target")}))
        session.execute(statement, links)
