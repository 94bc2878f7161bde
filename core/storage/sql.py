"""The few SQL expressions whose spelling differs between SQLite and PostgreSQL, as
SQLAlchemy constructs that compile per dialect (``@compiles``), so the read models in
``core.views`` stay one query for both.

* ``utc_day(column)``: the calendar day of a stored UTC time as ``YYYY-MM-DD`` text
  (SQLite ``date()``, PostgreSQL ``to_char``), for grouping by day.
* ``json_text(column, key)``: a JSON object's top-level ``key`` when it holds text, else
  NULL (a number or an object there names nothing), read in SQL without loading the
  document (SQLite ``json_type``/``json_extract``, PostgreSQL ``json_typeof``/``->>``).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import String, literal
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement


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
