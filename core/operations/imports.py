"""Bringing in what the user already has, for the window: a ChatGPT or Claude export, or
a folder of Markdown notes (``core.transfer.chat_export``, ``core.transfer.notes``).

One function for the three, run on a worker with progress and cancel; it returns plain
counts the window puts into a sentence. A stopped import keeps what it committed, and
importing the same thing again completes it.

Every run is recorded (``core.transfer.batches``): ``import_runs`` lists them, and
``undo_import`` removes what one added through the user's delete of memories (audited, and
recorded as forgotten so that importing the same file again leaves it out).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING

from core.operations.changes import Changes, Domain
from core.operations.done import Done
from core.transfer.batches import ImportRunInfo

if TYPE_CHECKING:
    from core.app import Hearth
    from core.forgetting.service import MemoriesDeleted

__all__ = ["ImportRunInfo", "ImportSource", "ImportSummary", "ImportUndone", "import_history",
           "import_runs", "undo_import"]


class ImportSource(StrEnum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    NOTES = "notes"


@dataclass(frozen=True)
class ImportSummary:
    """What an import found and added. ``found`` counts turns (a chat export) or notes;
    ``added`` memories (a chat export's attached files' text included);
    ``left_out`` messages a chat export holds that are not words between the user and the
    assistant; ``invalidated`` notes' older texts and removed notes; ``skipped`` what was
    not imported, one sentence each (notes that cannot be read); ``warnings`` other
    sentences the user should read (a chat export's texts cut short); ``stopped`` when the
    user stopped it (what was committed stays; importing again completes it)."""

    source: ImportSource
    found: int
    added: int
    conversations: int = 0
    left_out: int = 0
    invalidated: int = 0
    forgotten: int = 0
    """Turns or notes left out because the user deleted them before."""
    skipped: tuple[str, ...] = ()
    warnings: tuple[str, ...] = ()
    stopped: bool = False


def import_history(hearth: Hearth, source: ImportSource, path: Path,
                   progress: Callable[[int, int], None] = lambda *_: None,
                   cancelled: Callable[[], bool] = lambda: False, *,
                   include_removed: bool = False) -> ImportSummary:
    """Import ``path`` as ``source``; a bad file is refused with a sentence
    (``InvalidInputError``) before anything is written, a bad note of a folder skipped
    (named in ``skipped``). What the user deleted from it before stays out, unless
    ``include_removed`` (Import history's "Import again, including what I removed")."""
    from core.embedding import EmbeddingCancelled

    try:
        if source is ImportSource.NOTES:
            from core.transfer.notes import import_notes

            notes = import_notes(path, hearth.storage, hearth.memories, progress=progress,
                                 cancel=cancelled, include_removed=include_removed)
            return ImportSummary(source, found=notes.notes, added=notes.added,
                                 invalidated=notes.changed + notes.removed,
                                 forgotten=notes.forgotten,
                                 skipped=tuple(note.sentence() for note in notes.skipped))
        from core.transfer.chat_export import import_chat_export
        from core.transfer.chatgpt import CHATGPT
        from core.transfer.claude import CLAUDE

        service = CHATGPT if source is ImportSource.CHATGPT else CLAUDE
        chats = import_chat_export(path, service, hearth.storage, hearth.memories,
                                   progress=progress, cancel=cancelled,
                                   include_removed=include_removed)
        return ImportSummary(source, found=chats.turns,
                             added=chats.memories_created + chats.attachments_created,
                             conversations=chats.conversations, left_out=chats.left_out,
                             forgotten=chats.forgotten, warnings=tuple(chats.warnings()))
    except EmbeddingCancelled:
        return ImportSummary(source, found=0, added=0, stopped=True)


UNDO_CHANGES = Changes.of(Domain.MEMORIES, Domain.RUNS, Domain.CHATS)
"""Removing a run deletes its memories (which also touches the runs' records) and the
imported chats they came from."""


@dataclass(frozen=True)
class ImportUndone:
    """What removing an import run did: ``removed`` memories, the imported ``exchanges``
    and ``chats`` they came from, and the delete's result (None when nothing of the run was
    left), which can also rewrite the backups."""

    batch: int
    removed: int
    exchanges: int
    chats: int
    deleted: MemoriesDeleted | None


def import_runs(hearth: Hearth) -> list[ImportRunInfo]:
    """Every import run, newest first: when, from what, how many memories it added and
    how many of them are still kept."""
    from core.transfer import batches

    return batches.runs(hearth.storage)


def undo_import(hearth: Hearth, batch: int) -> Done[ImportUndone]:
    """Delete what the run ``batch`` added (``NotFoundError`` for an unknown run): the
    imported exchanges and emptied chats first, then the memories through the user's
    delete, which redacts their words' traces and cleans the files; all recorded as
    forgotten so that no later import brings them back."""
    from core.transfer import batches

    ids = batches.memories_of(hearth.storage, batch)
    exchanges, chats = batches.remove_turns(hearth.storage, batch, ids)
    deleted = hearth.forgetting.delete_memories(ids) if ids else None
    batches.mark_undone(hearth.storage, batch)
    return Done(ImportUndone(batch, len(ids), exchanges, chats, deleted), UNDO_CHANGES)
