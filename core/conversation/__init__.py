"""The conversation: assembling each turn's prompt, running the model with tools, logging
the exchange, and compacting long conversations. See ``docs/conversation.md``."""

from core.conversation.events import (
    Compacted,
    FromMemory,
    ExchangeListener,
    TextDelta,
    ToolActivity,
    TurnEvent,
    TurnFailed,
    TurnFinished,
)
from core.conversation.service import ConversationService
from core.conversation.sessions import (
    ChatSessions,
    ContextLogRecord,
    Exchange,
    SessionDeletion,
    SessionInfo,
)
from core.conversation.tools import Confirm

__all__ = [
    "ChatSessions", "Compacted", "Confirm", "ContextLogRecord", "ConversationService",
    "Exchange", "ExchangeListener", "FromMemory", "SessionDeletion", "SessionInfo", "TextDelta",
    "ToolActivity", "TurnEvent", "TurnFailed", "TurnFinished",
]
