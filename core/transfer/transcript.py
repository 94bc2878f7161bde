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
  (``core.embedding.turn_views``).
  Interactions are not embedded here (``hearth reembed`` does that) to halve import time.

Writing the turns is shared with the chat services' exports (``core.transfer.turns``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, Field, ValidationError

from core.embedding import CancelCheck, ProgressCallback
from core.knowledge.memories import MemoryService
from core.storage.port import StoragePort
from core.transfer import batches
from core.transfer.turns import SessionToWrite, TurnToWrite, write_turns
from core.transfer.validation import Moment, Text, fail, problems_in, read_document

FORMAT_HINT = "See docs/transcript-format.md for the expected format."
MAX_SESSION_ID = 64      # chat_sessions.id
MAX_EXTERNAL_ID = 256    # interactions.external_id, memories.external_id


# --- the format ----------------------------------------------------------------------------


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
    forgotten: int = 0     # turns left out because the user deleted them before
    batch: int | None = field(default=None, compare=False)  # the run (``hearth imports``)


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
    (see ``_sessions``), which can pass the end of year 9999, the last a datetime can hold."""
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


def _sessions(transcript: TranscriptIn) -> list[SessionToWrite]:
    """Every session with its turns and their times: a turn's own timestamp, else the
    session start plus its index in seconds, so that turns without times still sort in
    the order they were spoken."""
    conversation = transcript.conversation_id
    return [
        SessionToWrite(
            row_id=session_row_id(conversation, session.session_id),
            title=f"{conversation} / {session.session_id}", conversation_id=conversation,
            started_at=session.started_at, namespace=memory_namespace(conversation),
            turns=[TurnToWrite(
                external_id=turn_external_id(conversation, turn.turn_id),
                speaker=turn.speaker, text=turn.text,
                created_at=turn.timestamp or session.started_at + timedelta(seconds=index),
                origin={"conversation_id": conversation, "session_id": session.session_id,
                        "turn_id": turn.turn_id, "speaker": turn.speaker})
                for index, turn in enumerate(session.turns)])
        for session in transcript.sessions
    ]


# --- importing -------------------------------------------------------------------------


def import_transcript(
    source: Path | str | Mapping[str, Any],
    storage: StoragePort,
    memories: MemoryService,
    *,
    progress: ProgressCallback | None = None,
    cancel: CancelCheck | None = None,
    include_removed: bool = False,
) -> ImportReport:
    """Import a transcript file (or decoded dict); see the module docstring for the rules.
    ``include_removed`` brings back the turns the user deleted before.

    ``progress`` and ``cancel`` apply to embedding the memories, the slow part. A cancelled
    import keeps what it committed; importing the same file again completes it.
    """
    transcript = load_transcript(source)
    with batches.run(storage, "transcript") as batch:
        written = write_turns(storage, memories, _sessions(transcript), batch=batch,
                              progress=progress, cancel=cancel,
                              include_removed=include_removed)
    return ImportReport(
        sessions=len(transcript.sessions),
        turns=written.turns,
        interactions_created=written.interactions_created,
        memories_created=written.memories_created,
        skipped_existing=written.skipped_existing,
        forgotten=written.forgotten,
        batch=batch,
    )
