"""About you: Hearth's prose portrait of the user, every version kept: read, compare, edit,
restore.

Wraps ``core.knowledge.about_you``; versions come back as ``AboutYouText``, never as rows. A
save that changes nothing (the same text) writes no version, and its ``Changes`` is empty."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.knowledge.about_you import MAX_ABOUT_YOU_WORDS, AboutYouVersionInfo, word_count
from core.operations.changes import NOTHING, Changes, Domain
from core.operations.done import Done
from core.storage.orm import AboutYouVersion

__all__ = ["MAX_ABOUT_YOU_WORDS", "AboutYouText", "AboutYouVersionInfo", "about_you_diff",
           "about_you_version", "about_you_versions", "current_about_you", "restore_about_you",
           "save_about_you", "word_count"]


@dataclass(frozen=True)
class AboutYouText:
    """One version of About you, with its text."""

    id: int
    content: str
    source: str
    created_at: datetime


def _text(row: AboutYouVersion) -> AboutYouText:
    return AboutYouText(row.id, row.content, row.source, row.created_at)


def _saved(row: AboutYouVersion, before: int | None) -> Done[AboutYouText]:
    """A version the save returned: new (the text changed) or the current one again."""
    return Done(_text(row), NOTHING if row.id == before else Changes.of(Domain.ABOUT_YOU))


def about_you_versions(hearth: Hearth) -> tuple[AboutYouVersionInfo, ...]:
    """Every version, newest first (without their text)."""
    return tuple(hearth.about_you.versions())


def about_you_version(hearth: Hearth, version_id: int) -> AboutYouText:
    return _text(hearth.about_you.get(version_id))


def current_about_you(hearth: Hearth) -> AboutYouText | None:
    """The text in use, ``None`` before the first version."""
    current = hearth.about_you.current()
    return _text(current) if current is not None else None


def about_you_diff(hearth: Hearth, older: int, newer: int) -> str:
    """A unified diff from version ``older`` to ``newer`` (empty when equal)."""
    return hearth.about_you.diff(older, newer)


def save_about_you(hearth: Hearth, text: str) -> Done[AboutYouText]:
    """Save the user's text as the new current version."""
    before = hearth.about_you.current_id()
    return _saved(hearth.about_you.save(text, "user"), before)


def restore_about_you(hearth: Hearth, version_id: int) -> Done[AboutYouText]:
    """Make an old version current again (copied into a new version)."""
    before = hearth.about_you.current_id()
    return _saved(hearth.about_you.restore(version_id), before)
