"""The few SQL expressions whose spelling differs between SQLite and PostgreSQL, as
SQLAlchemy constructs that compile per dialect (``@compiles``), so the read models in
``core.views`` stay one query for both.

* ``utc_day(column)``: the calendar day of a stored UTC time as ``YYYY-MM-DD`` text
  (SQLite ``date()``, PostgreSQL ``to_char``), for grouping by day.
* ``json_text(column, key)``: a JSON object's top-level ``key`` when it holds text, else
  NULL (a number or an object there names nothing), read in SQL without loading the
  document (SQLite ``json_type``/``json_extract``, PostgreSQL ``json_typeof``/``->>``).
* ``least(a, b)`` / ``greatest(a, b)``: the smaller / larger of two values in a row
  (SQLite's two-argument scalar ``min``/``max``; PostgreSQL has no scalar ``min``, whose
  name there is the aggregate).
* ``advance_id_sequences(connection, tables)``: after rows were inserted with their ids,
  PostgreSQL's ``serial`` sequences are set past the largest id (SQLite needs nothing: an
  ``INTEGER PRIMARY KEY`` takes the largest id plus one).
* ``floor_int(value)``: the largest integer not above ``value`` (a cast of a float to an
  integer truncates on SQLite but rounds on PostgreSQL, which would put 0.99 in bin 1).
* ``import_batch_of(origin)`` / ``of_import_batch(origin, batch)``: the import run a
  memory's ``origin`` names (``origin.import_batch``), and "added by run ``batch``",
  spelled exactly as the expression index ``ix_memories_import_batch`` (migration 0018)
  holds it, so the planners use that index instead of reading every memory's JSON
  (SQLite ``json_extract`` with a literal path, an integer; PostgreSQL ``->>``, text). A
  bound path or a cast would not match the index.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, Dialect, Integer, String, Table, literal, text
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement
from sqlalchemy.types import TypeDecorator, TypeEngine


class utc_day(FunctionElement[str]):  # noqa: N801  (a SQL function reads as one)
    """``utc_day(column)``: see the module docstring."""

    type = String()
    name = "utc_day"
    inherit_cache = True


@compiles(utc_day, "sqlite")
def _utc_day_sqlite(element: utc_day, compiler: SQLCompiler, **kw: Any) -> str:
    return f"date({compiler.process(element.clauses, **kw)})"


@compiles(utc_day, "postgresql")
def _utc_day_postgresql(element: utc_day, compiler: SQLCompiler, **kw: Any) -> str:
    return f"to_char({compiler.process(element.clauses, **kw)}, 'YYYY-MM-DD')"


class _json_text(FunctionElement[str]):  # noqa: N801
    type = String()
    name = "json_text"
    inherit_cache = True


def json_text(column: ColumnElement[Any] | Any, key: str) -> ColumnElement[str]:
    """``column``'s top-level ``key`` when it is a JSON string, else NULL."""
    return _json_text(column, literal(key, String()))


@compiles(_json_text, "sqlite")
def _json_text_sqlite(element: _json_text, compiler: SQLCompiler, **kw: Any) -> str:
    column, key = (compiler.process(clause, **kw) for clause in element.clauses)
    path = f"'$.' || {key}"
    return (f"CASE WHEN json_type({column}, {path}) = 'text' "
            f"THEN json_extract({column}, {path}) END")


@compiles(_json_text, "postgresql")
def _json_text_postgresql(element: _json_text, compiler: SQLCompiler, **kw: Any) -> str:
    column, key = (compiler.process(clause, **kw) for clause in element.clauses)
    document = f"CAST({column} AS JSON)"  # json and jsonb columns alike
    return (f"CASE WHEN json_typeof({document} -> {key}) = 'string' "
            f"THEN {document} ->> {key} END")


class least(FunctionElement[float]):  # noqa: N801
    """``least(a, b)``: see the module docstring."""

    name = "least"
    inherit_cache = True


class greatest(FunctionElement[float]):  # noqa: N801
    """``greatest(a, b)``: see the module docstring."""

    name = "greatest"
    inherit_cache = True


@compiles(least, "sqlite")
def _least_sqlite(element: least, compiler: SQLCompiler, **kw: Any) -> str:
    return f"min({compiler.process(element.clauses, **kw)})"


@compiles(greatest, "sqlite")
def _greatest_sqlite(element: greatest, compiler: SQLCompiler, **kw: Any) -> str:
    return f"max({compiler.process(element.clauses, **kw)})"


@compiles(least, "postgresql")
def _least_postgresql(element: least, compiler: SQLCompiler, **kw: Any) -> str:
    return f"least({compiler.process(element.clauses, **kw)})"


@compiles(greatest, "postgresql")
def _greatest_postgresql(element: greatest, compiler: SQLCompiler, **kw: Any) -> str:
    return f"greatest({compiler.process(element.clauses, **kw)})"


class floor_int(FunctionElement[int]):  # noqa: N801
    """``floor_int(value)``: see the module docstring."""

    type = Integer()
    name = "floor_int"
    inherit_cache = True


@compiles(floor_int, "sqlite")
def _floor_int_sqlite(element: floor_int, compiler: SQLCompiler, **kw: Any) -> str:
    # the values binned are never negative, where truncating and flooring differ;
    # CAST keeps SQLite builds without the math functions working
    return f"CAST({compiler.process(element.clauses, **kw)} AS INTEGER)"


@compiles(floor_int, "postgresql")
def _floor_int_postgresql(element: floor_int, compiler: SQLCompiler, **kw: Any) -> str:
    return f"CAST(floor({compiler.process(element.clauses, **kw)}) AS INTEGER)"


def advance_id_sequences(connection: Connection, tables: Iterable[Table]) -> None:
    """See the module docstring: a table whose ``id`` has no sequence is left alone."""
    if connection.dialect.name != "postgresql":
        return
    for table in tables:
        if "id" not in table.c or not isinstance(table.c.id.type, Integer):
            continue
        connection.execute(text(
            f'SELECT setval(pg_get_serial_sequence(:name, \'id\'), max(id)) '
            f'FROM "{table.name}" HAVING max(id) IS NOT NULL'), {"name": table.name})


IMPORT_BATCH_INDEX = "ix_memories_import_batch"
"""The expression index on ``origin.import_batch`` (built by raw DDL in migration 0018)."""
_IMPORT_BATCH_SQL = {"sqlite": "json_extract(origin, '$.import_batch')",
                     "postgresql": "(origin ->> 'import_batch')"}


def import_batch_index_ddl(dialect: str) -> str:
    """The index as migration 0018 creates it on ``dialect``: the run's number, then the
    list's newest-first order (so a page of one run is read in order, not sorted), for the
    memories that name a run only."""
    key = _IMPORT_BATCH_SQL[dialect]
    return (f"CREATE INDEX {IMPORT_BATCH_INDEX} ON memories ({key}, created_at, id) "
            f"WHERE {key} IS NOT NULL")


class _ImportBatch(TypeDecorator[int]):
    """An import run's number as the indexed expression holds it: an integer on SQLite,
    its digits as text on PostgreSQL (``->>``); Python sees an ``int`` either way, so a
    comparison binds the number in the index's own type."""

    impl = String
    cache_ok = True

    def load_dialect_impl(self, dialect: Dialect) -> TypeEngine[Any]:
        return dialect.type_descriptor(Integer() if dialect.name == "sqlite" else String())

    def process_bind_param(self, value: int | None, dialect: Dialect) -> Any:
        return value if value is None or dialect.name == "sqlite" else str(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


class import_batch_of(FunctionElement[int]):  # noqa: N801
    """``import_batch_of(origin)``: see the module docstring."""

    type = _ImportBatch()
    name = "import_batch_of"
    inherit_cache = True


def of_import_batch(column: ColumnElement[Any] | Any, batch: int) -> ColumnElement[bool]:
    """True for the memories whose ``origin`` (``column``) names the import run ``batch``
    (a plain comparison with the indexed expression, so the planner seeks the index)."""
    return import_batch_of(column) == batch


@compiles(import_batch_of, "sqlite")
def _import_batch_of_sqlite(element: import_batch_of, compiler: SQLCompiler,
                            **kw: Any) -> str:
    return f"json_extract({compiler.process(element.clauses, **kw)}, '$.import_batch')"


@compiles(import_batch_of, "postgresql")
def _import_batch_of_postgresql(element: import_batch_of, compiler: SQLCompiler,
                                **kw: Any) -> str:
    return f"({compiler.process(element.clauses, **kw)} ->> 'import_batch')"
