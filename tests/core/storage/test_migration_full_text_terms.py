"""Migration 0024 (FTS5 indexes Python's terms): rows written before it are found by their
terms after it, names as names; down makes revision 0002's porter tables again (rebuilt from
the rows) and up again works. SQLite only: PostgreSQL's tsvector columns are unchanged."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from core.storage import migrate
from core.storage.orm import Memory, Note
from core.storage.port import IndexedKind, SearchFilters
from support.migration_steps import downgrade

pytestmark = pytest.mark.sqlite_only("the FTS5 tables are SQLite's")


def found(storage, kind: IndexedKind, query: str) -> list[int]:
    with storage.read() as session:
        return [hit.id for hit in storage.search.text_search(session, kind, query,
                                                             SearchFilters(), 10)]


def fts_definition(storage, table: str) -> str:
    with storage.read() as session:
        return str(session.execute(text("SELECT sql FROM sqlite_master WHERE name = :name"),
                                   {"name": f"{table}_fts"}).scalar_one())


def test_rows_from_before_are_found_by_their_terms_through_up_down_up(storage) -> None:
    downgrade(storage, "0023")
    assert "porter" in fts_definition(storage, "memories")
    with storage.write() as session:
        ines = Memory(content="Ines moved to Porto in May")
        others = [Memory(content=f"a walk in the hills, number {n}") for n in range(5)]
        note = Note(title="Café list", content="the best cafés in Zürich")
        session.add_all([ines, *others, note])
        session.flush()
        ines_id, note_id = ines.id, note.id

    migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
    assert storage.schema_revision() == migrate.head_revision() == "0024"
    assert "contentless_delete=1" in fts_definition(storage, "memories")
    assert found(storage, IndexedKind.MEMORY, "Ines") == [ines_id]  # not every "in" row
    assert found(storage, IndexedKind.MEMORY, "moving") == [ines_id]
    assert found(storage, IndexedKind.NOTE, "zurich cafe") == [note_id]

    downgrade(storage, "0023")
    assert "porter" in fts_definition(storage, "memories")
    assert found(storage, IndexedKind.MEMORY, "moving") == [ines_id]  # rebuilt from the rows
    migrate.upgrade(storage.write_engine(), writer=storage.write_engine())
    with storage.write() as session:
        session.execute(text("DELETE FROM memories WHERE id = :id"), {"id": ines_id})
    assert found(storage, IndexedKind.MEMORY, "Ines Porto") == []
    assert len(found(storage, IndexedKind.MEMORY, "hills")) == 5
