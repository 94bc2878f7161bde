"""Plain text search for the daily tools that have no full-text index: every word of the
query must appear (any case) in one of the columns (JSON ones read as their text). Journal
entries and read-later items are a person's few thousand rows at most, so a scan with
``LIKE`` is fast enough and works the same on both backends."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, Text, and_, cast, false, func, or_

MAX_WORDS = 12


def all_words(query: str, *columns: Any) -> ColumnElement[bool]:
    """A condition true for rows holding every word of ``query`` in some column; false for
    an empty query."""
    words = query.lower().split()[:MAX_WORDS]
    if not words:
        return false()
    texts = [func.lower(func.coalesce(cast(column, Text), "")) for column in columns]
    return and_(*(or_(*(text.contains(word, autoescape=True) for text in texts))
                  for word in words))
