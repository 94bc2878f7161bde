"""The text checks every daily tool shares: a one-line title, a longer body, a choice.

Each refuses with one sentence that names the thing ("A task needs a title.") instead of
storing something the user would not recognise; nothing is clipped silently.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.errors import InvalidInputError


def line(value: str, what: str, max_chars: int, *, required: bool = True) -> str:
    """``value`` on one line (runs of whitespace become one space); refused when empty
    (if ``required``) or longer than ``max_chars``. ``what``: "a task's title"."""
    cleaned = " ".join(value.split())
    if required and not cleaned:
        raise InvalidInputError(f"{_capital(what)} cannot be empty.", "Write a few words.")
    if len(cleaned) > max_chars:
        raise InvalidInputError(f"{_capital(what)} is {len(cleaned)} characters long.",
                                f"Keep it under {max_chars} characters.")
    return cleaned


def body(value: str, what: str, max_chars: int, *, required: bool = False) -> str:
    """``value`` with its outer whitespace trimmed (lines kept); refused when empty (if
    ``required``) or longer than ``max_chars``."""
    cleaned = value.strip()
    if required and not cleaned:
        raise InvalidInputError(f"{_capital(what)} cannot be empty.", "Write something.")
    if len(cleaned) > max_chars:
        raise InvalidInputError(
            f"{_capital(what)} is {len(cleaned):,} characters long, more than the "
            f"{max_chars:,} Hearth keeps.", "Shorten it, or keep only the part that matters.")
    return cleaned


def one_of(value: str, choices: Sequence[str], what: str) -> str:
    """``value`` if it is one of ``choices``, else a sentence listing them."""
    if value not in choices:
        raise InvalidInputError(f"{value!r} is not a {what}.",
                                f"Use one of: {', '.join(choices)}.")
    return value


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]
