"""Writing imported conversation turns: what every conversation importer shares.

A transcript (``core.transfer.transcript``) and a chat service's export
(``core.transfer.chat_export``: ChatGPT, Claude) differ only in how they are read. Once
read, each is a list of dated sessions of spoken turns, and each turn becomes the same
three things:

* its session, a ``ChatSession`` (source ``import``) created if missing; a newer export of
  a conversation that grew moves its ``last_message_at`` forward;
* an ``Interaction``, the raw record (channel ``import``);
* an episodic ``Memory`` whose text is ``"<speaker>: <text>"``, embedded as the mean of its
  views (``core.embedding.turn_views``), with the importer's provenance in ``origin``.

Interaction and memory share the turn's ``external_id``, the idempotency key: whatever
already exists is skipped, so importing the same thing twice adds nothing and an import
stopped anywhere (killed between two transactions, cancelled while embedding) is
completed by running it again. Rows are written in short transactions
(``core.storage.pacing``) and embedded outside them, so nobody waits long to write.

A turn whose memory the user deleted is left out and counted (``forgotten``): its
external id was recorded by the delete (``core.forgetting.imported``). Each memory names
the import run that added it in ``origin.import_batch`` (``core.transfer.batches``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, TypeVar

from sqlalchemy import insert, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from core.embedding import CancelCheck, ProgressCallback
from core.forgetting import imported
from core.knowledge.memories import MemoryService, MemorySpec
from core.storage.orm import ChatSession, Interaction, Memory
from core.storage.pacing import WritePacer
from core.storage.port import IMPORTED_SOURCE, StoragePort, batched
from core.transfer.batches import with_batch
from core.embedding.turn_views import SpokenTurn, turn_views

LOOKUP_BATCH = 500       # ids per IN (...) lookup

T = TypeVar("T")


@dataclass(frozen=True)
class TurnToWrite:
    """One spoken turn, read and checked by an importer."""

    external_id: str
    speaker: str
    text: str
    created_at: datetime
    origin: Mapping[str, Any]
    """Where it came from in the source's own terms; recall cites ``origin["turn_id"]``."""


@dataclass(frozen=True)
class SessionToWrite:
    """One dated session and its turns in spoken order."""

    row_id: str
    title: str
    conversation_id: str
    started_at: datetime
    namespace: str
    turns: Sequence[TurnToWrite]


@dataclass(frozen=True)
class TurnsWritten:
    """What writing a set of sessions added, in turns."""

    interactions_created: int = 0
    memories_created: int = 0
    touched: int = 0
    """Turns for which something was created (an interaction, a memory or both)."""
    turns: int = 0
    forgotten: int = 0
    """Turns left out because the user deleted them before."""

    @property
    def skipped_existing(self) -> int:
        """Turns already imported completely: nothing was created for them."""
        return self.turns - self.touched

    def __add__(self, other: TurnsWritten) -> TurnsWritten:
        return TurnsWritten(self.interactions_created + other.interactions_created,
                            self.memories_created + other.memories_created,
                            self.touched + other.touched, self.turns + other.turns,
                            self.forgotten + other.forgotten)


@dataclass(frozen=True)
class _Planned:
    session: SessionToWrite
    turn: TurnToWrite
    views: tuple[str, ...]


def write_turns(
    storage: StoragePort,
    memories: MemoryService,
    sessions: Sequence[SessionToWrite],
    *,
    batch: int | None = None,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    include_removed: bool = False,
) -> TurnsWritten:
    """Create whatever of ``sessions`` is missing and was not forgotten (with
    ``include_removed``, what was forgotten too); see the module docstring. ``batch`` is
    the import run recorded on the new memories.

    ``progress`` and ``cancel`` apply to embedding the new memories, the slow part.
    """
    planned = _plan(sessions)
    left_out = imported.left_out(storage, planned, include_removed=include_removed)
    for key in left_out:
        del planned[key]
    kept = [chat for chat in sessions if any(turn.external_id in planned for turn in chat.turns)]
    with storage.write() as session:
        _add_or_extend_sessions(session, kept)
    interactions_created, interaction_ids = _write_interactions(storage, planned)
    specs = _missing_memories(storage, planned, interaction_ids, batch)
    memories.add_many(specs, progress=progress, cancel=cancel)
    with_memory = {spec.external_id for spec in specs}
    return TurnsWritten(len(interactions_created), len(specs),
                        len(interactions_created | with_memory), len(planned), len(left_out))


def _plan(sessions: Sequence[SessionToWrite]) -> dict[str, _Planned]:
    """Every turn by its external id, with the views its vector is the mean of."""
    planned: dict[str, _Planned] = {}
    for chat in sessions:
        started = chat.started_at.astimezone(timezone.utc)  # as stored, for the backfill
        spoken = [SpokenTurn(turn.speaker, turn.text, started) for turn in chat.turns]
        for index, turn in enumerate(chat.turns):
            planned[turn.external_id] = _Planned(chat, turn, turn_views(spoken, index))
    return planned


def existing(session: Session, column: InstrumentedAttribute[T], values: Iterable[T]) -> set[T]:
    """Which of ``values`` are already present in ``column`` (looked up in IN batches)."""
    found: set[T] = set()
    for chunk in batched(list(values), LOOKUP_BATCH):
        found.update(session.scalars(select(column).where(column.in_(chunk))))
    return found


def _add_or_extend_sessions(session: Session, sessions: Sequence[SessionToWrite]) -> None:
    """Insert the missing sessions; move an existing one's ``last_message_at`` forward when
    the source now has later turns (a newer export of a conversation that went on)."""
    last = {chat.row_id: max((turn.created_at for turn in chat.turns), default=None)
            for chat in sessions}
    present = {row.id: row for chunk in batched([chat.row_id for chat in sessions],
                                                 LOOKUP_BATCH)
               for row in session.scalars(select(ChatSession).where(ChatSession.id.in_(chunk)))}
    for chat in sessions:
        newest = last[chat.row_id]
        row = present.get(chat.row_id)
        if row is None:
            session.add(ChatSession(id=chat.row_id, title=chat.title, source=IMPORTED_SOURCE,
                                    conversation_id=chat.conversation_id,
                                    started_at=chat.started_at, last_message_at=newest))
        elif newest is not None and (row.last_message_at is None
                                     or row.last_message_at < newest):
            row.last_message_at = newest


def _write_interactions(storage: StoragePort, planned: Mapping[str, _Planned],
                        ) -> tuple[set[str | None], dict[str, int]]:
    """Insert the missing interactions in short transactions (``WritePacer``: a large
    import must not keep other writers waiting). Each transaction looks up which of its
    turns exist first, so an interrupted import resumes without duplicates.

    Returns the external ids whose interaction was created now, and the interaction id of
    every turn (new or existing) for linking the memories.
    """
    created: set[str | None] = set()
    pacer = WritePacer(storage)
    for keys in pacer.slices(list(planned)):
        with pacer.write() as session:
            present = existing(session, Interaction.external_id, keys)
            new = [(key, planned[key]) for key in keys if key not in present]
            if new:  # a bulk INSERT: the ORM's unit of work costs twice the time
                session.execute(insert(Interaction), [
                    {"session_id": p.session.row_id, "user_message": p.turn.text,
                     "speaker": p.turn.speaker, "channel": "import", "external_id": key,
                     "created_at": p.turn.created_at} for key, p in new])
        created.update(key for key, _ in new)
    ids: dict[str, int] = {}
    with storage.read() as session:
        for chunk in batched(list(planned), LOOKUP_BATCH):
            for external_id, row_id in session.execute(
                    select(Interaction.external_id, Interaction.id)
                    .where(Interaction.external_id.in_(chunk))):
                assert external_id is not None  # it matched the IN list
                ids[external_id] = row_id
    return created, ids


def _missing_memories(storage: StoragePort, planned: Mapping[str, _Planned],
                      interaction_ids: Mapping[str, int],
                      batch: int | None) -> list[MemorySpec]:
    """Specs for the turns that have no memory yet (naming the import run ``batch``)."""
    with storage.read() as session:
        present = existing(session, Memory.external_id, planned)
    return [
        MemorySpec(
            f"{p.turn.speaker}: {p.turn.text}", memory_type="episodic",
            namespace=p.session.namespace, source=IMPORTED_SOURCE,
            session_id=p.session.row_id, interaction_id=interaction_ids[key],
            external_id=key, origin=with_batch(p.turn.origin, batch), created_at=p.turn.created_at,
            views=p.views)
        for key, p in planned.items() if key not in present
    ]
