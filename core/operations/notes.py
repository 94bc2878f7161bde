"""Notes: list, search, write, edit, pin and delete the user's notes (session summaries
included: they are notes titled "Summary: …").

Wraps ``core.knowledge.notes``; a note comes back as ``NoteItem``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.forgetting.recently_deleted import DeletedItem
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import Note

NOTES = Changes.of(Domain.NOTES)


@dataclass(frozen=True)
class NoteItem:
    """One note. ``edited_at``: when the user last edited it by hand (None: never)."""

    id: int
    title: str
    content: str
    pinned: bool
    session_id: str | None
    edited_at: datetime | None
    created_at: datetime
    updated_at: datetime


def _item(row: Note) -> NoteItem:
    return NoteItem(row.id, row.title, row.content, row.pinned, row.session_id,
                    row.edited_at, row.created_at, row.updated_at)


def list_notes(hearth: Hearth) -> tuple[NoteItem, ...]:
    """Pinned first, then newest first."""
    return tuple(_item(row) for row in hearth.notes.list())


def search(hearth: Hearth, query: str) -> tuple[NoteItem, ...]:
    """Notes matching the words of ``query``, best first."""
    return tuple(_item(row) for row in hearth.notes.search(query))


def add(hearth: Hearth, title: str, content: str) -> Done[NoteItem]:
    return Done(_item(hearth.notes.save(title, content)), NOTES)


def edit(hearth: Hearth, note_id: int, *, title: str | None = None,
         content: str | None = None) -> Done[NoteItem]:
    return Done(_item(hearth.notes.edit(note_id, title=title, content=content)), NOTES)


def pin(hearth: Hearth, note_id: int, pinned: bool = True) -> Done[NoteItem]:
    return Done(_item(hearth.notes.set_pinned(note_id, pinned)), NOTES)


def delete(hearth: Hearth, note_id: int) -> Done[DeletedItem]:
    """Delete it alone; it can be brought back until its undo ends
    (``core.operations.deleted.restore``)."""
    return Done(hearth.deleted.delete_note(note_id), NOTES)
