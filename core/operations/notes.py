"""Notes: list, search, write, edit, pin and delete the user's notes (session summaries
included: they are notes titled "Summary: …"), and read the notes imported from a notes
folder (``imported``).

Wraps ``core.knowledge.notes``; a note comes back as ``NoteItem``. An imported note is a
memory (``core.transfer.notes``: search finds it as one), so it comes back as
``ImportedNote``: read here, edited in the notes app it came from (importing the folder
again brings the change)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.forgetting.recently_deleted import DeletedItem
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from sqlalchemy import select

from core.storage.orm import Memory, Note
from core.transfer.note_words import NOTES_SOURCE, note_words

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


@dataclass(frozen=True)
class ImportedNote:
    """A note imported from a notes folder. ``id`` is its memory's; ``text`` its Markdown
    read as words; ``path`` where it is in the folder."""

    id: int
    title: str
    text: str
    path: str
    folder: str
    created_at: datetime


def imported(hearth: Hearth, query: str = "") -> tuple[ImportedNote, ...]:
    """The notes imported from notes folders (their current text, not versions the folder
    has changed since), by title; with ``query``, those whose title or text holds each of
    its words."""
    words = query.casefold().split()
    with hearth.storage.read() as session:
        rows = session.execute(select(Memory.id, Memory.content, Memory.origin,
                                      Memory.created_at)
                               .where(Memory.source == NOTES_SOURCE, Memory.is_valid.is_(True),
                                      Memory.superseded_by.is_(None)))
        found = []
        for row in rows:
            origin = row.origin or {}
            title = str(origin.get("title") or "")
            body = row.content.removeprefix(title).lstrip("\n")
            item = ImportedNote(row.id, title, note_words(body), str(origin.get("path") or ""),
                                str(origin.get("folder") or ""), row.created_at)
            haystack = f"{item.title}\n{item.text}".casefold()
            if all(word in haystack for word in words):
                found.append(item)
    return tuple(sorted(found, key=lambda item: (item.title.casefold(), item.id)))


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
