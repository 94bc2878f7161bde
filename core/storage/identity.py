"""Generated ids after rows were written with ids of their own (an import).

SQLite's ``INTEGER PRIMARY KEY`` gives a new row the largest id plus one, whatever wrote the
others; PostgreSQL's serial columns take the next id from a sequence that an insert with
explicit ids does not advance, so the next ordinary insert would collide with an imported
row. ``continue_ids_after`` makes both behave like SQLite.
"""

from __future__ import annotations

from sqlalchemy import Integer, Table, func, select
from sqlalchemy.orm import Session


def continue_ids_after(session: Session, table: Table) -> None:
    """Make ``table``'s next generated id follow its largest (nothing to do on SQLite, or
    for a key that is not a generated integer)."""
    (key,) = table.primary_key.columns
    if session.get_bind().dialect.name != "postgresql" or not isinstance(key.type, Integer):
        return
    session.execute(select(func.setval(func.pg_get_serial_sequence(table.name, key.name),
                                       func.coalesce(func.max(key), 0) + 1, False)))
