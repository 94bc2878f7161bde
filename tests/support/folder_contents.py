"""A data folder with something in it, and what it holds, for "a failed command loses nothing".

``populate(home)`` gives a folder the state a user would have: facts (one of them keyed
``caf``, which a Latin-1 ``café`` used to be mangled into) and an imported conversation
whose times sit at the very edges a datetime can hold. ``contents(home)`` reads every
table's row count and the facts themselves straight from the database file, read-only,
so a test can compare before and after without going through the code under test.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any

from core.app import Hearth
from core.home.paths import HearthPaths
from core.storage.orm import Base
from core.transfer.transcript import import_transcript

FACTS = {"caf": "the corner one on Rua Nova", "home_city": "Porto"}
TRANSCRIPT = {
    "conversation_id": "edges",
    "participants": ["Maya", "Sam"],
    "sessions": [
        {"session_id": "first", "started_at": "0001-01-01T00:00:00",  # no offset: UTC
         "turns": [{"turn_id": "e1", "speaker": "Maya", "text": "I planted an olive tree."},
                   {"turn_id": "e2", "speaker": "Sam", "text": "It will outlive us."}]},
        {"session_id": "last", "started_at": "9999-12-31T23:59:58Z",
         "turns": [{"turn_id": "e3", "speaker": "Maya", "text": "The tree is still there.",
                    "timestamp": "9999-12-31T23:59:59+00:00"}]},
    ],
}


def populate(home: Path) -> None:
    """Facts and an imported conversation, written through the service API."""
    with Hearth.open(home) as hearth:
        for key, value in FACTS.items():
            hearth.facts.remember(key, value)
        import_transcript(TRANSCRIPT, hearth.storage, hearth.memories)


def contents(home: Path) -> dict[str, Any]:
    """Row counts of every table and the facts' keys and values."""
    database = HearthPaths(home).database
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True)) as db:
        counts = {table.name: db.execute(f'SELECT count(*) FROM "{table.name}"').fetchone()[0]
                  for table in Base.metadata.sorted_tables}
        facts = dict(db.execute("SELECT key, value FROM user_facts").fetchall())
    return {"counts": counts, "facts": facts}
