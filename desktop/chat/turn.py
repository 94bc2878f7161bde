"""One chat turn as a background job: the conversation's events go to the window as they
happen (``task.emit``), the last one (finished or failed) is the job's result.

The job creates the chat first when there is none yet, so the very first message of a
fresh data folder needs no separate "new chat" step."""

from __future__ import annotations

from dataclasses import dataclass

from core.conversation import ConversationService, TurnFailed, TurnFinished
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
        outcome: TurnFinished | TurnFailed | None = None
        for event in conversation.send(chat, text, cancel=task.cancel_token):
            if isinstance(event, (TurnFinished, TurnFailed)):
                outcome = event
            else:
                task.emit(event)
        assert outcome is not None, "a turn always ends with TurnFinished or TurnFailed"
        return TurnResult(chat, outcome)

    return job
