"""Language models behind one protocol (see ``core.llm.protocol``)."""

from core.llm.protocol import (
    CancelToken,
    ChatChunk,
    LLMCancelled,
    LLMError,
    LLMModelMissingError,
    LLMOutage,
    LLMProvider,
    LLMServerError,
    LLMTimeoutError,
    LLMUnavailableError,
    Message,
    ModelInfo,
    ProviderStatus,
    PullProgress,
    ToolCall,
    ToolSpec,
)

__all__ = [
    "CancelToken", "ChatChunk", "LLMCancelled", "LLMError", "LLMModelMissingError",
    "LLMOutage", "LLMProvider", "LLMServerError", "LLMTimeoutError", "LLMUnavailableError",
    "Message", "ModelInfo", "ProviderStatus", "PullProgress", "ToolCall", "ToolSpec",
]
