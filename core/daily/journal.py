"""The private journal: entries the user writes, which the nightly reflection reads once.

Entries are never embedded (no vectors, not among recall's indexed kinds): a journal is
read by the reflection and searched by its words, not brought into replies by similarity.
``title`` is made by the model when one is available (None until then). ``unreflected``
hands the reflection the entries it has not read, ``mark_reflected`` stamps them; an entry
edited afterwards is read again. ``week`` is the weekly digest's input: the entries of the
user's last seven local days.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterable
from datetime import date, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from core import clock
from core.daily import checks, when
from core.daily.search import all_words
from core.storage.orm import JournalEntry, utcnow
from core.storage.port import StoragePort
from core.storage.rows import require

MAX_CONTENT = 50_000
MAX_TITLE = 200


def find(session: Session, entry_id: int) -> JournalEntry:
    return require(session, JournalEntry, entry_id, f"There is no journal entry {entry_id}.",
                   "List them with `hearth journal list`.")


class JournalService:
    """Write, change, search and reflect on journal entries."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def add(self, content: str, *, title: str | None = None) -> JournalEntry:
        entry = JournalEntry(content=checks.body(content, "a journal entry", MAX_CONTENT,
                                                 required=True),
                             title=None if title is None else
                             checks.line(title, "a journal entry's title", MAX_TITLE))
        with self._storage.write() as session:
            session.add(entry)
            session.flush()
            return entry

    def get(self, entry_id: int) -> JournalEntry:
        with self._storage.read() as session:
            return find(session, entry_id)

    def edit(self, entry_id: int, *, content: str | None = None,
             title: str | None = None) -> JournalEntry:
        """Change the text or title; a changed text is read by the next reflection again."""
        with self._storage.write() as session:
            entry = find(session, entry_id)
            if content is not None:
                entry.content = checks.body(content, "a journal entry", MAX_CONTENT,
                                            required=True)
                entry.included_in_reflection_at = None
            if title is not None:
                entry.title = checks.line(title, "a journal entry's title", MAX_TITLE)
            entry.updated_at = utcnow()
            return entry

    def delete(self, entry_id: int) -> JournalEntry:
        with self._storage.write() as session:
            entry = find(session, entry_id)
            session.delete(entry)
            return entry

    def list(self, *, limit: int | None = None) -> builtins.list[JournalEntry]:
        """Newest first."""
        query = select(JournalEntry).order_by(JournalEntry.created_at.desc(),
                                              JournalEntry.id.desc()).limit(limit)
        with self._storage.read() as session:
            return builtins.list(session.scalars(query))

    def search(self, query: str) -> builtins.list[JournalEntry]:
        """Entries holding every word of ``query`` in their text or title, newest first."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(JournalEntry).where(
                all_words(query, JournalEntry.content, JournalEntry.title)).order_by(
                JournalEntry.created_at.desc(), JournalEntry.id.desc())))

    def untitled(self, limit: int) -> builtins.list[JournalEntry]:
        """Up to ``limit`` entries without a title, oldest first (the dream titles them)."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(JournalEntry).where(
                JournalEntry.title.is_(None)).order_by(
                JournalEntry.created_at, JournalEntry.id).limit(limit)))

    def set_title_if_untitled(self, entry_id: int, title: str) -> bool:
        """Give the entry the model's ``title`` unless it has one by now (the user's
        wins); False when it had, or the entry is gone."""
        cleaned = checks.line(title, "a journal entry's title", MAX_TITLE)
        with self._storage.write() as session:
            entry = session.get(JournalEntry, entry_id)
            if entry is None or entry.title is not None:
                return False
            entry.title = cleaned
            return True

    def unreflected(self) -> builtins.list[JournalEntry]:
        """Entries the reflection has not read yet, oldest first."""
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(JournalEntry).where(
                JournalEntry.included_in_reflection_at.is_(None)).order_by(
                JournalEntry.created_at, JournalEntry.id)))

    def mark_reflected(self, entry_ids: Iterable[int], at: datetime | None = None) -> int:
        """Stamp the entries the reflection read; returns how many were stamped."""
        at = at or clock.now()
        ids = set(entry_ids)
        with self._storage.write() as session:
            entries = builtins.list(session.scalars(select(JournalEntry).where(
                JournalEntry.id.in_(ids))))
            for entry in entries:
                entry.included_in_reflection_at = at
            return len(entries)

    def week(self, today: date | None = None, zone: str | None = None
             ) -> builtins.list[JournalEntry]:
        """The entries of the last seven local days up to ``today`` (the user's), oldest
        first: what a weekly digest summarises."""
        today = today or when.today(zone)
        start = when.start_of(today - timedelta(days=6), zone)
        end = when.start_of(today + timedelta(days=1), zone)
        with self._storage.read() as session:
            return builtins.list(session.scalars(select(JournalEntry).where(
                JournalEntry.created_at >= start, JournalEntry.created_at < end).order_by(
                JournalEntry.created_at, JournalEntry.id)))
