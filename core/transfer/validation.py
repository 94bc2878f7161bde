"""What both importers share: reading a file, times, and saying what is wrong with it, where.

A transcript and an export are validated whole, with pydantic, before anything is written.
Every problem is reported by its position in the file (``sessions[2].turns[5].text is
missing``, ``tables.user_facts[0].value must be a string``), several at once, in one
sentence; the caller's hint says where the format is described.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, StringConstraints, ValidationError

from core.errors import InvalidInputError
from core.user_input import load_json_file

MAX_PROBLEMS_SHOWN = 5
_NOT_A_TIME = "must be an ISO-8601 date-time string"


Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]
"""A string that is not empty once its surrounding whitespace is removed."""


# --- times ----------------------------------------------------------------------------


def _parse_iso(value: object) -> object:
    """Times must be ISO-8601 strings: pydantic alone would take 17, or "17", as 1970."""
    if isinstance(value, datetime):
        return value
    if not isinstance(value, str):
        raise ValueError(_NOT_A_TIME)
    try:
        return datetime.fromisoformat(value.strip())
    except ValueError as exc:
        raise ValueError(_NOT_A_TIME) from exc


def _in_utc(value: datetime) -> datetime:
    """The same moment in UTC, as it will be stored. A time without an offset is taken as
    UTC (both formats say so), never as local time. ``0001-01-01T00:00:00+14:00`` is a
    valid ISO-8601 string but falls before year 1 in UTC, which no datetime can hold."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    try:
        return value.astimezone(timezone.utc)
    except OverflowError:
        edge = "before year 1" if value.year == 1 else "after year 9999"
        raise ValueError(f"is out of range ({value.isoformat()} is {edge} in UTC)") from None


Moment = Annotated[datetime, BeforeValidator(_parse_iso), AfterValidator(_in_utc)]
"""An ISO-8601 date-time string, checked and converted to UTC."""


# --- reading --------------------------------------------------------------------------


def read_document(source: Path | str | Mapping[str, Any], hint: str) -> Any:
    """A file the user named, parsed (see :func:`core.user_input.load_json_file`), or an
    already-decoded mapping as it is."""
    return source if isinstance(source, Mapping) else load_json_file(Path(source), hint)


# --- problems -------------------------------------------------------------------------


def position(loc: Sequence[int | str], whole: str) -> str:
    """``('sessions', 2, 'turns', 5, 'text')`` → ``sessions[2].turns[5].text``; an empty
    location is ``whole`` (``the transcript``)."""
    if not loc:
        return whole
    parts = [f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc]
    return "".join(parts).lstrip(".")


_PHRASES = {
    "missing": "is missing",
    "extra_forbidden": "is not a column Hearth knows",
    "string_too_short": "is empty",
    "string_type": "must be a string",
    "int_type": "must be a whole number",
    "float_type": "must be a number",
    "finite_number": "must be a finite number",
    "bool_type": "must be true or false",
    "list_type": "must be a list",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "too_short": "must not be empty",
    "less_than_equal": "is too large",
    "greater_than_equal": "is too small",
    "datetime_parsing": "must be an ISO-8601 date-time string",
    "datetime_from_date_parsing": "must be an ISO-8601 date-time string",
    "datetime_type": "must be an ISO-8601 date-time string",
}


def _problem(error: Mapping[str, Any]) -> str:
    phrase = _PHRASES.get(error["type"])
    if phrase:
        return phrase
    if error["type"] == "string_too_long":
        return f"is longer than {error['ctx']['max_length']} characters"
    message = str(error["msg"]).removeprefix("Value error, ")
    if message.startswith(("must", "is ")):
        return message
    return f"is invalid ({message[:1].lower()}{message[1:]})"


def problems_in(error: ValidationError, *, prefix: Sequence[int | str] = (),
                whole: str) -> list[str]:
    """Each of pydantic's errors as ``<position> <problem>``, positions under ``prefix``.

    Unknown fields come first: one usually explains the missing ones (a renamed column).
    """
    errors = sorted(error.errors(), key=lambda e: e["type"] != "extra_forbidden")
    return [f"{position((*prefix, *e['loc']), whole)} {_problem(e)}" for e in errors]


def fail(problems: list[str], what: str, hint: str, *, total: int | None = None) -> None:
    """Raise one :class:`InvalidInputError` listing the first few problems, if any.

    ``total`` is how many there are when only the first few were kept (a file read as a
    stream is not held whole, nor every problem in it).
    """
    if not problems:
        return
    shown = "; ".join(problems[:MAX_PROBLEMS_SHOWN])
    more = (len(problems) if total is None else total) - MAX_PROBLEMS_SHOWN
    suffix = f" (and {more} more)" if more > 0 else ""
    raise InvalidInputError(f"{what} is not valid: {shown}{suffix}.", hint)
