"""One chat turn as a background job: the conversation's events go to the window as they
happen (``task.emit``), the last one (finished or failed) is the job's result.

The job creates the chat first when there is none yet, so the very first message of a
fresh data folder needs no separate "new chat" step. ``again_job`` runs the chat's last
exchange again (regenerate, or edit and resend) the same way."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from core.conversation import ConversationService, TurnEvent, TurnFailed, TurnFinished
from desktop.workers import Job, Task


@dataclass(frozen=True)
class TurnResult:
    """The chat the turn ran in and how it ended."""

    session_id: str
    outcome: TurnFinished | TurnFailed


def turn_job(conversation: ConversationService, session_id: str | None, text: str) -> Job:
    """A job that sends ``text`` in ``session_id`` (a new chat when None), streaming
    ``TextDelta``/``ToolActivity``/``Compacted`` events through ``task.emit``; the task's
    cancel token stops the model, and the partial reply is kept, marked stopped."""

    def job(task: Task) -> TurnResult:
        chat = session_id or conversation.new_session()
        return _stream(chat, conversation.send(chat, text, cancel=task.cancel_token), task)

    return job


def again_job(conversation: ConversationService, session_id: str, interaction_id: int,
              text: str | None = None) -> Job:
    """A job that answers the chat's last exchange again: a new reply to the same message
    (``text`` None) or to the user's edit of it, streamed like ``turn_job``'s."""

    def job(task: Task) -> TurnResult:
        return _stream(session_id, conversation.answer_again(
            session_id, interaction_id, text=text, cancel=task.cancel_token), task)

    return job


def _stream(session_id: str, events: Iterator[TurnEvent], task: Task) -> TurnResult:
    outcome: TurnFinished | TurnFailed | None = None
    for event in events:
        if isinstance(event, (TurnFinished, TurnFailed)):
            outcome = event
        else:
            task.emit(event)
    assert outcome is not None, "a turn always ends with TurnFinished or TurnFailed"
    return TurnResult(session_id, outcome)
