"""Running a claimed scheduled prompt through the assistant, and saying what came of it.

The prompt is sent as a chat message in the prompt's own conversation, "Scheduled: <name>"
(found by that title, created the first time), through the same ``ConversationService`` as
the window's chat: memory, profile and tools included, and the exchange saved like any
other. The notification carries the start of the reply. Without a model (none configured,
Ollama down) or when the model fails, the notification says the prompt could not run and
why; the run is not retried (it was claimed before running, see ``core.daily.delivery``):
the next scheduled time runs it again.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlalchemy import select

from core.conversation.events import TurnFailed, TurnFinished
from core.conversation.service import ConversationService
from core.conversation.sessions import CHAT_SOURCE
from core.daily.delivery import SCHEDULED_PROMPT, DuePrompt, Notification
from core.errors import HearthError
from core.llm.protocol import LLMProvider
from core.storage.orm import ChatSession
from core.storage.port import StoragePort

SHOWN_CHARS = 240
"""How much of the reply the notification shows; the whole reply is in the chat."""
TITLE_PREFIX = "Scheduled: "


def run_prompt(due: DuePrompt, provider_factory: Callable[[], LLMProvider], *,
               conversation: Callable[[LLMProvider], ConversationService],
               storage: StoragePort) -> Notification:
    """Run ``due`` with a model from ``provider_factory`` (closed afterwards) in the
    conversation ``conversation`` makes for it, and return the notification that tells the
    user how it went."""
    title = f"{TITLE_PREFIX}{due.name}"
    try:
        provider = provider_factory()
    except HearthError as error:
        return _failed(due, str(error))
    try:
        status = provider.status()
        if not status.available:
            return _failed(due, status.detail)
        chat = conversation(provider)
        session_id = _session(storage, title) or chat.sessions.new_session(title)
        for event in chat.send(session_id, due.prompt):
            if isinstance(event, TurnFailed):
                return _failed(due, event.message)
            if isinstance(event, TurnFinished):
                return Notification(SCHEDULED_PROMPT, due.id, title, _clip(event.reply))
    except HearthError as error:
        return _failed(due, str(error))
    finally:
        provider.close()
    return _failed(due, "the model stopped without a reply")


def _session(storage: StoragePort, title: str) -> str | None:
    """The newest chat titled ``title`` (the prompt's conversation), if there is one."""
    with storage.read() as session:
        found: str | None = session.scalar(
            select(ChatSession.id).where(ChatSession.title == title,
                                         ChatSession.source == CHAT_SOURCE,
                                         ChatSession.incognito.is_(False))
            .order_by(ChatSession.started_at.desc()).limit(1))
    return found


def _failed(due: DuePrompt, why: str) -> Notification:
    return Notification(SCHEDULED_PROMPT, due.id, f"{TITLE_PREFIX}{due.name}",
                        f"Could not run: {why}")


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN_CHARS else text[:SHOWN_CHARS - 1].rstrip() + "…"
