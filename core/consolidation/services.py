"""What consolidation reads and writes: the services the composition root wires for it
(``core.app.Hearth.consolidation``), so no stage of a dream holds the whole ``Hearth``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from core.config import Settings
from core.daily.journal import JournalService
from core.daily.read_later import ReadLaterService
from core.embedding import Embedder
from core.knowledge.facts import FactService
from core.knowledge.follow_ups import FollowUpService
from core.knowledge.habits import HabitService
from core.knowledge.about_you import AboutYouService
from core.storage.backups import BackupInfo
from core.storage.port import StoragePort


@dataclass(frozen=True)
class ConsolidationServices:
    """The database and the settings in effect (the same object Settings changes in place);
    the embedder for merged and distilled rows and the quality gate; the services whose
    rows reflection and a run's undo change (facts, profile, follow-ups, habits), the
    journal and read-later lists the nightly titling fills in; and ``backup``, the copy a
    dream makes before it changes anything."""

    storage: StoragePort
    settings: Settings
    embedder: Embedder
    facts: FactService
    about_you: AboutYouService
    follow_ups: FollowUpService
    habits: HabitService
    journal: JournalService
    read_later: ReadLaterService
    backup: Callable[[], BackupInfo]
