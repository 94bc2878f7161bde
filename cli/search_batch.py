"""The questions of ``hearth search --batch FILE``: one a line, each asked at its own moment.

A line is either the query itself (as it always was), or a JSON object
``{"query": "...", "as_of": "2025-03-14"}`` for a question asked at a moment
(``core.operations.search.moment_of``); a line starting with ``{`` is read as such an
object. A line's ``as_of`` (null or missing: none) takes the place of the command's
``--as-of``. Blank lines are left out. The whole file is read and checked before the first
question is asked, so a mistake on line 900 costs no half-finished run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from core.errors import InvalidInputError
from core.operations.search import moment_of
from core.user_input import read_text_file

KEYS = frozenset({"query", "as_of"})


@dataclass(frozen=True)
class BatchQuery:
    """One question of a batch file and the moment it is asked at (None: now)."""

    text: str
    as_of: datetime | None


def batch_queries(batch: Path, as_of: datetime | None = None) -> list[BatchQuery]:
    """The questions of ``batch``, each with its moment (``as_of`` unless its line gives
    one), or a sentence naming the first line that is not a question."""
    queries = []
    for number, line in enumerate(read_text_file(batch).splitlines(), start=1):
        text = line.strip()
        if not text:
            continue
        try:
            queries.append(_object(text, as_of) if text.startswith("{")
                           else BatchQuery(text, as_of))
        except InvalidInputError as error:
            raise InvalidInputError(f"Line {number} of {batch}: {error.message}",
                                    error.hint) from error
    return queries


def _object(line: str, as_of: datetime | None) -> BatchQuery:
    example = 'Write it as {"query": "where did I park", "as_of": "2025-03-14"}.'
    try:
        item = json.loads(line)
    except ValueError as error:
        raise InvalidInputError("a line starting with { must be a JSON object.",
                                example) from error
    if not isinstance(item, dict):
        raise InvalidInputError("a line starting with { must be a JSON object.", example)
    unknown = sorted(str(key)[:40] for key in set(item) - KEYS)
    if unknown:
        raise InvalidInputError(f"the object has keys a query does not take: "
                                f"{', '.join(unknown)}.", "It takes: query, as_of.")
    text = item.get("query")
    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError('the object needs a "query" with some text.', example)
    moment = item.get("as_of")
    if moment is not None and not isinstance(moment, str):
        raise InvalidInputError('"as_of" must be a date or a date and time as text, or null.',
                                example)
    return BatchQuery(text.strip(), as_of if moment is None else moment_of(moment))
