"""One conversation of Claude's data export (``conversations.json``), read.

A Claude conversation (``uuid``, ``name``, ``created_at``) lists its ``chat_messages`` in
order, each with a ``sender`` (``human`` or ``assistant``), its words as ``content`` blocks
and/or a flat ``text``, and the files the user attached (``attachments``, ``files``).
Newer exports also link each message to its ``parent_message_uuid`` and name the
conversation's ``current_leaf_message_uuid``; where they do, the branch ending there is the
conversation (an edited message or a retried reply left the others), as with ChatGPT.

Kept: the human's and the assistant's words, the ``text`` blocks joined (or the flat
``text`` where there are no blocks). Tool calls and results and thinking blocks are left
out. Attached files' names are kept in the provenance, and the text Claude extracted from
them (an attachment's ``extracted_content``, with its ``file_name``, ``file_type`` and
``file_size``) is handed on as :class:`AttachedText`, a memory of its own
(``core.transfer.attachments``); ``files`` carry names only.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from core.transfer.chat_export import (
    USER_SPEAKER,
    AttachedText,
    ChatConversation,
    ChatMessage,
    ChatService,
    ConversationProblems,
    branch,
)
from core.transfer.validation import Moment, Text

SPEAKER = "Claude"
SENDERS = {"human": USER_SPEAKER, "user": USER_SPEAKER, "assistant": SPEAKER}


class _Block(BaseModel):
    type: str
    text: str | None = None


class _File(BaseModel):
    file_name: str | None = None
    file_type: str | None = None
    file_size: int | None = None
    extracted_content: str | None = None


class _Message(BaseModel):
    uuid: Text
    sender: str
    text: str | None = None
    content: list[_Block] | None = None
    created_at: Moment | None = None
    attachments: list[_File] | None = None
    files: list[_File] | None = None
    parent_message_uuid: str | None = None


class _Conversation(BaseModel):
    """Unknown fields are ignored: the export carries many this import has no use for."""

    uuid: Text
    name: str | None = None
    created_at: Moment
    chat_messages: list[_Message]
    current_leaf_message_uuid: str | None = None


def read_conversation(raw: Any) -> ChatConversation:
    """The messages to import from one decoded conversation of the export."""
    conversation = _Conversation.model_validate(raw)
    ordered = _current_branch(conversation)
    messages = [kept for message in ordered if (kept := _kept(message)) is not None]
    return ChatConversation(
        conversation_id=conversation.uuid,
        title=(conversation.name or "").strip() or "Untitled",
        started_at=conversation.created_at, messages=tuple(messages),
        left_out=len(conversation.chat_messages) - len(messages),
        attachments=tuple(attached for message in ordered
                          for attached in _attached_texts(message)))


def _current_branch(conversation: _Conversation) -> list[_Message]:
    """The messages in order: the branch ending at ``current_leaf_message_uuid`` where
    the export links messages to their parents, else the list as it is."""
    leaf = conversation.current_leaf_message_uuid
    by_id = {message.uuid: message for message in conversation.chat_messages}
    linked = all(message.parent_message_uuid for message in conversation.chat_messages)
    if leaf is None or not linked:
        return conversation.chat_messages
    if leaf not in by_id:
        raise ConversationProblems([(("current_leaf_message_uuid",),
                                     "names no message of chat_messages")])
    index = {message.uuid: at for at, message in enumerate(conversation.chat_messages)}
    path = branch(leaf, {key: message.parent_message_uuid for key, message in by_id.items()},
                  lambda key: ("chat_messages", index[key], "parent_message_uuid"))
    return [by_id[key] for key in path]


def _kept(message: _Message) -> ChatMessage | None:
    """``message`` as a turn, or None where it is not one (see the module docstring)."""
    speaker = SENDERS.get(message.sender.strip().casefold())
    if speaker is None:
        return None
    if message.content:
        text = "\n\n".join(block.text.strip() for block in message.content
                           if block.type == "text" and block.text and block.text.strip())
    else:
        text = (message.text or "").strip()
    if not text:
        return None
    names = [file.file_name for file in (message.attachments or []) + (message.files or [])
             if file.file_name]
    return ChatMessage(message.uuid, speaker, text, message.created_at,
                       tuple(dict.fromkeys(names)))


def _attached_texts(message: _Message) -> list[AttachedText]:
    """The text of each file attached to ``message`` that has some, from a user's or the
    assistant's message (a file with no name is named by its place)."""
    speaker = SENDERS.get(message.sender.strip().casefold())
    if speaker is None:
        return []
    return [AttachedText(message.uuid, position, (file.file_name or "").strip()
                         or f"attachment {position + 1}", file.file_type, file.file_size,
                         text, message.created_at, speaker)
            for position, file in enumerate(message.attachments or [])
            if (text := (file.extracted_content or "").strip())]


CLAUDE = ChatService(name="claude", label=SPEAKER, read=read_conversation)
