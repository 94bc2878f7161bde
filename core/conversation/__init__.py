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
from core.conversation.service import (
    ContextLogRecord,
    ConversationService,
    Exchange,
    SessionInfo,
)
from core.conversation.tools import Confirm

__all__ = [
    "Compacted", "Confirm", "ContextLogRecord", "ConversationService", "Exchange",
    "ExchangeListener", "FromMemory", "SessionInfo", "TextDelta", "ToolActivity", "TurnEvent",
    "TurnFailed", "TurnFinished",
]
