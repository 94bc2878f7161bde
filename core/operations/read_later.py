"""Read later: list, search, keep, edit, mark and delete saved articles.

Wraps ``core.daily.read_later``; an item comes back as ``ReadLaterEntry``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import ReadLaterItem

READ_LATER = Changes.of(Domain.READ_LATER)


@dataclass(frozen=True)
class ReadLaterEntry:
    """One saved article. ``status``: "unread", "read" or "archived"; ``text``: what the
    user pasted or dropped in; ``summary``: the model's, when one was made."""

    id: int
    url: str
    title: str
    note: str
    text: str
    summary: str | None
    tags: tuple[str, ...]
    status: str
    created_at: datetime
    updated_at: datetime


def _item(row: ReadLaterItem) -> ReadLaterEntry:
    return ReadLaterEntry(row.id, row.url, row.title, row.note, row.text, row.summary,
                     tuple(row.tags), row.status, row.created_at, row.updated_at)


def list_items(hearth: Hearth, status: str | None = None) -> tuple[ReadLaterEntry, ...]:
    """Items (of ``status``), newest first."""
    return tuple(_item(row) for row in hearth.read_later.list(status))


def search(hearth: Hearth, query: str) -> tuple[ReadLaterEntry, ...]:
    return tuple(_item(row) for row in hearth.read_later.search(query))


def add(hearth: Hearth, url: str, *, title: str = "", note: str = "",
        text: str = "") -> Done[ReadLaterEntry]:
    return Done(_item(hearth.read_later.add(url, title=title, note=note, text=text)),
                READ_LATER)


def edit(hearth: Hearth, item_id: int, *, title: str | None = None, note: str | None = None,
         text: str | None = None) -> Done[ReadLaterEntry]:
    return Done(_item(hearth.read_later.edit(item_id, title=title, note=note, text=text)),
                READ_LATER)


def mark(hearth: Hearth, item_id: int, status: str) -> Done[ReadLaterEntry]:
    """Mark it "read", "archived" or "unread"."""
    return Done(_item(hearth.read_later.set_status(item_id, status)), READ_LATER)


def delete(hearth: Hearth, item_id: int) -> Done[ReadLaterEntry]:
    return Done(_item(hearth.read_later.delete(item_id)), READ_LATER)
