"""Notes about you: the schema-free notes the processor keeps, and the user's own edits.

The event processor keeps them: a JSON object whose keys the model invents
(``{"Family": {"sister": "Ana"}}``), one ``notes_about_you_versions`` row per change, the newest row
current (``core.consolidation.processor.current_notes_about_you``). The user may correct it; a
correction is one more version (source ``"user"``), so the processor's next run starts from
it and the user's change can be seen, and undone, in the history.

A user's notes go into the same prompts as the processor's, so it obeys the same bounds
(keys, nesting depth, serialised size) the processor enforces on the model's answer; the
bounds live here, with the notes, and the processor reads them.
"""

from __future__ import annotations

import json
from typing import Any

from core.errors import InvalidInputError
from core.knowledge.versions import append_version, checked_source, newest_version
from core.user_input import nesting_depth
from core.storage.orm import NotesAboutYouVersion
from core.storage.port import StoragePort

NOTES_ABOUT_YOU_MAX_KEYS = 40
NOTES_ABOUT_YOU_MAX_CHARS = 6000         # serialised; keeps the prompt of the next run bounded
NOTES_ABOUT_YOU_MAX_DEPTH = 4            # {"Family": {"sister": {"city": ...}}}; deeper is babble

def check_notes_about_you(data: Any) -> dict[str, Any]:
    """``data`` if it can be stored as the notes, else an error that says which bound failed.

    Keys must be non-blank text (a blank key cannot be shown to, or named by, a model)."""
    if not isinstance(data, dict):
        raise InvalidInputError("Notes about you must be a JSON object.",
                                "Put the values under named keys.")
    if len(data) > NOTES_ABOUT_YOU_MAX_KEYS:
        raise InvalidInputError(f"Notes about you has {len(data)} top-level keys.",
                                f"Keep at most {NOTES_ABOUT_YOU_MAX_KEYS}; group related ones.")
    _check_keys(data)
    depth = nesting_depth(data)
    if depth > NOTES_ABOUT_YOU_MAX_DEPTH:
        raise InvalidInputError(f"Notes about you nests {depth} levels deep.",
                                f"Use at most {NOTES_ABOUT_YOU_MAX_DEPTH} levels.")
    size = len(json.dumps(data, ensure_ascii=False))
    if size > NOTES_ABOUT_YOU_MAX_CHARS:
        raise InvalidInputError(f"Notes about you is {size} characters long.",
                                f"Keep it under {NOTES_ABOUT_YOU_MAX_CHARS} by shortening values.")
    return data


def current_version(storage: StoragePort) -> NotesAboutYouVersion | None:
    """The newest version of the notes with its source and time (None before the first one);
    ``current_notes_about_you`` gives only its data."""
    with storage.read() as session:
        newest = newest_version(session, NotesAboutYouVersion)
        if newest is not None:
            session.expunge(newest)
        return newest


def save_notes_about_you(storage: StoragePort, data: dict[str, Any], source: str = "user"
                  ) -> NotesAboutYouVersion:
    """Store ``data`` as the new current version of the notes and return it.

    Saving what is already current writes nothing and returns the current version: a save
    without a change must not grow the history."""
    check_notes_about_you(data)
    source = checked_source(source, "scaffold")
    return append_version(
        storage, lambda session: newest_version(session, NotesAboutYouVersion),
        unchanged=lambda current: current.data == data,
        make=lambda: NotesAboutYouVersion(data=data, source=source),
        action="notes_about_you.save", actor=source, summary=f"{len(data)} keys")


def _check_keys(node: Any) -> None:
    """Every key at every level is non-blank text (JSON allows only text keys anyway)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            for key, value in current.items():
                if not isinstance(key, str) or not key.strip():
                    raise InvalidInputError("A key in Notes about you is blank.",
                                            "Give every entry a name, or remove it.")
                stack.append(value)
        elif isinstance(current, list):
            stack.extend(current)
