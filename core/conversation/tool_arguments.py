"""What every chat tool shares: reading a text argument the model sent, and refusing.

Kept apart from ``core.conversation.tools`` so the memory tools and the daily tools
(``core.conversation.daily_tools``) use one definition of each without importing each other.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.errors import InvalidInputError

MAX_ARGUMENT_CHARS = 2000


class ToolRefused(Exception):
    """A tool declines to act (not stored, not confirmed): the model is told why."""

    def __init__(self, result: str, summary: str) -> None:
        super().__init__(result)
        self.result = result
        self.summary = summary


def text_argument(arguments: Mapping[str, Any], name: str, *, required: bool = True,
                  default: str = "") -> str:
    """Argument ``name`` as trimmed text; a sentence the model can act on when it is not
    text, missing (``required``) or longer than ``MAX_ARGUMENT_CHARS``."""
    value = arguments.get(name, default)
    if value is None:
        value = default
    if not isinstance(value, (str, int, float)) or isinstance(value, bool):
        raise InvalidInputError(f"The argument {name!r} must be text.", "Pass a string.")
    text = str(value).strip()
    if required and not text:
        raise InvalidInputError(f"The argument {name!r} is required.", f"Give a {name}.")
    if len(text) > MAX_ARGUMENT_CHARS:
        raise InvalidInputError(f"The argument {name!r} is {len(text)} characters long.",
                                f"Keep it under {MAX_ARGUMENT_CHARS} characters.")
    return text
