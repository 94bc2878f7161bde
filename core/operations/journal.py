"""The journal: list, search, write, edit and delete entries; the week's entries, and the
weekly digest (those entries with the model's summary, ``core.daily.journal_digest``).

Wraps ``core.daily.journal``; an entry comes back as ``JournalItem``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from core.app import Hearth
from core.daily import journal_digest
from core.llm.protocol import CancelToken, LLMProvider
from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.storage.orm import JournalEntry

JOURNAL = Changes.of(Domain.JOURNAL)


@dataclass(frozen=True)
class JournalItem:
    """One entry. ``title`` is made by the model (None until then); ``reflected_at``: when
    the nightly reflection read it (None: not yet)."""

    id: int
    content: str
    title: str | None
    reflected_at: datetime | None
    created_at: datetime
    updated_at: datetime


def _item(row: JournalEntry) -> JournalItem:
    return JournalItem(row.id, row.content, row.title, row.included_in_reflection_at,
                       row.created_at, row.updated_at)


def list_entries(hearth: Hearth, limit: int | None = None) -> tuple[JournalItem, ...]:
    """Newest first."""
    return tuple(_item(row) for row in hearth.journal.list(limit=limit))


def search(hearth: Hearth, query: str) -> tuple[JournalItem, ...]:
    return tuple(_item(row) for row in hearth.journal.search(query))


def week(hearth: Hearth, today: date | None = None) -> tuple[JournalItem, ...]:
    """The entries of the user's last seven days, oldest first."""
    return tuple(_item(row) for row in hearth.journal.week(today))


@dataclass(frozen=True)
class WeekDigest:
    """The week's entries, oldest first, and the model's summary of them; ``summary`` is
    None when there is none, and ``why_no_summary`` then says why in a sentence."""

    entries: tuple[JournalItem, ...]
    summary: str | None
    why_no_summary: str | None


def digest(hearth: Hearth, provider: LLMProvider | None, today: date | None = None, *,
           cancel: CancelToken | None = None) -> WeekDigest:
    """The weekly digest: the entries always, the summary when ``provider`` (None: no
    model) gives a usable one. Slow (a model call): run it off the UI thread."""
    rows = hearth.journal.week(today)
    summary = journal_digest.summarise(rows, provider, cancel=cancel)
    return WeekDigest(tuple(_item(row) for row in rows), summary.text, summary.why_not)


def add(hearth: Hearth, content: str, title: str | None = None) -> Done[JournalItem]:
    return Done(_item(hearth.journal.add(content, title=title)), JOURNAL)


def edit(hearth: Hearth, entry_id: int, *, content: str | None = None,
         title: str | None = None) -> Done[JournalItem]:
    return Done(_item(hearth.journal.edit(entry_id, content=content, title=title)), JOURNAL)


def delete(hearth: Hearth, entry_id: int) -> Done[JournalItem]:
    return Done(_item(hearth.journal.delete(entry_id)), JOURNAL)
