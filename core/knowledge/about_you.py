"""The narrative profile: versions that are never deleted, diffs between them, restores.

The profile is the reflection's prose picture of the user: six sections, at most
550 words, rewritten nightly. Because a rewrite by a weak model can lose things, every
version is kept: the newest row of ``about_you_versions`` is the current profile, an edit by the
user or a reflection adds a row, and a restore adds a row *copying* an old one (source
``"restore"``), so even a restore can be undone and the history reads as it happened.

The shape rules (which sections, how many words) live here too, because a profile written
by the user and one written by a model are the same thing; the reflection applies them to
what a model wrote (a user's own edit is saved as the user wrote it).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import InvalidInputError
from core.storage.orm import AboutYouVersion
from core.storage.port import StoragePort
from core.storage.rows import require
from core.knowledge.versions import append_version, checked_source

PROFILE_SECTIONS: tuple[str, ...] = ("Personal", "Goals & Values", "Communication Style",
                                     "Patterns & Rhythms", "Preferences", "Notes")
MAX_ABOUT_YOU_WORDS = 550
TRUNCATION_MARK = "…"

_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*(?P<title>.+?)\s*#*\s*$")


def _section_key(title: str) -> str:
    """``"Goals and values:"`` and ``"**Goals & Values**"`` name the same section."""
    return re.sub(r"[\W_]+", " ", title.casefold().replace("&", " and ")).strip()


_SECTION_KEYS = {_section_key(name): name for name in PROFILE_SECTIONS}


def section_of(line: str) -> str | None:
    """The canonical section a Markdown heading line names, else ``None``."""
    match = _HEADING.match(line)
    return _SECTION_KEYS.get(_section_key(match.group("title"))) if match else None


def sections_present(text: str) -> set[str]:
    """Which of the six sections ``text`` has a heading for."""
    return {name for line in text.splitlines() if (name := section_of(line)) is not None}


def word_count(text: str) -> int:
    """Words of prose: heading lines are structure, not content, and are not counted."""
    return sum(len(line.split()) for line in text.splitlines() if not _HEADING.match(line))


def cap_words(text: str, limit: int = MAX_ABOUT_YOU_WORDS) -> tuple[str, bool]:
    """Fit ``text`` into ``limit`` words, cutting each block proportionally to its size.

    Cutting (rather than rejecting the whole rewrite) keeps the new information a model
    found; cutting every section by the same share keeps all six sections instead of losing
    the last ones, as a plain cut at the end would. A cut line ends with an ellipsis so a
    reader sees it was shortened. Returns the text and whether anything was cut.
    """
    total = word_count(text)
    if total <= limit:
        return text, False
    blocks: list[list[str]] = [[]]  # the lines before the first heading, then one per heading
    for line in text.splitlines():
        if _HEADING.match(line):
            blocks.append([])
        blocks[-1].append(line)
    kept: list[str] = []
    for block in blocks:
        budget = word_count("\n".join(block)) * limit // total
        for line in block:
            if _HEADING.match(line):
                kept.append(line)
                continue
            words = line.split()
            if len(words) <= budget:
                kept.append(line)
                budget -= len(words)
            elif budget > 0:
                indent = line[:len(line) - len(line.lstrip())]
                kept.append(indent + " ".join(words[:budget]) + TRUNCATION_MARK)
                budget = 0
    return "\n".join(kept).strip(), True


def unified_diff(old: str, new: str, old_label: str, new_label: str) -> str:
    """A unified diff of two profile texts (empty when equal); every line ends in a
    newline, so the last line of a text never runs into a marker."""
    return "".join(difflib.unified_diff(
        [line + "\n" for line in old.splitlines()], [line + "\n" for line in new.splitlines()],
        fromfile=old_label, tofile=new_label))


@dataclass(frozen=True)
class AboutYouVersionInfo:
    """A version as shown in a history list (without its full content)."""

    id: int
    source: str
    run_id: int | None
    words: int
    created_at: datetime


class AboutYouService:
    """Read, save, compare and restore profile versions; nothing is ever deleted."""

    def __init__(self, storage: StoragePort) -> None:
        self._storage = storage

    def current(self) -> AboutYouVersion | None:
        """The newest version (the profile in use), ``None`` before the first one."""
        with self._storage.read() as session:
            version = self._current(session)
            session.expunge_all()
        return version

    def current_id(self) -> int | None:
        """The id of the profile in use, ``None`` before the first version."""
        current = self.current()
        return None if current is None else current.id

    def versions(self) -> list[AboutYouVersionInfo]:
        """Every version, newest first."""
        with self._storage.read() as session:
            rows = session.scalars(select(AboutYouVersion).order_by(
                AboutYouVersion.created_at.desc(), AboutYouVersion.id.desc())).all()
            return [AboutYouVersionInfo(row.id, row.source, row.run_id,
                                       word_count(row.content), row.created_at)
                    for row in rows]

    def get(self, version_id: int) -> AboutYouVersion:
        with self._storage.read() as session:
            version = require(session, AboutYouVersion, version_id,
                              f"There is no version {version_id} of About you.",
                              "List the versions with `hearth about-you --history`.")
            session.expunge(version)
        return version

    def diff(self, a: int, b: int) -> str:
        """A unified diff from version ``a`` to version ``b`` (empty when they are equal)."""
        return unified_diff(self.get(a).content, self.get(b).content,
                            f"About you v{a}", f"About you v{b}")

    def save(self, content: str, source: str, run_id: int | None = None) -> AboutYouVersion:
        """Add ``content`` as the new current version, unless it equals the current one
        (then the current version is returned and nothing is written: a reflection that
        learned nothing must not grow the history)."""
        content = content.strip()
        if not content:
            raise InvalidInputError("About you cannot be empty.",
                                    "Write at least one section, or restore an old version.")
        source = checked_source(source, "profile")
        return append_version(
            self._storage, self._current, unchanged=lambda current: current.content == content,
            make=lambda: AboutYouVersion(content=content, source=source, run_id=run_id),
            action="about_you.save", actor=source, summary=f"{word_count(content)} words")

    def restore(self, version_id: int) -> AboutYouVersion:
        """Make an old version current again by copying it into a new ``restore`` version."""
        return self.save(self.get(version_id).content, "restore")

    @staticmethod
    def _current(session: Session) -> AboutYouVersion | None:
        return session.scalars(select(AboutYouVersion).order_by(
            AboutYouVersion.created_at.desc(), AboutYouVersion.id.desc()).limit(1)).first()
