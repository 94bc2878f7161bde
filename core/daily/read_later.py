"""Read later: articles the user keeps for later, with their own note and pasted text.

Hearth fetches nothing: the text is what the user pastes or drops in (a page they saved),
and the summary is made by a model when one is available (``set_summary``). Tags are
extracted from the title and text when the item is added or its text changes
(``core.daily.tags``). The address must be an absolute URL with a scheme, so a later click
opens what was meant. Statuses: ``unread``, ``read``, ``archived``; a delete is the user's.
"""

from __future__ import annotations

import builtins
from urllib.parse import urlsplit

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.daily import checks
from core.daily.search import all_words
from core.daily.tags import extract_tags
from core.errors import InvalidInputError
from core.storage.orm import READ_LATER_STATUSES, ReadLaterItem, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

MAX_URL = 2000
MAX_TITLE = 500
MAX_NOTE = 5000
MAX_TEXT = 1_000_000
"""A pasted article of up to a million characters (a long book chapter) is kept whole;
more is refused, so nothing is cut off without the user knowing."""
MAX_SUMMARY = 5000


def checked_url(url: str) -> str:
    """``url`` trimmed, if it is absolute with a scheme and a place (or a ``file:`` path)."""
    url = url.strip()
    parts = urlsplit(url)
    if not parts.scheme or not (parts.netloc or parts.scheme == "file" and parts.path):
        raise InvalidInputError(f"{url!r} is not a full web address.",
                                "Include the scheme, for example https://example.org/page.")
    if len(url) > MAX_URL or any(char.isspace() for char in url):
        raise InvalidInputError("That web address is too long or has spaces in it.",
                                "Copy it again from the browser's address bar.")
    return url


def find(session: Session, item_id: int) -> ReadLaterItem:
    return require(session, ReadLaterItem, item_id, f"There is no read-later item {item_id}.",
                   "List them with `hearth read-later list`.")


class ReadLaterService:
    """Keep, find and tidy the reading list."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def add(self, url: str, *, title: str = "", note: str = "", text: str = "") -> ReadLaterItem:
        title = checks.line(title, "a read-later title", MAX_TITLE, required=False)
        text = checks.body(text, "the pasted text", MAX_TEXT)
        item = ReadLaterItem(url=checked_url(url), title=title, text=text,
                             note=checks.body(note, "your note", MAX_NOTE),
                             tags=extract_tags(title, text))
        with self._storage.write() as session:
            session.add(item)
            session.flush()
            return item

    def get(self, item_id: int) -> ReadLaterItem:
        with self._storage.read() as session:
            return find(session, item_id)

    def list(self, status: str | None = None) -> builtins.list[ReadLaterItem]:
        """Items (of ``status``), newest first."""
        query = select(ReadLaterItem).order_by(ReadLaterItem.created_at.desc(),
                                               ReadLaterItem.id.desc())
        if status is not None:
            query = query.where(ReadLaterItem.status == checks.one_of(
                status, READ_LATER_STATUSES, "read-later status"))
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))

    def search(self, query: str) -> builtins.list[ReadLaterItem]:
        """Items holding every word of ``query`` in their address, title, note, text,
        summary or tags, newest first."""
        columns = (ReadLaterItem.url, ReadLaterItem.title, ReadLaterItem.note,
                   ReadLaterItem.text, ReadLaterItem.summary, ReadLaterItem.tags)
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(ReadLaterItem).where(
                all_words(query, *columns)).order_by(ReadLaterItem.created_at.desc(),
                                                    ReadLaterItem.id.desc())))

    def edit(self, item_id: int, *, title: str | None = None, note: str | None = None,
             text: str | None = None) -> ReadLaterItem:
        """Change what the user wrote or pasted; tags follow the new title and text."""
        with self._storage.write() as session:
            item = find(session, item_id)
            if title is not None:
                item.title = checks.line(title, "a read-later title", MAX_TITLE,
                                         required=False)
            if note is not None:
                item.note = checks.body(note, "your note", MAX_NOTE)
            if text is not None:
                item.text = checks.body(text, "the pasted text", MAX_TEXT)
            if title is not None or text is not None:
                item.tags = extract_tags(item.title, item.text)
            item.updated_at = utcnow()
            return item

    def set_status(self, item_id: int, status: str) -> ReadLaterItem:
        """Mark it ``read``, ``archived`` or ``unread`` again."""
        with self._storage.write() as session:
            item = find(session, item_id)
            item.status = checks.one_of(status, READ_LATER_STATUSES, "read-later status")
            item.updated_at = utcnow()
            return item

    def set_summary(self, item_id: int, summary: str) -> ReadLaterItem:
        with self._storage.write() as session:
            item = find(session, item_id)
            item.summary = checks.body(summary, "a summary", MAX_SUMMARY, required=True)
            item.updated_at = utcnow()
            return item

    def unsummarised(self, limit: int) -> builtins.list[ReadLaterItem]:
        """Up to ``limit`` items with pasted text and no summary, oldest first (the dream
        sums them up)."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(ReadLaterItem).where(
                ReadLaterItem.summary.is_(None), ReadLaterItem.text != "").order_by(
                ReadLaterItem.created_at, ReadLaterItem.id).limit(limit)))

    def set_summary_if_missing(self, item_id: int, summary: str) -> bool:
        """Store the model's ``summary`` unless the item has one by now; False when it
        had, or the item is gone."""
        cleaned = checks.body(summary, "a summary", MAX_SUMMARY, required=True)
        with self._storage.write() as session:
            item = session.get(ReadLaterItem, item_id)
            if item is None or item.summary is not None:
                return False
            item.summary = cleaned
            return True

    def delete(self, item_id: int) -> ReadLaterItem:
        with self._storage.write() as session:
            item = find(session, item_id)
            session.delete(item)
            return item
