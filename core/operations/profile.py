"""The profile (Hearth's prose portrait of the user, every version kept) and the scaffold
(its structured notes, one version per change): read, compare, edit, restore.

Wraps ``core.knowledge.profile`` and ``core.knowledge.scaffold``; versions come back as
``ProfileText`` and ``Scaffold``, never as rows. A save that changes nothing (the same text,
the same tree) writes no version, and its ``Changes`` is empty."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from core.app import Hearth
from core.knowledge import scaffold
from core.knowledge.profile import MAX_PROFILE_WORDS, ProfileVersionInfo, word_count
from core.operations.changes import NOTHING, Changes, Domain
from core.operations.done import Done
from core.storage.orm import ProfileVersion, ScaffoldVersion

__all__ = ["MAX_PROFILE_WORDS", "ProfileText", "ProfileVersionInfo", "Scaffold",
           "current_profile", "current_scaffold", "profile_diff", "profile_version",
           "profile_versions", "restore_profile", "save_profile", "save_scaffold",
           "word_count"]


@dataclass(frozen=True)
class ProfileText:
    """One version of the profile, with its text."""

    id: int
    content: str
    source: str
    created_at: datetime


@dataclass(frozen=True)
class Scaffold:
    """One version of the scaffold. ``data`` is this object's own copy of the tree."""

    id: int
    data: dict[str, Any]
    source: str
    created_at: datetime


def _text(row: ProfileVersion) -> ProfileText:
    return ProfileText(row.id, row.content, row.source, row.created_at)


def _scaffold(row: ScaffoldVersion) -> Scaffold:
    return Scaffold(row.id, dict(row.data), row.source, row.created_at)


def _saved(row: ProfileVersion, before: int | None) -> Done[ProfileText]:
    """A version the save returned: new (the profile changed) or the current one again."""
    return Done(_text(row), NOTHING if row.id == before else Changes.of(Domain.PROFILE))


# --- the profile -------------------------------------------------------------------------------


def profile_versions(hearth: Hearth) -> tuple[ProfileVersionInfo, ...]:
    """Every version, newest first (without their text)."""
    return tuple(hearth.profile.versions())


def profile_version(hearth: Hearth, version_id: int) -> ProfileText:
    return _text(hearth.profile.get(version_id))


def current_profile(hearth: Hearth) -> ProfileText | None:
    """The profile in use, ``None`` before the first version."""
    current = hearth.profile.current()
    return _text(current) if current is not None else None


def profile_diff(hearth: Hearth, older: int, newer: int) -> str:
    """A unified diff from version ``older`` to ``newer`` (empty when equal)."""
    return hearth.profile.diff(older, newer)


def save_profile(hearth: Hearth, text: str) -> Done[ProfileText]:
    """Save the user's text as the new current version."""
    before = hearth.profile.current_id()
    return _saved(hearth.profile.save(text, "user"), before)


def restore_profile(hearth: Hearth, version_id: int) -> Done[ProfileText]:
    """Make an old version current again (copied into a new version)."""
    before = hearth.profile.current_id()
    return _saved(hearth.profile.restore(version_id), before)


# --- the scaffold ------------------------------------------------------------------------------


def current_scaffold(hearth: Hearth) -> Scaffold | None:
    """The scaffold in use, ``None`` before the first version."""
    current = scaffold.current_version(hearth.storage)
    return _scaffold(current) if current is not None else None


def save_scaffold(hearth: Hearth, data: dict[str, Any]) -> Done[Scaffold]:
    """Save the user's tree as the new current scaffold version."""
    before = scaffold.current_version(hearth.storage)
    saved = scaffold.save_scaffold(hearth.storage, data, "user")
    unchanged = before is not None and saved.id == before.id
    return Done(_scaffold(saved), NOTHING if unchanged else Changes.of(Domain.PROFILE))
