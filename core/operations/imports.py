"""Bringing in what the user already has, for the window: a ChatGPT or Claude export, or
a folder of Markdown notes (``core.transfer.chat_export``, ``core.transfer.notes``).

One function for the three, run on a worker with progress and cancel; it returns plain
counts the window puts into a sentence. A stopped import keeps what it committed, and
importing the same thing again completes it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from core.operations.changes import Changes, Domain

if TYPE_CHECKING:
    from core.app import Hearth

IMPORT_CHANGES = Changes.of(Domain.MEMORIES, Domain.CHATS)
"""New memories (turns, notes) and, from a chat export, imported sessions."""


class ImportSource(StrEnum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    NOTES = "notes"


@dataclass(frozen=True)
class ImportSummary:
    """What an import found and added. ``found`` counts turns (a chat export) or notes;
    ``left_out`` messages a chat export holds that are not words between the user and the
    assistant; ``invalidated`` notes' older texts and removed notes; ``stopped`` when the
    user stopped it (what was committed stays; importing again completes it)."""

    source: ImportSource
    found: int
    added: int
    conversations: int = 0
    left_out: int = 0
    invalidated: int = 0
    stopped: bool = False
    changes: Changes = IMPORT_CHANGES


def import_history(hearth: Hearth, source: ImportSource, path: Path,
                   progress: Callable[[int, int], None] = lambda *_: None,
                   cancelled: Callable[[], bool] = lambda: False) -> ImportSummary:
    """Import ``path`` as ``source``; a bad file is refused with a sentence
    (``InvalidInputError``) before anything is written."""
    from core.embedding import EmbeddingCancelled

    try:
        if source is ImportSource.NOTES:
            from core.transfer.notes import import_notes

            notes = import_notes(path, hearth.storage, hearth.memories, progress=progress,
                                 cancel=cancelled)
            return ImportSummary(source, found=notes.notes, added=notes.added,
                                 invalidated=notes.changed + notes.removed)
        from core.transfer.chat_export import import_chat_export
        from core.transfer.chatgpt import CHATGPT
        from core.transfer.claude import CLAUDE

        service = CHATGPT if source is ImportSource.CHATGPT else CLAUDE
        chats = import_chat_export(path, service, hearth.storage, hearth.memories,
                                   progress=progress, cancel=cancelled)
        return ImportSummary(source, found=chats.turns, added=chats.memories_created,
                             conversations=chats.conversations, left_out=chats.left_out)
    except EmbeddingCancelled:
        return ImportSummary(source, found=0, added=0, stopped=True)
