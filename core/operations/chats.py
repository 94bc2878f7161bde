"""Chats for the window: the list (recent, searched), a chat's history, starting, renaming,
deleting, incognito chats and the per-chat learning switch; and the turns themselves (send,
answer again, answer without one item) with what a reply was given ("Why?").

What learning took from each exchange is read and undone here too (``core.learning.notes``):
a chat shows it under its replies.

Each takes the running assistant (its ``conversation``) and plain values. A turn streams:
its operation yields the conversation's own event records (``TextDelta``, ``ToolActivity``,
``Compacted``) as they happen and ends with one ``TurnResult``, so the window can show the
reply while it is written and still receive a single result with its ``Changes``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core.conversation import (
    Compacted,
    Exchange,
    FromMemory,
    SessionDeletion,
    SessionInfo,
    TextDelta,
    ToolActivity,
    TurnEvent,
    TurnFailed,
    TurnFinished,
)
from core.conversation.assembly import LEAVABLE, LeftOut
from core.conversation.memory_answer import KnownAnswer
from core.conversation.tool_words import tool_words
from core.learning.notes import LearnedFact, learned_in_session
from core.learning.notes import undo as undo_learned_fact
from core.views.reply_context import UsedItem, group_title, kinds_in
from core.views.reply_context import reply_context as recorded_context

if TYPE_CHECKING:
    from core.app import Hearth
    from core.assistant import Assistant
    from core.llm.protocol import CancelToken

__all__ = [
    "LEAVABLE", "Compacted", "Deleted", "Exchange", "FromMemory", "KnownAnswer",
    "LearnedFact", "SessionDeletion",
    "SessionInfo", "Started", "Stored", "TextDelta", "ToolActivity", "TurnEvent",
    "TurnFailed", "TurnFinished", "TurnResult", "Unlearned", "UsedItem", "answer_again",
    "answer_without", "delete", "discard_incognito", "group_title", "history", "kinds_in",
    "learned", "recent", "rename", "reply_context", "search", "send", "set_learning",
    "start", "tool_words", "undo_learned", "learning_settled",
]

@dataclass(frozen=True)
class TurnResult:
    """The chat a turn ran in (made by the turn when there was none) and how it ended."""

    session_id: str
    outcome: TurnFinished | TurnFailed


@dataclass(frozen=True)
class Started:
    session_id: str


@dataclass(frozen=True)
class Stored:
    """What a change to one chat stored (its new title, its learning choice, how many
    incognito chats went)."""

    value: str | bool | int


@dataclass(frozen=True)
class Deleted:
    deletion: SessionDeletion


@dataclass(frozen=True)
class Unlearned:
    """A learned fact undone (removed, or its previous value back), as it is now."""

    item: LearnedFact


# --- the list ----------------------------------------------------------------------------------


def recent(assistant: Assistant, limit: int) -> list[SessionInfo]:
    """Chats and imported sessions, most recently active first."""
    return assistant.conversation.sessions.recent_sessions(limit, include_imported=True)


def search(assistant: Assistant, query: str, limit: int) -> list[SessionInfo]:
    """Chats whose title or messages contain words of ``query`` (only ever words)."""
    return assistant.conversation.sessions.search_sessions(query, limit)


def history(assistant: Assistant, session_id: str) -> list[Exchange]:
    return assistant.conversation.sessions.session_history(session_id)


# --- one chat ----------------------------------------------------------------------------------


def start(assistant: Assistant, *, incognito: bool = False,
          finished: str | None = None) -> Started:
    """A new chat; ``finished``, the chat the user leaves, is handed to learning to be
    summarised now rather than when it falls quiet."""
    if finished is not None:
        assistant.learning.session_ended(finished)
    return Started(assistant.conversation.sessions.new_session(incognito=incognito))


def rename(assistant: Assistant, session_id: str, title: str) -> Stored:
    """Returns the title stored (an empty one is refused with a sentence)."""
    return Stored(assistant.conversation.sessions.rename_session(session_id, title))


def set_learning(assistant: Assistant, session_id: str, learn: bool) -> Stored:
    """Learn from this chat or not, from its next message on."""
    return Stored(assistant.conversation.sessions.set_learning(session_id, learn))


def delete(assistant: Assistant, session_id: str) -> Deleted:
    """Delete a chat with its exchanges and summaries; what was learned from it stays."""
    return Deleted(assistant.conversation.sessions.delete_session(session_id))


def discard_incognito(assistant: Assistant, keep: str | None = None) -> Stored:
    """Delete every incognito chat but ``keep``; the value is how many went."""
    gone = assistant.conversation.sessions.discard_incognito(keep=keep)
    return Stored(gone)


# --- turns -------------------------------------------------------------------------------------


def send(assistant: Assistant, session_id: str | None, text: str,
         cancel: CancelToken) -> Iterator[Started | TurnEvent | TurnResult]:
    """Send ``text`` in ``session_id`` (a new chat when None: the very first message of a
    fresh data folder needs no separate "new chat" step; ``Started`` comes first then, so
    the chat is listed while its first reply is still being written). A cancel stops the
    model; the partial reply is kept, marked stopped."""
    conversation = assistant.conversation
    chat = session_id
    if chat is None:
        chat = conversation.sessions.new_session()
        yield Started(chat)
    yield from _ended(chat, conversation.send(chat, text, cancel=cancel))


def answer_again(assistant: Assistant, session_id: str, interaction_id: int,
                 text: str | None, cancel: CancelToken) -> Iterator[TurnEvent | TurnResult]:
    """Answer the chat's last exchange again: to the same message (``text`` None), or to
    the user's edit of it."""
    yield from _ended(session_id, assistant.conversation.answer_again(
        session_id, interaction_id, text=text, cancel=cancel))


def _ended(session_id: str, events: Iterator[TurnEvent]) -> Iterator[TurnEvent | TurnResult]:
    """The turn's events, with its last one (finished or failed) as the ``TurnResult``."""
    for event in events:
        if isinstance(event, (TurnFinished, TurnFailed)):
            yield TurnResult(session_id, event)
            return
        yield event
    raise AssertionError("a turn always ends with TurnFinished or TurnFailed")


def answer_without(assistant: Assistant, session_id: str, interaction_id: int, kind: str,
                   item_id: int, cancel: CancelToken) -> Iterator[TextDelta]:
    """What the model answers to an exchange's message without one context item (one of
    ``LEAVABLE``): streamed, never saved nor learned from, so it changes nothing."""
    return assistant.conversation.answer_without(session_id, interaction_id,
                                                 LeftOut(kind, item_id), cancel=cancel)


# --- what learning took from a chat ------------------------------------------------------------


def learned(hearth: Hearth, session_id: str) -> dict[int, tuple[LearnedFact, ...]]:
    """What learning added or changed in a chat, per exchange id, in the order it happened."""
    return learned_in_session(hearth.storage, session_id)


def undo_learned(hearth: Hearth, event_id: int) -> Unlearned:
    """Revert one learned change (refused with a sentence once the fact changed since)."""
    return Unlearned(undo_learned_fact(event_id, storage=hearth.storage, facts=hearth.facts))


def learning_settled(assistant: Assistant) -> bool:
    """Whether learning has digested every exchange handed to it. Answers at once (never
    waits), so the window can ask it on a timer without holding a thread."""
    return assistant.learning.drain(timeout=0)


def reply_context(hearth: Hearth, interaction_id: int) -> list[UsedItem] | None:
    """What the reply of exchange ``interaction_id`` was given (None: it kept no record)."""
    return recorded_context(hearth.storage, interaction_id)
