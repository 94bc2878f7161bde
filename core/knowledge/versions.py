"""Versioned tiers (About you, Notes about you): each change is one more row, the newest is current,
nothing is overwritten. One helper writes a version so both keep the same rules: a source
name that fits its column, no new row when nothing changed (a run that learned nothing must
not grow the history), and an audit entry naming the new and the previous version."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import InvalidInputError
from core.storage.orm import AuditEntry
from core.storage.port import StoragePort

MAX_SOURCE_LENGTH = 32  # the versions' ``source`` columns are String(32)

class _Row(Protocol):
    id: int


Version = TypeVar("Version", bound=_Row)


def checked_source(source: str, what: str) -> str:
    """``source`` stripped, or a clear error when it is blank or too long for its column."""
    source = source.strip()
    if not source or len(source) > MAX_SOURCE_LENGTH:
        raise InvalidInputError(f"{source!r} is not a {what} source.",
                                f"Use a short name of at most {MAX_SOURCE_LENGTH} characters.")
    return source


def append_version(storage: StoragePort, newest: Callable[[Session], Version | None], *,
                   unchanged: Callable[[Version], bool], make: Callable[[], Version],
                   action: str, actor: str, summary: str) -> Version:
    """Add ``make()`` as the new current version, unless ``unchanged(current)``: then the
    current version is returned and nothing is written. Returned rows are detached."""
    with storage.write() as session:
        current = newest(session)
        if current is not None and unchanged(current):
            session.expunge(current)
            return current
        version = make()
        session.add(version)
        session.flush()
        session.add(AuditEntry(action=action, actor=actor,
                               arguments={"version_id": version.id,
                                          "previous_id": current.id if current else None},
                               result_summary=summary))
        session.flush()
        session.expunge(version)
    return version


def newest_version(session: Session, model: type[Version]) -> Version | None:
    """The current version of a versioned tier (its newest row), or None before the first."""
    mapped: Any = model  # the ORM class: its ``id`` is a column here, not an int
    return session.scalars(select(model).order_by(mapped.id.desc()).limit(1)).first()
