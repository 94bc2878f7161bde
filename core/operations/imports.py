"""Bringing in what the user already has: a ChatGPT or Claude export, a folder of Markdown
notes, or a transcript file (``core.transfer.chat_export``, ``core.transfer.notes``,
``core.transfer.transcript``), for the window and the ``hearth import`` commands alike.

``run_import`` runs one (on a worker, with progress and cancel) and returns the importer's
own report (what ``hearth import ... --json`` prints); ``summary_of`` turns any of those
reports into plain counts (``ImportSummary``), and ``describe`` into the one sentence both
front ends show after an import ("Read 2 ChatGPT conversations with 12 messages to keep:
12 new memories."), each saying its own way to bring back what was left out. A stopped
import keeps what it committed, and importing the same thing again completes it.

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
    from core.transfer.chat_export import ChatImportReport
    from core.transfer.notes import NotesReport
    from core.transfer.transcript import ImportReport as TranscriptReport

    ImporterReport = ChatImportReport | NotesReport | TranscriptReport

__all__ = ["AGAIN_IN_THE_WINDOW", "ImportRunInfo", "ImportSource", "ImportSummary",
           "ImportUndone", "describe", "import_history", "import_runs", "run_import",
           "summary_of", "undo_import"]


class ImportSource(StrEnum):
    CHATGPT = "chatgpt"
    CLAUDE = "claude"
    NOTES = "notes"
    TRANSCRIPT = "transcript"
    """A dated conversation in Hearth's own format (docs/transcript-format.md); the
    command's only."""


CONVERSATIONS = {ImportSource.CHATGPT: "ChatGPT conversation",
                 ImportSource.CLAUDE: "Claude conversation",
                 ImportSource.TRANSCRIPT: "transcript session"}
"""What one conversation of each chat source is called in the sentence."""
SKIPPED_SHOWN = 3
"""Skipped notes the window's sentence names; the rest are counted (the command lists
all)."""
AGAIN_IN_THE_WINDOW = "Import them too brings them back"
"""How the window brings back what an import left out (its button)."""


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


def run_import(hearth: Hearth, source: ImportSource, path: Path,
               progress: Callable[[int, int], None] = lambda *_: None,
               cancelled: Callable[[], bool] = lambda: False, *,
               include_removed: bool = False) -> ImporterReport:
    """Import ``path`` as ``source`` and return the importer's report; a bad file is refused
    with a sentence (``InvalidInputError``) before anything is written, a bad note of a
    folder skipped (named in the report). What the user deleted from it before stays out,
    unless ``include_removed``. A cancel raises ``EmbeddingCancelled`` once what was
    committed is kept."""
    if source is ImportSource.NOTES:
        from core.transfer.notes import import_notes

        return import_notes(path, hearth.storage, hearth.memories, progress=progress,
                            cancel=cancelled, include_removed=include_removed)
    if source is ImportSource.TRANSCRIPT:
        from core.transfer.transcript import import_transcript

        return import_transcript(path, hearth.storage, hearth.memories, progress=progress,
                                 cancel=cancelled, include_removed=include_removed)
    from core.transfer.chat_export import import_chat_export
    from core.transfer.chatgpt import CHATGPT
    from core.transfer.claude import CLAUDE

    service = CHATGPT if source is ImportSource.CHATGPT else CLAUDE
    return import_chat_export(path, service, hearth.storage, hearth.memories,
                              progress=progress, cancel=cancelled,
                              include_removed=include_removed)


def summary_of(source: ImportSource, report: ImporterReport) -> ImportSummary:
    """The counts of any importer's report, as ``describe`` words them."""
    from core.transfer.chat_export import ChatImportReport
    from core.transfer.notes import NotesReport

    if isinstance(report, NotesReport):
        return ImportSummary(source, found=report.notes, added=report.added,
                             invalidated=report.changed + report.removed,
                             forgotten=report.forgotten,
                             skipped=tuple(note.sentence() for note in report.skipped))
    if isinstance(report, ChatImportReport):
        return ImportSummary(source, found=report.turns,
                             added=report.memories_created + report.attachments_created,
                             conversations=report.conversations, left_out=report.left_out,
                             forgotten=report.forgotten, warnings=tuple(report.warnings()))
    return ImportSummary(source, found=report.turns, added=report.memories_created,
                         conversations=report.sessions, forgotten=report.forgotten)


def import_history(hearth: Hearth, source: ImportSource, path: Path,
                   progress: Callable[[int, int], None] = lambda *_: None,
                   cancelled: Callable[[], bool] = lambda: False, *,
                   include_removed: bool = False) -> ImportSummary:
    """``run_import``, summed up (``summary_of``) for the window; a stopped import is a
    summary that says so (``stopped``)."""
    from core.embedding import EmbeddingCancelled

    try:
        report = run_import(hearth, source, path, progress, cancelled,
                            include_removed=include_removed)
    except EmbeddingCancelled:
        return ImportSummary(source, found=0, added=0, stopped=True)
    return summary_of(source, report)


def describe(summary: ImportSummary, *, again: str = AGAIN_IN_THE_WINDOW,
             named: int = SKIPPED_SHOWN) -> str:
    """The sentence after an import, the window's and the command's: what was found and
    added, what was left out because the person deleted it before and how this front end
    brings it back (``again``), the chat export's warnings, and the notes that could not be
    imported (the first ``named`` by their sentence, the others counted)."""
    if summary.stopped:
        return ("Stopped. What was imported so far is kept; import the same again to "
                "finish.")
    unit = "note" if summary.source is ImportSource.NOTES else "message"
    forgotten = (f" {_count(summary.forgotten, unit)} left out because you deleted "
                 f"{'it' if summary.forgotten == 1 else 'them'} before ({again})."
                 if summary.forgotten else "")
    if summary.source is ImportSource.NOTES:
        text = (f"Imported {_count(summary.found, 'note')}: "
                f"{_count(summary.added, 'new memory', 'new memories')}")
        if summary.invalidated:
            text += f", {_count(summary.invalidated, 'older text')} set aside"
        return text + "." + forgotten + _skipped(summary.skipped, named)
    text = (f"Read {_count(summary.conversations, CONVERSATIONS[summary.source])} with "
            f"{_count(summary.found, 'message')} to keep: "
            f"{_count(summary.added, 'new memory', 'new memories')}")
    if summary.left_out:
        text += f" ({_count(summary.left_out, 'other message')} left out: tools, system, "
        text += "other branches)"
    return " ".join([text + "." + forgotten, *summary.warnings])


def _skipped(sentences: tuple[str, ...], named: int) -> str:
    """What was skipped, after the counts: how many, the first ``named`` sentences, and how
    many more."""
    if not sentences:
        return ""
    said = f" {_count(len(sentences), 'note')} could not be imported."
    if named <= 0:
        return said
    more = len(sentences) - named
    return (f"{said} {' '.join(sentences[:named])}"
            + (f" And {_count(more, 'more note')}." if more > 0 else ""))


def _count(number: int, one: str, many: str | None = None) -> str:
    """``number`` and the noun that agrees with it ("1 note", "12,400 new memories")."""
    return f"{number:,} {one if number == 1 else (many or f'{one}s')}"


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
