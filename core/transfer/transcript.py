"""``hearth import transcript FILE``: dated multi-session conversations into memory.

The format is documented in ``docs/transcript-format.md``. Each session becomes a
``ChatSession``; each turn becomes an ``Interaction`` (the raw record) and a turn-level
episodic ``Memory`` whose text is ``"<speaker>: <text>"`` (the speaker is part of the
meaning: "I moved to Porto" says nothing without who said it). Both carry the external id
``turn:<conversation_id>:<turn_id>`` (turn ids are often reused across conversations), and
the memory's ``origin`` keeps the conversation, session, turn id and speaker, so recall
results cite the source turn (``provenance["turn_id"]``).

Guarantees:

* the whole file is validated before anything is written, and every problem is reported
  with its position (``sessions[2].turns[5].text is missing``);
* re-importing the same file changes nothing: sessions, interactions and memories that
  already exist (by id / external id) are skipped. This also makes an interrupted import
  resumable: running it again creates only what is missing;
* nobody waits long for it: it writes in short transactions (``core.storage.pacing``) and
  embeds outside them, so a chat or ``facts set`` meanwhile waits a fraction of a second;
* no LLM is involved; memories are embedded in batches by ``MemoryService.add_many``,
  each turn as the mean of several views: dated, and with its neighbours
  (``core.transfer.turn_views``).
  Interactions are not embedded here (``hearth reembed`` does that) to halve import time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Annotated, Any, TypeVar

from pydantic import BaseModel, Field, StringConstraints, ValidationError
from sqlalchemy import insert, select
from sqlalchemy.orm import InstrumentedAttribute, Session

from core.embedding import CancelCheck, ProgressCallback
from core.knowledge.memories import MemoryService, MemorySpec
from core.storage.orm import ChatSession, Interaction, Memory
from core.storage.pacing import WritePacer
from core.storage.port import IMPORTED_SOURCE, StoragePort, batched
from core.transfer.turn_views import SpokenTurn, turn_views
from core.transfer.validation import Moment, fail, problems_in, read_document

FORMAT_HINT = "See docs/transcript-format.md for the expected format."
MAX_SESSION_ID = 64      # chat_sessions.id
MAX_EXTERNAL_ID = 256    # interactions.external_id, memories.external_id
LOOKUP_BATCH = 500       # ids per IN (...) lookup

T = TypeVar("T")


# --- the format ----------------------------------------------------------------------------


Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]


class TurnIn(BaseModel):
    turn_id: Annotated[Text, Field(max_length=MAX_EXTERNAL_ID)]
    speaker: Annotated[Text, Field(max_length=128)]
    text: Text
    timestamp: Moment | None = None


class SessionIn(BaseModel):
    session_id: Text
    started_at: Moment
    turns: list[TurnIn]


class TranscriptIn(BaseModel):
    """Unknown fields are ignored, so richer exports of other tools import as they are."""

    conversation_id: Annotated[Text, Field(max_length=128)]
    participants: list[Text]
    sessions: Annotated[list[SessionIn], Field(min_length=1)]


@dataclass(frozen=True)
class ImportReport:
    """What an import found and what it added."""

    sessions: int
    turns: int
    interactions_created: int
    memories_created: int
    skipped_existing: int  # turns already imported completely (nothing created for them)


# --- reading and validating ------------------------------------------------------------


def load_transcript(source: Path | str | Mapping[str, Any]) -> TranscriptIn:
    """Parse and validate a transcript file (or an already-decoded dict), all or nothing."""
    data = read_document(source, FORMAT_HINT)
    try:
        transcript = TranscriptIn.model_validate(data)
    except ValidationError as exc:
        _fail(problems_in(exc, whole="the transcript"))
    _fail(_consistency_problems(transcript))
    return transcript


def _consistency_problems(transcript: TranscriptIn) -> list[str]:
    """What one field cannot check alone: unique ids, ids that fit their columns, and turn
    times that fit a datetime."""
    problems = []
    conversation = transcript.conversation_id
    sessions: dict[str, str] = {}
    turns: dict[str, str] = {}
    for s_index, session in enumerate(transcript.sessions):
        where = f"sessions[{s_index}].session_id"
        if session.session_id in sessions:
            problems.append(f"{where} repeats {sessions[session.session_id]}")
        sessions.setdefault(session.session_id, where)
        if len(session_row_id(conversation, session.session_id)) > MAX_SESSION_ID:
            problems.append(f"{where} is too long (conversation_id and session_id together "
                            f"must be at most {MAX_SESSION_ID - len('import::')} characters)")
        for t_index, turn in enumerate(session.turns):
            where = f"sessions[{s_index}].turns[{t_index}].turn_id"
            if turn.turn_id in turns:
                problems.append(f"{where} repeats {turns[turn.turn_id]}")
            turns.setdefault(turn.turn_id, where)
            if len(turn_external_id(conversation, turn.turn_id)) > MAX_EXTERNAL_ID:
                problems.append(f"{where} is too long together with the conversation_id")
        late = _last_untimed_turn_after_9999(session)
        if late is not None:
            problems.append(f"sessions[{s_index}].turns[{late}] has no timestamp, and "
                            f"started_at plus {late} s falls after year 9999")
    return problems


def _last_untimed_turn_after_9999(session: SessionIn) -> int | None:
    """Turns without a timestamp are timed ``started_at`` plus their index in seconds
    (see ``_plan``), which can pass the end of year 9999, the last a datetime can hold."""
    untimed = [index for index, turn in enumerate(session.turns) if turn.timestamp is None]
    if not untimed:
        return None
    try:
        session.started_at + timedelta(seconds=untimed[-1])
    except OverflowError:
        return untimed[-1]
    return None


def _fail(problems: list[str]) -> None:
    fail(problems, "The transcript", FORMAT_HINT)


# --- what it becomes -------------------------------------------------------------------


def session_row_id(conversation_id: str, session_id: str) -> str:
    return f"import:{conversation_id}:{session_id}"


def turn_external_id(conversation_id: str, turn_id: str) -> str:
    """The idempotency key of an imported turn (its interaction and its memory): turn ids
    are often only unique within their conversation (``D1:3`` in every one)."""
    return f"turn:{conversation_id}:{turn_id}"


def memory_namespace(conversation_id: str) -> str:
    return f"import/{conversation_id}"


@dataclass(frozen=True)
class _PlannedTurn:
    session_row_id: str
    session_id: str
    turn: TurnIn
    created_at: datetime
    views: tuple[str, ...]


def _plan(transcript: TranscriptIn) -> list[_PlannedTurn]:
    """Every turn with its time: its own timestamp, else the session start plus its index
    in seconds, so that turns without times still sort in the order they were spoken."""
    planned = []
    for session in transcript.sessions:
        row_id = session_row_id(transcript.conversation_id, session.session_id)
        started = session.started_at.astimezone(timezone.utc)  # as stored, for the backfill
        spoken = [SpokenTurn(turn.speaker, turn.text, started) for turn in session.turns]
        for index, turn in enumerate(session.turns):
            created = turn.timestamp or session.started_at + timedelta(seconds=index)
            planned.append(_PlannedTurn(row_id, session.session_id, turn, created,
                                        turn_views(spoken, index)))
    return planned


# --- importing -------------------------------------------------------------------------


def import_transcript(
    source: Path | str | Mapping[str, Any],
    storage: StoragePort,
    memories: MemoryService,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
) -> ImportReport:
    """Import a transcript file (or decoded dict); see the module docstring for the rules.

    ``progress`` and ``cancel`` apply to embedding the memories, the slow part. A cancelled
    import keeps what it committed; importing the same file again completes it.
    """
    transcript = load_transcript(source)
    planned = _plan(transcript)
    interactions_created, interaction_ids = _write_sessions_and_interactions(
        storage, transcript, planned)
    specs, turns_with_new_memory = _missing_memories(storage, transcript, planned,
                                                     interaction_ids)
    created_ids = memories.add_many(specs, progress=progress, cancel=cancel) if specs else []
    touched = interactions_created | turns_with_new_memory
    return ImportReport(
        sessions=len(transcript.sessions),
        turns=len(planned),
        interactions_created=len(interactions_created),
        memories_created=len(created_ids),
        skipped_existing=len(planned) - len(touched),
    )


def _existing(session: Session, column: InstrumentedAttribute[T], values: Iterable[T]) -> set[T]:
    """Which of ``values`` are already present in ``column`` (looked up in IN batches)."""
    found: set[T] = set()
    for chunk in batched(list(values), LOOKUP_BATCH):
        found.update(session.scalars(select(column).where(column.in_(chunk))))
    return found


def _write_sessions_and_interactions(
    storage: StoragePort, transcript: TranscriptIn, planned: list[_PlannedTurn],
) -> tuple[set[str], dict[str, int]]:
    """Insert the missing sessions, then the missing interactions in short transactions
    (``WritePacer``: a large transcript must not keep other writers waiting). Each
    transaction looks up which of its turns exist first, so an interrupted import resumes
    without duplicates.

    Returns the turn ids whose interaction was created now, and the interaction id of
    every turn (new or existing) for linking the memories.
    """
    conversation = transcript.conversation_id
    by_external = {turn_external_id(conversation, p.turn.turn_id): p for p in planned}
    with storage.write() as session:
        _add_missing_sessions(session, transcript, planned)
    created: set[str] = set()
    pacer = WritePacer(storage)
    for keys in pacer.slices(list(by_external)):
        with pacer.write() as session:
            existing = _existing(session, Interaction.external_id, keys)
            new = [(key, by_external[key]) for key in keys if key not in existing]
            if new:  # a bulk INSERT: the ORM's unit of work costs twice the time
                session.execute(insert(Interaction), [
                    {"session_id": p.session_row_id, "user_message": p.turn.text,
                     "speaker": p.turn.speaker, "channel": "import", "external_id": key,
                     "created_at": p.created_at} for key, p in new])
        created.update(p.turn.turn_id for _, p in new)
    ids: dict[str, int] = {}
    with storage.read() as session:
        for chunk in batched(list(by_external), LOOKUP_BATCH):
            for external_id, row_id in session.execute(
                    select(Interaction.external_id, Interaction.id)
                    .where(Interaction.external_id.in_(chunk))):
                assert external_id is not None  # it matched the IN list
                ids[by_external[external_id].turn.turn_id] = row_id
    return created, ids


def _add_missing_sessions(session: Session, transcript: TranscriptIn,
                          planned: list[_PlannedTurn]) -> None:
    last_message: dict[str, datetime] = {}
    for p in planned:
        last_message[p.session_row_id] = max(p.created_at,
                                             last_message.get(p.session_row_id, p.created_at))
    rows = {session_row_id(transcript.conversation_id, s.session_id): s
            for s in transcript.sessions}
    existing = _existing(session, ChatSession.id, rows)
    session.add_all(
        ChatSession(id=row_id, title=f"{transcript.conversation_id} / {s.session_id}",
                    source=IMPORTED_SOURCE, conversation_id=transcript.conversation_id,
                    started_at=s.started_at, last_message_at=last_message.get(row_id))
        for row_id, s in rows.items() if row_id not in existing)


def _missing_memories(
    storage: StoragePort, transcript: TranscriptIn, planned: list[_PlannedTurn],
    interaction_ids: Mapping[str, int],
) -> tuple[list[MemorySpec], set[str]]:
    """Specs for the turns that have no memory yet, and those turns' ids."""
    conversation = transcript.conversation_id
    by_external = {turn_external_id(conversation, p.turn.turn_id): p for p in planned}
    with storage.read() as session:
        existing = _existing(session, Memory.external_id, by_external)
    missing = [p for key, p in by_external.items() if key not in existing]
    namespace = memory_namespace(conversation)
    specs = [
        MemorySpec(
            f"{p.turn.speaker}: {p.turn.text}", memory_type="episodic", namespace=namespace,
            source=IMPORTED_SOURCE, session_id=p.session_row_id,
            interaction_id=interaction_ids[p.turn.turn_id],
            external_id=turn_external_id(conversation, p.turn.turn_id),
            origin={"conversation_id": conversation, "session_id": p.session_id,
                    "turn_id": p.turn.turn_id, "speaker": p.turn.speaker},
            created_at=p.created_at, views=p.views)
        for p in missing
    ]
    return specs, {p.turn.turn_id for p in missing}
