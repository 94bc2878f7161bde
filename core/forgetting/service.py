"""``ForgetService``: a user's forget of a fact, from the database to the last file.

The CLI (``hearth facts forget``), the Facts view and the assistant's ``forget_fact`` tool
all call ``forget``. It:

1. erases the fact in the live database in one transaction (``database.erase_fact``): the
   fact and its history deleted, its events deleted, every value it had replaced by
   ``[forgotten]`` wherever the user's words are kept, the changed text re-indexed and
   re-embedded;
2. makes the bytes go from the database files (``StoragePort.erase_deleted``): full-text
   segments merged, the write-ahead log checkpointed and truncated; then the files are
   searched byte by byte and, if a value is still found (free space written before
   ``secure_delete`` was on, or the same bytes in Hearth's own bookkeeping) or is too short
   to search for, the database is rebuilt with ``VACUUM`` (``FileCheck`` says which);
3. masks the values in the log files, in place;
4. says which backups still hold the fact, and keeps its values *in memory only* in the
   returned ``Forgotten`` so that the same user action can rewrite those backups
   (``Forgotten.remove_from_backups``). Nothing stores them anywhere: dropping the
   ``Forgotten`` drops them.

``remove_from_backups(key)`` serves a later request ("remove it from backups too" after the
fact is gone): the values are then read from the backups' own records of the fact.

``delete_memories`` is the user's delete of memories (the Memories view, ``hearth memories
delete``): the rows go (``core.forgetting.memories``), then steps 2 to 4 as for a fact: the
returned ``MemoriesDeleted`` names the backups that still hold one of them and keeps their
texts in memory only, so the same action can rewrite those backups
(``MemoriesDeleted.remove_from_backups``), by the same code as a fact's
(``core.forgetting.backups``).

``preview`` counts what a forget would change, without changing anything, so a
confirmation can say it. Results are plain data: front ends get no database rows.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

from core.home.paths import HearthPaths
from core.embedding import Embedder
from core.errors import DatabaseLockedError, NotFoundError
from core.knowledge.facts import normalise_key
from core.forgetting import backups
from core.forgetting.database import erase_fact, fact_values, find_elsewhere, redactor_for
from core.forgetting.files import files_holding, mask_in_logs
from core.forgetting.matching import ValueMatcher
from core.forgetting.memories import (
    MemoriesErased,
    MemoriesErasure,
    erase_memories,
    words_found,
)
from core.forgetting.preview import PlaceInPreview, chosen_skips, describe
from core.storage.port import BackupCopies, StoragePort

LOG_FILES = "log files"


class FileCheck(str, Enum):
    """What is known about the database files after a forget."""

    VERIFIED = "verified"
    """Searched byte by byte: no copy of any value is left in the database or its log."""
    COMPACTED = "compacted"
    """Rebuilt without free space, but a byte search cannot prove it: the value is too
    short, or its bytes also occur in Hearth's own bookkeeping (a number among ids and
    times, a fact's key), which is not user text and is not redacted."""
    IN_USE = "in use"
    """Another program was using the database, so the write-ahead log could not be emptied
    (or the files cleaned) yet."""
    IN_MEMORY = "in memory"
    """A private in-memory database: there are no files."""
    ON_SERVER = "on a server"
    """A database on a PostgreSQL server: its tables were vacuumed, but the server's files
    are not Hearth's to search, and PostgreSQL does not zero what it frees."""
    REWRITTEN_ON_SERVER = "rewritten on a server"
    """On a PostgreSQL server, compacted (``compact_files``): every table rewritten into new
    files and a checkpoint written, so no table file keeps it; the write-ahead log's old
    segments and the server's archives and replicas still may."""
    REWRITTEN_WITHOUT_CHECKPOINT = "rewritten on a server, no checkpoint"
    """As ``REWRITTEN_ON_SERVER``, but the server did not let Hearth's role ask for a
    checkpoint: the write-ahead log keeps it at least until the server's next one."""
    KEPT = "kept where chosen"
    """The person kept it in some places, so the files hold it there by design and a byte
    search would prove nothing: the indexes' and the log's deleted copies were cleared, the
    files were not searched."""


@dataclass(frozen=True)
class ForgetPreview:
    """What forgetting a fact would change: ``found`` lists each row with the words around
    the value (``core.forgetting.preview``); ``places`` counts the ticked ones per kind of
    place, ``unticked`` those left unless the person ticks them (other facts)."""

    key: str
    values: int
    places: Mapping[str, int]
    searched_everywhere: bool
    found: tuple[PlaceInPreview, ...] = ()

    @property
    def total(self) -> int:
        return sum(self.places.values())

    @property
    def unticked(self) -> Mapping[str, int]:
        return dict(Counter(place.kind for place in self.found if not place.ticked))


@dataclass(frozen=True)
class MemoriesPreview:
    """What erasing some memories would rewrite besides them (``core.forgetting.preview``)."""

    count: int
    places: tuple[PlaceInPreview, ...]


@dataclass(frozen=True)
class ForgetReport:
    """What a forget did. ``values``: the current value and the earlier ones; ``places``:
    rows (or log files) changed per kind of place; ``searched_everywhere`` is False when a
    value was too short or too common to look for outside the fact's own records;
    ``backups``: copies that still hold it."""

    key: str
    values: int
    places: Mapping[str, int]
    searched_everywhere: bool
    files: FileCheck
    backups: tuple[Path, ...] = ()
    unmasked_logs: tuple[Path, ...] = ()
    """Log files that could not be rewritten (unreadable, read-only): they may still hold it."""
    kept: Mapping[str, int] = field(default_factory=dict)
    """Rows left as they were, by the person's choice (or as another fact's), per kind."""

    @property
    def total(self) -> int:
        return sum(self.places.values())


@dataclass(frozen=True)
class MemoryDeleteReport:
    """What a user's delete of memories did: how many went, the traces of their words
    redacted per kind of place (log files included), what is known of the database files,
    and the backups taken before that still hold one of them (rewritten only when asked:
    ``MemoriesDeleted.remove_from_backups``)."""

    deleted: int
    places: Mapping[str, int]
    files: FileCheck
    backups: tuple[Path, ...] = ()
    unmasked_logs: tuple[Path, ...] = ()
    left: tuple[PlaceInPreview, ...] = ()
    """The places that still hold their words, by the person's choice or because this
    delete does not rewrite them (an import's undo leaves the person's own material)."""


@dataclass(frozen=True)
class Forgotten:
    """A finished forget, and what the same user action can still do with it: remove the
    fact from the backups that hold it. The values live here, in memory, and nowhere else."""

    report: ForgetReport
    _copies: BackupCopies = field(repr=False)
    _values: tuple[str, ...] = field(repr=False, default=())

    def remove_from_backups(self) -> tuple[backups.BackupRewrite, ...]:
        """Rewrite every backup that held the fact without it (see ``core.forgetting.backups``)."""
        erasure = backups.FactErasure(self.report.key, self._values)
        return tuple(backups.rewrite(self._copies, path, erasure)
                     for path in self.report.backups)

    def redact(self, text: str) -> str:
        """``text`` with the forgotten values replaced, by the same rule: for words written
        in the same action that are not stored yet (the rest of the assistant's reply)."""
        return ValueMatcher(self._values).redact(text)


@dataclass(frozen=True)
class MemoriesDeleted:
    """A finished delete of memories, and what the same user action can still do with it:
    remove them from the backups that hold them. Their texts live here, in memory, and
    nowhere else."""

    report: MemoryDeleteReport
    _copies: BackupCopies = field(repr=False)
    _erasure: MemoriesErasure = field(repr=False, default=MemoriesErasure(()))

    def remove_from_backups(self) -> tuple[backups.BackupRewrite, ...]:
        """Rewrite every backup that held one of them without them."""
        return tuple(backups.rewrite(self._copies, path, self._erasure)
                     for path in self.report.backups)


class ForgetService:
    """Forget facts for good, in the database, its files, the logs and (asked) the backups."""

    def __init__(self, storage: StoragePort, embedder: Embedder, paths: HearthPaths) -> None:
        self._storage = storage
        self._embedder = embedder
        self._paths = paths

    def preview(self, key: str) -> ForgetPreview:
        """Every row a forget of ``key`` would change, with the words around the value and
        whether it is ticked (``core.forgetting.preview``); NotFoundError if unknown."""
        key = normalise_key(key)
        with self._storage.read() as session:
            values = fact_values(session, key)
            if not values:
                raise _unknown(key)
            redactor = redactor_for(session, key, values)
            found = describe(session, find_elsewhere(session, key, redactor), redactor, key)
        places = Counter(place.kind for place in found if place.ticked)
        return ForgetPreview(key, len(redactor.recorded), dict(places),
                             redactor.searched_everywhere, found)

    def forget(self, key: str, *, skip: Iterable[str] = (), include: Iterable[str] = (),
               compact: bool = False) -> Forgotten:
        """Forget the fact ``key`` everywhere (see the module docstring) but in the places
        left as they are: those the preview does not tick (other facts) unless in
        ``include``, and those in ``skip`` (``preview`` tokens; an unknown one is refused
        before anything changes). NotFoundError if there is no such fact. ``compact``: on a
        server, rewrite its tables afterwards (``compact_files``); a SQLite file is searched
        and rebuilt as needed anyway."""
        preview = self.preview(key)
        left = chosen_skips(preview.found, skip, include)
        key = preview.key
        with self._storage.read() as session:
            values = tuple(fact_values(session, key))
        erasure = erase_fact(self._storage, key, known_values=values, embedder=self._embedder,
                             skip=left)
        places = dict(erasure.places)
        masked, unmasked = mask_in_logs(self._paths.home / "logs", erasure.redactor.everywhere)
        if masked:
            places[LOG_FILES] = masked
        kept = dict(Counter(place.kind for place in preview.found if place.token in left))
        files = (erase_kept(self._storage) if kept else
                 erase_from_files(self._storage, erasure.redactor.recorded, compact=compact))
        report = ForgetReport(
            key, len(erasure.redactor.recorded), places,
            erasure.redactor.searched_everywhere, files,
            self._holding(backups.FactErasure(key, values)),
            tuple(unmasked), kept)
        return Forgotten(report, self._storage.copies, values)

    def preview_memories(self, memory_ids: Sequence[int]) -> MemoriesPreview:
        """Every place besides the memories themselves that holds their words, with the
        words around them, ticked as an erase would rewrite them (another fact is not);
        NotFoundError if one of them does not exist."""
        with self._storage.read() as session:
            words = words_found(session, memory_ids)
        return MemoriesPreview(len(set(memory_ids)), words.places)

    def erase_memories(self, memory_ids: Sequence[int], *, skip: Iterable[str] = (),
                       include: Iterable[str] = ()) -> MemoriesDeleted:
        """Delete the memories ``memory_ids`` for good and rewrite their words in the
        places of ``preview_memories`` but those left (``skip``, and the unticked ones not
        in ``include``); then their bytes from the files and logs, and say which backups
        still hold one of them. NotFoundError (nothing deleted) if one does not exist."""
        left = chosen_skips(self.preview_memories(memory_ids).places, skip, include)
        return self._memories_gone(erase_memories(self._storage, memory_ids, skip=left,
                                                  embedder=self._embedder))

    def delete_memories(self, memory_ids: Sequence[int]) -> MemoriesDeleted:
        """Delete the memories ``memory_ids`` for good, with Hearth's own records of them
        (``core.forgetting.memories.TRACES``) but not the person's material: an import's
        undo. The report names where their words still are. NotFoundError (nothing
        deleted) if one of them does not exist."""
        return self._memories_gone(erase_memories(self._storage, memory_ids))

    def _memories_gone(self, erased: MemoriesErased) -> MemoriesDeleted:
        """The file and log steps after memories went, and their report."""
        matcher = erased.erasure.matcher.joined(erased.redactor_matcher)
        places = dict(erased.places)
        masked, unmasked = mask_in_logs(self._paths.home / "logs", matcher)
        if masked:
            places[LOG_FILES] = masked
        files = (erase_kept(self._storage) if erased.left
                 else erase_from_files(self._storage, matcher))
        held = self._holding(erased.erasure)
        return MemoriesDeleted(MemoryDeleteReport(erased.deleted, places, files, held,
                                                  tuple(unmasked), erased.left),
                               self._storage.copies, erased.erasure)

    def compact(self) -> FileCheck:
        """Rebuild the database's files without the free space and old row versions that
        earlier forgets and deletes may have left (``compact_files``), for a forget done
        without it (in the window, by the assistant, ``hearth memories delete``)."""
        return compact_files(self._storage)

    def _holding(self, erasure: backups.CopyErasure) -> tuple[Path, ...]:
        """The copies of the database that still hold what ``erasure`` took away."""
        copies = self._storage.copies
        return tuple(path for path in backups.database_copies(self._paths, copies)
                     if backups.holds(copies, path, erasure))

    def remove_from_backups(self, key: str) -> tuple[backups.BackupRewrite, ...]:
        """Rewrite the backups that still hold the fact ``key`` without it, once the fact is
        gone from the live database: its values are read from the backups' own records.
        NotFoundError if no backup has a record of it."""
        key = normalise_key(key)
        copies = self._storage.copies
        found = backups.database_copies(self._paths, copies)
        values = tuple(dict.fromkeys(value for path in found
                                     for value in backups.values_in(copies, path, key)))
        if not values:
            raise NotFoundError(f"Neither the database nor any backup has a fact called "
                                f"{key!r}.", "It is gone from both, or it never existed: see "
                                             "the keys with `hearth facts list`.")
        erasure = backups.FactErasure(key, values)
        return tuple(backups.rewrite(copies, path, erasure) for path in found
                     if backups.holds(copies, path, erasure))


def erase_from_files(storage: StoragePort, matcher: ValueMatcher, *,
                     compact: bool = False) -> FileCheck:
    """Step 2 of the module docstring: empty the indexes' and the log's old copies, search
    the files for ``matcher``'s values and rebuild the database if one is still found (or
    cannot be searched for). A server's files cannot be searched: its tables are vacuumed,
    or with ``compact`` rewritten (``compact_files``)."""
    database = storage.path
    if database is None:
        return compact_files(storage) if compact else _erase_without_files(storage)
    files = storage.copies.files(database)  # the database file and those beside it
    try:
        emptied = storage.erase_deleted()
        if matcher.verifiable and not files_holding(files, matcher):
            return FileCheck.VERIFIED if emptied else FileCheck.IN_USE
        if not storage.erase_deleted(compact=True):
            return FileCheck.IN_USE
    except DatabaseLockedError:  # the delete is committed; only the cleaning waits
        return FileCheck.IN_USE
    if matcher.verifiable and not files_holding(files, matcher):
        return FileCheck.VERIFIED
    return FileCheck.COMPACTED


def erase_kept(storage: StoragePort) -> FileCheck:
    """The file step when the person kept the words in some places: the deleted copies go
    from the indexes and the write-ahead log, and the files are not searched (they hold
    the words where they were kept)."""
    try:
        return FileCheck.KEPT if storage.erase_deleted() else FileCheck.IN_USE
    except DatabaseLockedError:
        return FileCheck.IN_USE


def _erase_without_files(storage: StoragePort) -> FileCheck:
    """A database that is no file of the data folder: SQLite in memory (nothing to clean),
    or a server (``VACUUM``: its files cannot be searched from here, so never VERIFIED)."""
    if storage.write_engine().dialect.name == "sqlite":
        return FileCheck.IN_MEMORY
    try:
        return FileCheck.ON_SERVER if storage.erase_deleted() else FileCheck.IN_USE
    except DatabaseLockedError:
        return FileCheck.IN_USE


def compact_files(storage: StoragePort) -> FileCheck:
    """Rebuild the database's files so that nothing deleted or overwritten is left in them.

    A SQLite file is rebuilt (``VACUUM``) and its log emptied. A PostgreSQL server's plain
    ``VACUUM`` (every forget's) leaves a deleted row's bytes in the space it frees, and the
    table files keep the pages as they were until the server writes them out: so every
    table is rewritten into new files (``VACUUM FULL``: each is locked meanwhile, so other
    devices wait) and a ``CHECKPOINT`` asked for, after which the old write-ahead log may
    be recycled. What no client can reach stays: log segments until the server reuses
    them, its WAL archives, replicas and backups (``docs/home-server.md``)."""
    if storage.path is None and storage.write_engine().dialect.name == "sqlite":
        return FileCheck.IN_MEMORY
    try:
        if not storage.erase_deleted(compact=True):
            return FileCheck.IN_USE
    except DatabaseLockedError:
        return FileCheck.IN_USE
    if storage.path is not None:
        return FileCheck.COMPACTED
    if storage.checkpoint():
        return FileCheck.REWRITTEN_ON_SERVER
    return FileCheck.REWRITTEN_WITHOUT_CHECKPOINT


def _unknown(key: str) -> NotFoundError:
    return NotFoundError(f"There is no fact called {key!r}.",
                         "See the keys with `hearth facts list`.")
