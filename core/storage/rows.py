"""Loading one row a person named, or saying plainly that it does not exist."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy.orm import Session

from core.errors import NotFoundError

Row = TypeVar("Row")


def require(session: Session, model: type[Row], key: Any, message: str, hint: str) -> Row:
    """``session.get(model, key)``, or ``NotFoundError(message, hint)`` when it is missing."""
    row = session.get(model, key)
    if row is None:
        raise NotFoundError(message, hint)
    return row
