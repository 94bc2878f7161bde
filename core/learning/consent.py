"""Whether Hearth may learn from a chat: one answer for every path that learns.

Learning is off when the user paused it (Settings → Privacy, Memory → Pause learning, the
tray: ``settings.learning_paused``) or asked Hearth not to learn from this one chat
(``ChatSession.learn_from``). Then nothing said in the chat becomes a fact, an observation,
a memory candidate or a summary: the learning pipeline, the session digest, compaction and
the assistant's remember/observe tools all ask here first. The chat itself is kept (an
incognito chat, never learned from, is deleted when the user leaves it).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from core.config import Settings
from core.storage.orm import ChatSession


def learns_from(settings: Settings, session: Session, session_id: str | None) -> bool:
    """May what is said in ``session_id`` be learned? (An unknown chat, or an exchange
    outside any chat: only if not paused.)"""
    if settings.learning_paused:
        return False
    chat = None if session_id is None else session.get(ChatSession, session_id)
    return chat is None or chat.learn_from
