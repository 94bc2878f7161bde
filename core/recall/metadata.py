"""Type + time questions ("the summary from last night", "what did I note last week").

Such a question names a kind of record and a date, not content, so cosine is the wrong
tool: the words "summary" and "last night" are in no summary. ``parse`` is a small
deterministic parser (no model) that finds a time expression and a kind; only when it finds
both does recall fetch the newest matching rows by metadata and add them (never removing a
hit). Windows are in the user's local time and end no later than ``now``:

* today: midnight .. now; yesterday: the previous calendar day;
* last night: 18:00 yesterday .. 06:00 today;
* this week / this month: since Monday / the 1st; last week / last month: the previous
  calendar week (Monday to Monday) / month; N days ago (digits or one..ten): that day.

Kinds: "summary"/"summaries" (notes titled ``Summary: ...``, how session summaries are
stored), "note(s)"/"noted"/"wrote down" (notes), "memory"/"memories"/"remembered"
(memories).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, time, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.knowledge.notes import SUMMARY_PREFIX
from core.storage.orm import Memory, Note
from core.storage.port import IndexedKind, SearchFilters, SearchIndex

_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
            "eight": 8, "nine": 9, "ten": 10}
_KINDS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\bsummar(?:y|ies)\b"), "summary"),
    (re.compile(r"\bnotes?\b|\bnoted\b|\bwrote down\b|\bjotted\b"), "note"),
    (re.compile(r"\bmemor(?:y|ies)\b|\bremembered\b"), "memory"),
)
_DAYS_AGO = re.compile(r"\b(\d{1,3}|" + "|".join(_NUMBERS) + r") days? ago\b")


@dataclass(frozen=True)
class MetadataQuery:
    """A kind (``summary``, ``note`` or ``memory``) and a local-time window [since, until)."""

    kind: str
    since: datetime
    until: datetime
    phrase: str

    @property
    def indexed_kind(self) -> IndexedKind:
        return IndexedKind.MEMORY if self.kind == "memory" else IndexedKind.NOTE


def parse(text: str, now: datetime) -> MetadataQuery | None:
    """The kind and window named in ``text``, or None unless both are there.

    ``now`` must be timezone-aware; windows are computed in its time zone.
    """
    lowered = " ".join(text.lower().split())
    kind = next((name for pattern, name in _KINDS if pattern.search(lowered)), None)
    window = _window(lowered, now)
    if kind is None or window is None:
        return None
    since, until, phrase = window
    return MetadataQuery(kind, since, min(until, now), phrase)


def _window(text: str, now: datetime) -> tuple[datetime, datetime, str] | None:
    midnight = datetime.combine(now.date(), time(), tzinfo=now.tzinfo)
    day = timedelta(days=1)
    monday = midnight - timedelta(days=now.weekday())
    first = midnight.replace(day=1)
    previous_first = (first - day).replace(day=1)
    if "last night" in text:
        return midnight - timedelta(hours=6), midnight + timedelta(hours=6), "last night"
    if "yesterday" in text:
        return midnight - day, midnight, "yesterday"
    if "today" in text or "this morning" in text:
        return midnight, now, "today"
    if "last week" in text:
        return monday - 7 * day, monday, "last week"
    if "this week" in text:
        return monday, now, "this week"
    if "last month" in text:
        return previous_first, first, "last month"
    if "this month" in text:
        return first, now, "this month"
    match = _DAYS_AGO.search(text)
    if match:
        count = _NUMBERS.get(match.group(1)) or int(match.group(1))
        return midnight - count * day, midnight - (count - 1) * day, match.group(0)
    return None


def fetch(session: Session, index: SearchIndex, query: MetadataQuery, filters: SearchFilters,
          limit: int) -> list[int]:
    """The newest ``limit`` rows of the query's kind in its window that pass ``filters``."""
    if query.kind == "memory":
        statement = select(Memory.id).where(Memory.created_at >= query.since,
                                            Memory.created_at < query.until)
        statement = statement.order_by(Memory.created_at.desc(), Memory.id.desc())
    else:
        statement = select(Note.id).where(Note.created_at >= query.since,
                                          Note.created_at < query.until)
        if query.kind == "summary":
            statement = statement.where(Note.title.startswith(SUMMARY_PREFIX, autoescape=True))
        statement = statement.order_by(Note.created_at.desc(), Note.id.desc())
    candidates = list(session.scalars(statement.limit(limit * 4)))
    allowed = index.matching_ids(session, query.indexed_kind, candidates, filters)
    return [row_id for row_id in candidates if row_id in allowed][:limit]
