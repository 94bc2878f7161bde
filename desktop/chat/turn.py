"""One chat turn as a background job: the turn operation's events go to the window as they
happen (``task.emit``), its ``TurnResult`` (how it ended, what it changed) is the job's
result.

The operation creates the chat first when there is none yet (its ``Started`` event comes
first, so the window lists the chat at once), so the very first message of a fresh data
folder needs no separate "new chat" step. ``again_job`` runs the chat's last
exchange again (regenerate, or edit and resend) the same way."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from core.operations import chats
from core.operations.chats import Started, TurnEvent, TurnResult
from desktop.workers import Job, Task

if TYPE_CHECKING:
    from core.assistant import Assistant


def turn_job(assistant: Assistant, session_id: str | None, text: str) -> Job:
    """A job that sends ``text`` in ``session_id`` (a new chat when None), streaming
    ``TextDelta``/``ToolActivity``/``Compacted`` events through ``task.emit``; the task's
    cancel token stops the model, and the partial reply is kept, marked stopped."""
    return lambda task: _stream(chats.send(assistant, session_id, text, task.cancel_token),
                                task)


def again_job(assistant: Assistant, session_id: str, interaction_id: int,
              text: str | None = None) -> Job:
    """A job that answers the chat's last exchange again: a new reply to the same message
    (``text`` None) or to the user's edit of it, streamed like ``turn_job``'s."""
    return lambda task: _stream(chats.answer_again(assistant, session_id, interaction_id,
                                                   text, task.cancel_token), task)


def _stream(events: Iterator[Started | TurnEvent | TurnResult], task: Task) -> TurnResult:
    for event in events:
        if isinstance(event, TurnResult):
            return event
        task.emit(event)
    raise AssertionError("a turn operation always ends with its TurnResult")
