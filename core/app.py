"""``Hearth``: the public service API of the memory engine.

The desktop app and the CLI talk to ``core`` only through this object: it opens a data
folder (taking the shared folder lock, closing it to other users), wires storage, the embedder and
the services, and
owns their lifetime. Nothing here knows about Qt or terminals.

A data folder this process cannot write is refused at once with a sentence, unless it is
opened ``read_only`` (for what only reads: stats, search, export), which changes nothing in
it. Which database is opened is the storage factory's choice (``core.storage.factory``,
from the ``database_url`` setting); a missing SQLite database where the folder shows there
was one is never replaced by an empty one (``refuse_lost_database``). A PostgreSQL password
an older ``settings.json`` still holds in ``database_url`` is moved out of it once the
database opened (``core.config.database_password``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING


from core.daily.actions import Actions, DailyServices
from core.daily.alerts import AlertService
from core.daily.journal import JournalService
from core.daily.pending_actions import PendingActionService
from core.daily.read_later import ReadLaterService
from core.daily.reminders import ReminderService
from core.daily.scheduled_prompts import ScheduledPromptService
from core.daily.tasks import TaskService
from core.storage import backups
from core.config import Settings, load_settings
from core.config.database_password import move_out_of_settings
from core.home.paths import HearthPaths, resolve_home
from core.embedding import Embedder, OnnxEmbedder
from core.errors import HearthError, InvalidInputError, ReadOnlyError
from core.daily.delivery import DueSources
from core.learning.services import LearningServices
from core.agents.services import AgentServices
from core.consolidation.services import ConsolidationServices
from core.llm.protocol import LLMProvider
from core.knowledge.facts import FactService
from core.forgetting.recently_deleted import RecentlyDeleted, purge_expired
from core.forgetting.service import ForgetService
from core.home.instance_lock import FolderLock
from core.knowledge.follow_ups import FollowUpService
from core.knowledge.habits import HabitService
from core.storage.liveness import reconcile
from core.knowledge.memories import MemoryService
from core.knowledge.notes import NoteService
from core.home.private_files import secure_home
from core.knowledge.about_you import AboutYouService
from core.recall import RecallService
from core.storage.factory import open_storage
from core.storage.port import StoragePort

if TYPE_CHECKING:  # the conversation is loaded when one is opened: a command needs none
    from core.conversation.events import ExchangeListener
    from core.conversation.service import ConversationService
    from core.conversation.services import ConversationServices
    from core.conversation.tools import Confirm
    from core.conversation.user_turn import Clock
    from core.llm.turns_first import TurnsFirst

log = logging.getLogger(__name__)


@dataclass
class Hearth:
    paths: HearthPaths
    settings: Settings
    storage: StoragePort
    embedder: Embedder
    memories: MemoryService
    facts: FactService
    notes: NoteService
    recall: RecallService
    about_you: AboutYouService
    follow_ups: FollowUpService
    habits: HabitService
    forgetting: ForgetService
    deleted: RecentlyDeleted
    """Single entries the user deleted, until their undo window ends."""
    tasks: TaskService
    reminders: ReminderService
    scheduled_prompts: ScheduledPromptService
    alerts: AlertService
    journal: JournalService
    read_later: ReadLaterService
    actions: Actions
    """The changes a model may ask for (``core.daily.actions``), applied by ``pending``."""
    pending: PendingActionService
    _lock: FolderLock | None = None

    @classmethod
    def open(cls, home: Path | str | None = None, *, settings: Settings | None = None,
             embedder: Embedder | None = None, read_only: bool = False,
             check_now: bool = False) -> Hearth:
        """Open (creating if needed) the data folder ``home``; see ``resolve_home``. A
        folder an older Hearth left readable by others is made private first.

        ``read_only``: open it without changing anything (no lock file made where none can
        be, no permission repair, no migration, no bookkeeping of stopped work); every
        write then fails with ``ReadOnlyError``. ``check_now``: run the check of the first
        write now (``StoragePort.check_writable``), for the window, which should say at
        start that its database is damaged rather than at some later write."""
        paths = HearthPaths(resolve_home(home))
        if not read_only and not paths.writable():
            raise ReadOnlyError.at(paths.home)
        lock = _shared_lock(paths, read_only)
        try:
            if not read_only:
                secure_home(paths.home)
            settings = settings or load_settings(paths)
            storage = open_storage(settings, paths, read_only=read_only)
            if check_now:
                _checked(storage)
        except BaseException:
            if lock is not None:
                lock.release()
            raise
        if not read_only:
            _reconcile(storage)
            move_out_of_settings(paths.home)  # an older settings.json's database password
        embedder = embedder or OnnxEmbedder(settings.embedding_model_dir,
                                            threads=settings.embedding_threads,
                                            batch_size=settings.embedding_batch_size)
        notes = NoteService(storage, embedder)
        daily = DailyServices(TaskService(storage), ReminderService(storage), notes,
                              ScheduledPromptService(storage))
        actions = Actions(daily, storage)
        return cls(
            paths=paths,
            settings=settings,
            storage=storage,
            embedder=embedder,
            memories=MemoryService(storage, embedder),
            facts=FactService(storage, embedder),
            notes=notes,
            recall=RecallService(storage, embedder, settings),
            about_you=AboutYouService(storage),
            follow_ups=FollowUpService(storage, settings),
            habits=HabitService(storage),
            forgetting=ForgetService(storage, embedder, paths),
            deleted=RecentlyDeleted(storage, embedder),
            tasks=daily.tasks,
            reminders=daily.reminders,
            scheduled_prompts=daily.scheduled_prompts,
            alerts=AlertService(storage),
            journal=JournalService(storage),
            read_later=ReadLaterService(storage),
            actions=actions,
            pending=PendingActionService(storage, actions),
            _lock=lock,
        )

    # --- the services each engine package is given (the composition root) ---------------

    def learning(self) -> LearningServices:
        """What learning reads and writes (``core.learning``)."""
        return LearningServices(storage=self.storage, settings=self.settings,
                                embedder=self.embedder, facts=self.facts, notes=self.notes)

    def consolidation(self) -> ConsolidationServices:
        """What a dream, its stages, reflection and a run's undo read and write
        (``core.consolidation``)."""
        return ConsolidationServices(
            storage=self.storage, settings=self.settings, embedder=self.embedder,
            facts=self.facts, about_you=self.about_you, follow_ups=self.follow_ups,
            habits=self.habits, journal=self.journal, read_later=self.read_later,
            backup=self.backup)

    def agent_services(self) -> AgentServices:
        """What an agent's calls and the MCP server read and write (``core.agents``)."""
        return AgentServices(storage=self.storage, settings=self.settings, facts=self.facts,
                             about_you=self.about_you, recall=self.recall,
                             forgetting=self.forgetting)

    def due_sources(self) -> DueSources:
        """Where a delivery pass claims due items (``core.daily.delivery``)."""
        return DueSources(reminders=self.reminders, alerts=self.alerts,
                          follow_ups=self.follow_ups,
                          scheduled_prompts=self.scheduled_prompts)

    def conversation_services(self) -> ConversationServices:
        """What a conversation reads and writes (``core.conversation``)."""
        from core.conversation.services import ConversationServices, DailyToolServices

        daily = DailyToolServices(
            storage=self.storage, recall=self.recall, actions=self.actions,
            pending=self.pending, tasks=self.tasks, reminders=self.reminders,
            scheduled_prompts=self.scheduled_prompts, notes=self.notes, journal=self.journal,
            read_later=self.read_later)
        return ConversationServices(storage=self.storage, settings=self.settings,
                                    facts=self.facts, recall=self.recall,
                                    forgetting=self.forgetting, daily=daily)

    def conversation(self, provider: LLMProvider, *, listener: ExchangeListener | None = None,
                     clock: Clock | None = None, confirm: Confirm | None = None,
                     channel: str = "desktop", turns: TurnsFirst | None = None
                     ) -> ConversationService:
        """A conversation with ``provider`` over this folder's memory."""
        from core.conversation.service import ConversationService

        return ConversationService(self.conversation_services(), provider, listener=listener,
                                   clock=clock, confirm=confirm, channel=channel, turns=turns)

    def backup(self) -> backups.BackupInfo:
        return backups.create_backup(self.storage, self.paths, self.settings.backups_to_keep)

    def export(self, path: Path, *, plain: bool = False) -> dict[str, int]:
        """Write everything to ``path`` as one JSON file (``core.transfer.export``); returns
        rows per table. A file Hearth keeps in the data folder is refused: an export must
        never overwrite the database, a backup or the settings. An encrypted folder's
        export is plain JSON, so it is written only when asked for as such (``plain``):
        the person chose encryption, and an export would quietly undo it."""
        from core.home.encryption import read_marker
        from core.transfer.export import export_all

        if not plain and read_marker(self.paths.home) is not None:
            raise InvalidInputError(
                "This data folder is encrypted, and an export is a plain JSON file that "
                "anyone who gets it can read.",
                "Add --plain to write it anyway, or take an encrypted copy with "
                "`hearth backup`.")

        if self.paths.is_own_file(path):
            raise InvalidInputError(
                f"{path} is one of Hearth's own files; exporting there would overwrite it.",
                "Choose a new file, outside the data folder's database, backups and "
                "settings (for example ~/hearth-export.json).")
        return export_all(self.storage, path)

    def close(self) -> None:
        self.storage.close()
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def __enter__(self) -> Hearth:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def _reconcile(storage: StoragePort) -> None:
    """Exchanges and runs a killed process left unfinished are marked interrupted
    (``core.storage.liveness``), and deleted entries whose undo has ended are purged
    (``core.forgetting.recently_deleted``). Bookkeeping: a database or folder that refuses
    the write now (locked for longer than the busy timeout, read-only) is still opened, and
    the next open tries again."""
    try:
        reconcile(storage)
    except (HearthError, OSError) as exc:
        log.warning("could not mark the work of stopped processes interrupted: %s", exc)
    try:
        purge_expired(storage)
    except (HearthError, OSError) as exc:
        log.warning("could not purge deleted entries whose undo has ended: %s", exc)


def _checked(storage: StoragePort) -> None:
    """``storage.check_writable()``, closing it when the check refuses it."""
    try:
        storage.check_writable()
    except BaseException:
        storage.close()
        raise


def _shared_lock(paths: HearthPaths, read_only: bool) -> FolderLock | None:
    """The shared folder lock, which keeps a restore from replacing the database under us.
    A read-only open goes without it where the lock file cannot be made (then no Hearth has
    ever written this folder): it changes nothing, so it cannot spoil a restore either."""
    try:
        return FolderLock(paths.home, exclusive=False)
    except ReadOnlyError:
        if read_only:
            return None
        raise
