"""What learning reads and writes: the services the composition root wires for it
(``core.app.Hearth.learning``), so no learning code holds the whole ``Hearth``."""

from __future__ import annotations

from dataclasses import dataclass

from core.config import Settings
from core.embedding import Embedder
from core.knowledge.facts import FactService
from core.knowledge.notes import NoteService
from core.storage.port import StoragePort


@dataclass(frozen=True)
class LearningServices:
    """The database, the settings in effect (the same object Settings changes in place),
    the embedder (for the quality gate and new rows), the facts learning stores and the
    notes chat summaries become."""

    storage: StoragePort
    settings: Settings
    embedder: Embedder
    facts: FactService
    notes: NoteService
