"""How many rows a DELETE or UPDATE run through a ``Session`` touched."""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import CursorResult


def affected(result: object) -> int:
    """The ``rowcount`` of a DML statement's result: ``Session.execute`` is typed to return a
    plain ``Result``, but for a DELETE or UPDATE it is a ``CursorResult``, which has it."""
    return cast("CursorResult[Any]", result).rowcount
