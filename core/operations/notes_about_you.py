"""Notes about you: the structured notes Hearth keeps about the user (a tree whose keys the
memory processor invents), one version per change: read and edit.

Wraps ``core.knowledge.notes_about_you``; a version comes back as ``NotesAboutYou``, never as
a row. A save of the same tree writes no version, and its ``Changes`` is empty."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.app import Hearth
from core.knowledge import notes_about_you
from core.operations.changes import NOTHING, Changes, Domain
from core.operations.done import Done
from core.storage.orm import NotesAboutYouVersion

__all__ = ["NotesAboutYou", "current_notes_about_you", "save_notes_about_you"]


@dataclass(frozen=True)
class NotesAboutYou:
    """One version of the notes. ``data`` is this object's own copy of the tree."""

    id: int
    data: dict[str, Any]
    source: str
    created_at: datetime


def _notes(row: NotesAboutYouVersion) -> NotesAboutYou:
    return NotesAboutYou(row.id, dict(row.data), row.source, row.created_at)


def current_notes_about_you(hearth: Hearth) -> NotesAboutYou | None:
    """The notes in use, ``None`` before the first version."""
    current = notes_about_you.current_version(hearth.storage)
    return _notes(current) if current is not None else None


def save_notes_about_you(hearth: Hearth, data: dict[str, Any]) -> Done[NotesAboutYou]:
    """Save the user's tree as the new current version."""
    before = notes_about_you.current_version(hearth.storage)
    saved = notes_about_you.save_notes_about_you(hearth.storage, data, "user")
    unchanged = before is not None and saved.id == before.id
    return Done(_notes(saved), NOTHING if unchanged else Changes.of(Domain.ABOUT_YOU))
