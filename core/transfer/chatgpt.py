"""One conversation of ChatGPT's data export (``conversations.json``), read.

A ChatGPT conversation is a tree, not a list: ``mapping`` holds every message ever written
in it by node id, each with its ``parent``. Editing a message or regenerating a reply
starts a new branch, and ``current_node`` is the leaf of the branch the user last saw, so
the conversation as the user knows it is the path from the root to ``current_node``
(``chat_export.branch``). Messages on other branches are left out.

On that branch only what a person and ChatGPT said to each other is kept:

* the user's messages, and the assistant's addressed to the user (``recipient`` ``all``;
  a message to ``python``, ``browser`` or ``dalle`` is a tool call);
* of text content (``text``, ``multimodal_text``: the string parts; an image part is
  recorded as an attachment named ``image``). Code run, tool output, browsing quotes,
  reasoning summaries and the custom instructions (``user_editable_context``) are left out;
* not hidden (``metadata.is_visually_hidden_from_conversation``), and not empty.

Times are seconds since 1970 (``create_time``); a message without one is placed after the
one before it (``chat_export._session``).
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator

from core.transfer.chat_export import (
    USER_SPEAKER,
    ChatConversation,
    ChatMessage,
    ChatService,
    ConversationProblems,
    branch,
)
from core.transfer.validation import Text

SPEAKER = "ChatGPT"
TEXT_CONTENT = frozenset({"text", "multimodal_text"})
_TO_EVERYONE = (None, "all")


def _from_epoch(value: object) -> datetime:
    """Seconds since 1970 (a float in the export) → a UTC datetime."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError("must be a number of seconds since 1970")
    try:
        return datetime.fromtimestamp(value, timezone.utc)
    except (OverflowError, OSError, ValueError):
        raise ValueError("is out of range (not a time between years 1 and 9999)") from None


Epoch = Annotated[datetime, BeforeValidator(_from_epoch)]


class _Author(BaseModel):
    role: str


class _Content(BaseModel):
    content_type: str
    parts: list[Any] | None = None


class _Message(BaseModel):
    id: Text
    author: _Author
    create_time: Epoch | None = None
    content: _Content
    recipient: str | None = "all"
    metadata: dict[str, Any] | None = None


class _Node(BaseModel):
    message: _Message | None = None
    parent: str | None = None


class _Conversation(BaseModel):
    """Unknown fields are ignored: the export carries many this import has no use for."""

    conversation_id: Text | None = None
    id: Text | None = None
    title: str | None = None
    create_time: Epoch
    mapping: dict[str, _Node]
    current_node: str | None = None


def read_conversation(raw: Any) -> ChatConversation:
    """The messages to import from one decoded conversation of the export."""
    conversation = _Conversation.model_validate(raw)
    key = conversation.conversation_id or conversation.id
    if key is None:
        raise ConversationProblems([(("conversation_id",), "is missing")])
    path = branch(_leaf(conversation),
                  {node_id: node.parent for node_id, node in conversation.mapping.items()},
                  lambda node_id: ("mapping", node_id, "parent"))
    messages = []
    for node_id in path:
        kept = _kept(conversation.mapping[node_id].message)
        if kept is not None:
            messages.append(kept)
    written = sum(node.message is not None for node in conversation.mapping.values())
    return ChatConversation(
        conversation_id=key, title=(conversation.title or "").strip() or "Untitled",
        started_at=conversation.create_time, messages=tuple(messages),
        left_out=written - len(messages))


def _leaf(conversation: _Conversation) -> str:
    """``current_node``; an export without one ends at its newest message (any branch)."""
    if conversation.current_node is not None:
        if conversation.current_node not in conversation.mapping:
            raise ConversationProblems([(("current_node",), "names no node of mapping")])
        return conversation.current_node
    timed = [(node.message.create_time, node_id)
             for node_id, node in conversation.mapping.items()
             if node.message is not None and node.message.create_time is not None]
    if not timed:
        return next(reversed(conversation.mapping), "")
    return max(timed)[1]


def _kept(message: _Message | None) -> ChatMessage | None:
    """``message`` as a turn, or None where it is not one (see the module docstring)."""
    if message is None or (message.metadata or {}).get("is_visually_hidden_from_conversation"):
        return None
    role = message.author.role
    if not (role == "user" or (role == "assistant" and message.recipient in _TO_EVERYONE)):
        return None
    if message.content.content_type not in TEXT_CONTENT:
        return None
    parts = message.content.parts or []
    text = "\n".join(part for part in parts if isinstance(part, str)).strip()
    if not text:
        return None
    attachments = [str(item["name"]) for item in (message.metadata or {}).get("attachments") or []
                   if isinstance(item, dict) and isinstance(item.get("name"), str)]
    attachments += ["image" for part in parts if isinstance(part, dict)
                    and str(part.get("content_type", "")).startswith("image")]
    return ChatMessage(message.id, USER_SPEAKER if role == "user" else SPEAKER, text,
                       message.create_time, tuple(attachments))


CHATGPT = ChatService(name="chatgpt", label=SPEAKER, read=read_conversation)
