"""The data folder's contents as a whole, for the front ends: what it holds (``status``),
a backup now, the backups kept, restoring one, an export to one JSON file, and importing one
(``core.storage.backups``, ``core.transfer.export``).

An import re-embeds what it restored; stopped while embedding, everything is imported but
some vectors, which the Embeddings settings rebuild (``models.rebuild_vectors``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import func, select

from core.storage import orm

from core.storage.backups import BackupInfo
from core.storage.backups import backup_words as backup_words  # how the window names one
from core.home.private_files import restrict_new_files
from core.log_privacy import LogFormat, announce, log_to_stderr, quoted

if TYPE_CHECKING:
    from core.app import Hearth
    from core.config import Settings
    from core.home.paths import HearthPaths

__all__ = ["BackupInfo", "Exported", "FolderStatus", "Imported", "LogFormat", "announce",
           "backup", "backups", "export", "import_file", "log_to_stderr", "quoted", "restore",
           "restrict_new_files", "status"]

COUNTED = {
    "interactions": orm.Interaction, "sessions": orm.ChatSession, "facts": orm.UserFact,
    "notes": orm.Note, "memories": orm.Memory, "edges": orm.MemoryEdge,
    "events": orm.ContextEvent, "habits": orm.Habit, "follow_ups": orm.FollowUp,
    "runs": orm.Run, "tasks": orm.Task, "reminders": orm.Reminder,
    "journal_entries": orm.JournalEntry, "read_later": orm.ReadLaterItem,
}
"""What ``hearth status`` and ``hearth stats`` count, by the name they print."""


@dataclass(frozen=True)
class FolderStatus:
    """Where the data folder is, its database's size and schema revision, the rows it holds
    (``counts`` by ``COUNTED`` name, plus ``memories_valid``: neither invalidated nor
    superseded) and whether the embedding model is in place."""

    home: str
    database_bytes: int
    schema_revision: str | None
    counts: dict[str, int]
    memories_by_tier: dict[str, int]
    embedding_model_dir: str
    embedding_model_present: bool


def status(hearth: Hearth) -> FolderStatus:
    """The folder as it is now, read in one transaction."""
    with hearth.storage.read() as session:
        counts = {name: session.scalar(select(func.count()).select_from(model)) or 0
                  for name, model in COUNTED.items()}
        counts["memories_valid"] = session.scalar(
            select(func.count()).select_from(orm.Memory).where(
                orm.Memory.is_valid.is_(True), orm.Memory.superseded_by.is_(None))) or 0
        by_tier = {str(tier): count for tier, count in session.execute(
            select(orm.Memory.tier, func.count()).group_by(orm.Memory.tier)).all()}
    model_dir = hearth.settings.embedding_model_dir
    return FolderStatus(
        home=str(hearth.paths.home), database_bytes=hearth.storage.size_bytes(),
        schema_revision=hearth.storage.schema_revision(), counts=counts,
        memories_by_tier=by_tier, embedding_model_dir=str(model_dir),
        embedding_model_present=any(model_dir.glob("*.onnx")))


@dataclass(frozen=True)
class Exported:
    """Rows written per table, and a sentence when others could read the file where it is
    (its file system keeps no Unix permissions, or the folder is theirs too)."""

    counts: dict[str, int]
    warning: str | None


@dataclass(frozen=True)
class Imported:
    """Rows restored per table; ``stopped_at`` ``(done, total)`` when the re-embedding was
    stopped (the rows are all in, some vectors are not)."""

    counts: dict[str, int]
    stopped_at: tuple[int, int] | None


def backup(hearth: Hearth) -> BackupInfo:
    """A checked copy of the database in the backups folder (the oldest beyond the number
    to keep are removed). It changes nothing any view shows."""
    return hearth.backup()


def backups(paths: HearthPaths) -> tuple[BackupInfo, ...]:
    """The backups the data folder keeps, newest first."""
    from core.storage.backups import list_backups

    return tuple(list_backups(paths))


def restore(settings: Settings, paths: HearthPaths, backup_file: Path) -> Path | None:
    """Put ``backup_file`` in place of the database; where the previous database was set
    aside (None: there was none, or a PostgreSQL server replaced it in place). Inside
    ``folder_lock.held_alone``: nothing else may have the folder open meanwhile."""
    from core.storage.factory import restore_backup

    return restore_backup(settings, paths, backup_file)


def export(hearth: Hearth, path: Path, *, plain: bool = False) -> Exported:
    """Write everything to ``path`` (never one of Hearth's own files); from an encrypted
    folder only with ``plain``, once the person agreed to a plain file."""
    from core.home.private_files import exposure_warning

    counts = hearth.export(path, plain=plain)
    return Exported(counts, exposure_warning(path))


def import_file(hearth: Hearth, path: Path,
                progress: Callable[[int, int], None] = lambda *_: None,
                cancelled: Callable[[], bool] = lambda: False) -> Imported:
    """Restore the export at ``path`` into this (empty) database, then embed it;
    ``progress``/``cancelled`` follow the embedding. Bad files are refused with a sentence
    before anything is written."""
    from core.embedding import EmbeddingCancelled
    from core.transfer.export import import_export

    try:
        counts = import_export(path, hearth.storage, hearth.embedder, progress=progress,
                               cancel=cancelled)
    except EmbeddingCancelled as stopped:
        return Imported({}, (stopped.done, stopped.total))
    return Imported(counts, None)
