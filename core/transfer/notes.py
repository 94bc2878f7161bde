"""``hearth import notes FOLDER``: a folder of Markdown notes (an Obsidian vault) into memory.

Each ``*.md`` file under the folder (dot folders skipped) becomes one memory: its title and
Markdown body as written, its front matter and links kept in ``origin``, each ``[[link]]``
to another note of the folder a ``wikilink`` edge. Re-importing is idempotent by external
id (``note:<folder>:<path>:<content hash>``): an edited note gets a new memory and the old
one is invalidated, a removed one is invalidated, nothing is deleted, and a note whose
memory the user deleted stays out while its text is the same. Nothing outside the folder
is read (``core.transfer.note_files``); a note that cannot be imported is skipped and
named in ``NotesReport.skipped``. Two passes (check, then write in groups of at most
``GROUP_NOTES`` notes or ``GROUP_CHARACTERS`` characters) read one note at a time, so memory
does not grow with the vault; a killed run is completed by the next.

See docs/imports.md, "A notes folder" and "What you deleted stays deleted".
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.embedding import CancelCheck, EmbeddingCancelled, ProgressCallback
from core.errors import InvalidInputError
from core.forgetting import imported
from core.knowledge.memories import MemoryService, MemorySpec
from core.storage.orm import Memory, utcnow
from core.storage.port import StoragePort
from core.storage.sql import json_text
from core.transfer import batches, front_matter, note_files
from core.transfer.edges import add_missing_edges, memory_ids
from core.transfer.note_files import Unreadable
from core.transfer.note_words import NOTES_SOURCE as SOURCE
from core.user_input import decode_text

LINK_KIND = "wikilink"
CHANGED = "the note changed; its newer text is another memory"
REMOVED = "the note was removed from the folder"
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)
_LINK = re.compile(r"!?\[\[([^\[\]|#^]+)(?:[#^][^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)
GROUP_NOTES = 64
GROUP_CHARACTERS = 500_000
"""A group of new notes is embedded and committed once it has this many notes or this
much text (front matter included): a few big notes are not held together."""


@dataclass(frozen=True)
class NoteFile:
    """One note, read: what its memory will hold."""

    path: str  # relative to the folder, with /
    title: str
    content: str
    digest: str
    front_matter: dict[str, Any]
    tags: tuple[str, ...]
    headings: tuple[str, ...]
    links: tuple[str, ...]
    written_at: datetime


@dataclass(frozen=True)
class NoteEntry:
    """What the checking pass keeps of a note: never its text."""

    path: str  # relative to the folder, with /
    digest: str
    links: tuple[str, ...]


@dataclass(frozen=True)
class SkippedNote:
    """A note that was not imported: its path and why, as a clause."""

    path: str  # relative to the folder, with /
    reason: str  # "it is not UTF-8 text (...)", "its front matter is not valid YAML"

    def sentence(self) -> str:
        return f"{self.path} was skipped: {self.reason}."


@dataclass(frozen=True)
class ScannedFolder:
    """What the checking pass found: the notes to import, those skipped, and the paths of
    the skipped ones that are notes of the folder (their earlier memories stay)."""

    entries: list[NoteEntry]
    skipped: list[SkippedNote]
    unread: frozenset[str]


@dataclass(frozen=True)
class NotesReport:
    notes: int
    added: int      # new notes, and new texts of edited ones
    changed: int    # edited notes whose older memory was invalidated
    removed: int    # notes gone from the folder, their memories invalidated
    unchanged: int
    links: int      # wikilink edges created
    forgotten: int = 0  # notes left out: the user deleted this text of them before
    skipped: tuple[SkippedNote, ...] = ()  # notes not imported, each with its reason
    batch: int | None = field(default=None, compare=False)  # the run (``hearth imports``)

    def warnings(self) -> list[str]:
        """What the user should know besides the counts, in sentences."""
        return [note.sentence() for note in self.skipped]


def _hash(text: str, length: int = 16) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:length]


def scan_folder(folder: Path) -> ScannedFolder:
    """Every note of ``folder``, read and checked one at a time: a :class:`NoteEntry` for
    each note to import, a :class:`SkippedNote` for each that cannot be."""
    if not folder.is_dir():
        raise InvalidInputError(f"{folder} is not a folder.", "Give the notes folder itself.")
    root = folder.resolve()
    listing = note_files.list_notes(root)
    entries: list[NoteEntry] = []
    skipped = [SkippedNote(path, reason) for path, reason in listing.refused]
    unread: set[str] = set()
    for relative in listing.notes:
        try:
            note = _read_note(root, relative)
        except Unreadable as exc:
            skipped.append(SkippedNote(relative, exc.reason))
            unread.add(relative)
            continue
        entries.append(NoteEntry(note.path, note.digest, note.links))
    skipped.sort(key=lambda note: note.path.split("/"))
    return ScannedFolder(entries, skipped, frozenset(unread))


def read_again(folder: Path, entry: NoteEntry) -> NoteFile:
    """The note ``entry`` was made from, read again for writing; a note changed (or
    broken, or gone) since the checking pass stops the import with a sentence."""
    again = (f"{entry.path} changed while the folder was being imported.",
             "Import the folder again: what was added so far is kept.")
    try:
        note = _read_note(folder.resolve(), entry.path)
    except Unreadable as exc:
        raise InvalidInputError(*again) from exc
    if note.digest != entry.digest:
        raise InvalidInputError(*again)
    return note


def _read_note(root: Path, relative: str) -> NoteFile:
    """The note ``relative`` of the folder ``root``, or :class:`Unreadable` saying why
    it cannot be imported."""
    data, modified = note_files.read_note(root, relative)
    try:
        text = decode_text(data, "it")
    except InvalidInputError as exc:
        raise Unreadable(exc.message.rstrip(".")) from exc
    front: dict[str, Any] = {}
    body = text
    match = _FRONT_MATTER.match(text)
    if match:
        try:
            front = front_matter.fields(match.group(1))
        except front_matter.BadFrontMatter as exc:
            raise Unreadable(exc.reason) from exc
        body = text[match.end():]
    title = str(front.get("title") or Path(relative).stem).strip()
    body = body.strip()
    content = f"{title}\n\n{body}" if body else title
    tags = front.get("tags") or []
    tag_list = [tags] if isinstance(tags, str) else tags if isinstance(tags, list) else []
    return NoteFile(
        path=relative, title=title, content=content, digest=_hash(content),
        front_matter=front,
        tags=tuple(dict.fromkeys(str(tag).strip().lstrip("#") for tag in tag_list
                                 if str(tag).strip())),
        headings=tuple(_HEADING.findall(body)),
        links=tuple(dict.fromkeys(link.strip() for link in _LINK.findall(body))),
        written_at=_written_at(modified, front))


def _written_at(modified: float, front: dict[str, Any]) -> datetime:
    """The front matter's ``created`` or ``date`` where it is a date, else the file's
    modification time."""
    for key in ("created", "date"):
        value = front.get(key)
        if isinstance(value, str):
            try:
                moment = datetime.fromisoformat(value)
            except ValueError:
                continue
            if isinstance(moment, datetime) and moment.tzinfo is None:
                moment = moment.replace(tzinfo=timezone.utc)
            return moment
    return datetime.fromtimestamp(modified, timezone.utc)


# --- importing ---------------------------------------------------------------------------


def import_notes(folder: Path, storage: StoragePort, memories: MemoryService, *,
                 progress: ProgressCallback | None = None,
                 cancel: CancelCheck | None = None,
                 include_removed: bool = False) -> NotesReport:
    """Import (or re-import) a notes folder (docs/imports.md). ``progress(done,
    total)`` counts the new notes written; ``include_removed`` brings back the notes the
    user deleted before."""
    scanned = scan_folder(folder)
    entries = scanned.entries
    where = str(folder.resolve())
    vault = _hash(where, 12)
    namespace = f"import/notes/{vault}"

    def external_id(note: NoteEntry | NoteFile) -> str:
        return f"note:{vault}:{_hash(note.path)}:{note.digest}"

    with storage.read() as session:
        stored = {row.external_id: row for row in session.execute(
            select(Memory.id, Memory.external_id, Memory.is_valid, Memory.invalid_reason,
                   json_text(Memory.origin, "path").label("path"))
            .where(Memory.namespace == namespace, Memory.source == SOURCE))}
    left_out = imported.left_out(storage, [external_id(entry) for entry in entries],
                                 include_removed=include_removed)
    new = [entry for entry in entries
           if external_id(entry) not in stored and external_id(entry) not in left_out]

    def spec(note: NoteFile, batch: int) -> MemorySpec:
        return MemorySpec(
            note.content, memory_type="semantic", namespace=namespace, source=SOURCE,
            tags=note.tags, external_id=external_id(note), created_at=note.written_at,
            origin=batches.with_batch({
                "service": SOURCE, "folder": where, "path": note.path, "title": note.title,
                "content_hash": note.digest, "front_matter": note.front_matter,
                "headings": list(note.headings), "links": list(note.links)}, batch))

    current = {external_id(entry) for entry in entries}
    paths = {entry.path for entry in entries}
    with batches.run(storage, SOURCE) as batch:
        _add_in_groups(memories, (spec(read_again(folder, entry), batch) for entry in new),
                       len(new), progress, cancel)
        with storage.write() as session:
            changed, removed = _invalidate_outdated(session, stored, current, paths,
                                                    scanned.unread)
            _restore(session, [row.id for key, row in stored.items()
                               if key in current and not row.is_valid
                               and row.invalid_reason in (CHANGED, REMOVED)])
            links = _link(session, entries, external_id)
    return NotesReport(notes=len(entries), added=len(new), changed=changed, removed=removed,
                       unchanged=len(entries) - len(new) - len(left_out), links=links,
                       forgotten=len(left_out), skipped=tuple(scanned.skipped),
                       batch=batch)


def _add_in_groups(memories: MemoryService, specs: Iterator[MemorySpec], total: int,
                   progress: ProgressCallback | None, cancel: CancelCheck | None) -> None:
    """Embed and commit ``specs`` (read as they are asked for) a group at a time: at most
    ``GROUP_NOTES`` notes or ``GROUP_CHARACTERS`` of text held at once."""
    group: list[MemorySpec] = []
    size = done = 0

    def overall(step: int, _of: int) -> None:
        if progress is not None:
            progress(done + step, total)

    def flush() -> None:
        nonlocal size, done
        memories.add_many(group, cancel=cancel, progress=overall)
        done += len(group)
        group.clear()
        size = 0

    for spec in specs:
        if cancel is not None and cancel():
            raise EmbeddingCancelled(done, total)
        group.append(spec)
        size += len(spec.content) + len(json.dumps(spec.origin, ensure_ascii=False))
        if len(group) >= GROUP_NOTES or size >= GROUP_CHARACTERS:
            flush()
    if group:
        flush()


def _invalidate_outdated(session: Session, stored: dict[str | None, Any], current: set[str],
                         paths: set[str], unread: frozenset[str]) -> tuple[int, int]:
    """Invalidate the memories of older texts (the note changed) and of notes no longer
    in the folder; never deleted. A note skipped this time (``unread``) keeps its
    memories as they are: what it says now is not known."""
    changed = removed = 0
    now = utcnow()
    for key, row in stored.items():
        if key in current or not row.is_valid or row.path in unread:
            continue
        gone = row.path not in paths
        memory = session.get(Memory, row.id)
        if memory is None:
            continue
        memory.is_valid = False
        memory.invalid_reason = REMOVED if gone else CHANGED
        memory.updated_at = now
        removed += gone
        changed += not gone
    return changed, removed


def _restore(session: Session, ids: list[int]) -> None:
    """A note edited back to a text imported before (or put back): that memory is valid
    again. One the user set aside by hand stays set aside."""
    for memory_id in ids:
        memory = session.get(Memory, memory_id)
        if memory is not None:
            memory.is_valid = True
            memory.invalid_reason = None
            memory.updated_at = utcnow()


def _link(session: Session, notes: list[NoteEntry],
          external_id: Callable[[NoteEntry], str]) -> int:
    """The ``wikilink`` edges of the current notes that are not there yet."""
    keys = {external_id(note): note for note in notes}
    ids = {keys[key].path: memory_id for key, memory_id in memory_ids(session, keys).items()}
    by_name: dict[str, int] = {}
    for note in notes:
        if note.path in ids:
            stem = note.path.removesuffix(".md")
            by_name.setdefault(Path(stem).name.casefold(), ids[note.path])
            by_name[stem.casefold()] = ids[note.path]
    wanted = {(ids[note.path], target)
              for note in notes if note.path in ids
              for link in note.links
              if (target := by_name.get(link.removesuffix(".md").casefold())) is not None
              and target != ids[note.path]}
    return add_missing_edges(session, wanted, LINK_KIND)

