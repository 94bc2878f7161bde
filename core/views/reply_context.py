"""Why the assistant said what it said: the context log of one reply, made readable.

A context log (``ChatSessions.context_log``) records every item put in front of the
model by type, id, score and token count, but not its text: the log must not keep a second
copy of a fact the user later forgets. This module looks each item up *now* and says what
it is, where it came from and whether it has changed or gone since the reply, so a front
end can list "the memories used for this reply" without touching the database itself.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.storage.orm import (
    Habit,
    ChatSession,
    ContextLog,
    Interaction,
    Memory,
    Note,
    AboutYouVersion,
    NotesAboutYouVersion,
    UserFact,
    WorkingMemoryVersion,
)
from core.knowledge.memories import speaker
from core.storage.port import IndexedKind, StoragePort, row_text

TEXT_CHARS = 400
"""Longer texts (About you, a pasted message) are cut: the panel shows what an item is."""

GROUPS: tuple[tuple[str, str], ...] = (
    ("fact", "Facts"),
    ("memory", "Memories"),
    ("summary", "Summaries of earlier chats"),
    ("note", "Notes"),
    ("about_you", "About you"),
    ("working_memory", "On your mind lately"),
    ("notes_about_you", "Notes about you"),
    ("habit", "Habits I keep"),
    ("compaction_summary", "Summary of this chat so far"),
    ("history", "Earlier messages"),
)
"""Item kinds in the order a reader wants them (what was recalled first), with headings in
the window's words (the views are named the same: ``docs/desktop.md``, glossary).
Kinds not listed (the user's own message, bookkeeping) are not part of the answer."""

_ORDER = {kind: index for index, (kind, _) in enumerate(GROUPS)}


@dataclass(frozen=True)
class UsedItem:
    """One item the model was given for a reply.

    ``text`` is the item as it reads now ("" when it has been deleted since: ``exists`` is
    then False); ``changed`` says it was edited after the reply, so what the model saw was
    an earlier version. ``score`` is the retrieval score (None for items always included,
    such as facts and the profile). ``passage`` is the part of the text the model was
    given when recall matched one window of it (a sentence, or a stretch of a long text)
    and gave that instead of the whole; None when it was given the whole text, or when the
    text has been edited since and the part can no longer be told."""

    kind: str
    id: int | None
    text: str
    score: float | None
    tokens: int
    provenance: str
    exists: bool = True
    changed: bool = False
    passage: str | None = None
    speaker: str | None = None
    """Who said it, for a memory that is a turn of an imported conversation."""


def reply_context(storage: StoragePort, interaction_id: int) -> list[UsedItem] | None:
    """The items used for one reply, grouped in ``GROUPS`` order (best score first within
    a group); None when the reply has no context log (it failed before the prompt was
    built, or it was written before logs existed)."""
    with storage.read() as session:
        entry = session.scalars(select(ContextLog).where(
            ContextLog.interaction_id == interaction_id)).first()
        if entry is None:
            return None
        replied_at = entry.created_at
        chat = session.get(ChatSession, entry.session_id) if entry.session_id else None
        items = [item for item in entry.items if item.get("type") in _ORDER]
        used = [_describe(session, item, replied_at, entry.session_id, chat)
                for item in items]
    return sorted(used, key=lambda u: (_ORDER[u.kind], -(u.score or 0.0)))


def _describe(session: Session, item: dict[str, Any], replied_at: datetime,
              session_id: str | None, chat: ChatSession | None) -> UsedItem:
    kind, item_id = str(item["type"]), item.get("id")
    base: dict[str, Any] = {"kind": kind, "id": item_id, "score": item.get("score"),
            "tokens": int(item.get("tokens") or 0)}
    if kind == "compaction_summary":
        text = (chat.compaction_summary or "") if chat is not None else ""
        return UsedItem(**base, text=_cut(text), exists=bool(text),
                        provenance=f"older turns folded in, through exchange "
                                   f"{item.get('through_interaction_id')}")
    row = session.get(_MODELS[kind], item_id) if item_id is not None else None
    if row is None:
        label = item.get("key") or ""
        return UsedItem(**base, text="", exists=False,
                        provenance=f"{label} deleted since this reply".strip())
    text, provenance, edited = _DESCRIBERS[kind](row, session_id)
    changed = edited is not None and edited > replied_at
    span = item.get("passage")
    passage = (_passage(kind, row, span) if span is not None and not changed else None)
    return UsedItem(**base, text=_cut(text), provenance=provenance, changed=changed,
                    passage=passage, speaker=speaker(row.origin) if kind == "memory" else None)


def _passage(kind: str, row: Any, span: list[int]) -> str | None:
    """The logged window ``[start, end)`` of the row's indexed text (what recall matched)."""
    indexed = _INDEXED.get(kind)
    if indexed is None:
        return None
    text = row_text(indexed, row)
    start, end = span
    return _cut(text[start:end]) if 0 <= start < end <= len(text) else None


def _cut(text: str) -> str:
    return text if len(text) <= TEXT_CHARS else text[:TEXT_CHARS].rstrip() + " …"


def _day(moment: datetime | None) -> str:
    return f"{moment:%Y-%m-%d}" if moment is not None else "unknown date"


def _which_chat(row_session: str | None, reply_session: str | None) -> str:
    if row_session is None:
        return ""
    return " · from this chat" if row_session == reply_session else " · from another chat"


Described = tuple[str, str, datetime | None]
"""(text now, provenance, when it was last changed: None if it never changes)."""


def _fact(row: UserFact, _session_id: str | None) -> Described:
    return (f"{row.key}: {row.value}",
            f"{row.category} · from {row.source} · updated {_day(row.updated_at)}",
            row.updated_at)


def _memory(row: Memory, session_id: str | None) -> Described:
    status = "" if row.is_valid else " · invalidated since"
    return (row.content,
            f"{row.memory_type} · {row.tier} tier · from {row.source} · "
            f"{_day(row.created_at)}{_which_chat(row.session_id, session_id)}{status}",
            row.updated_at)


def _note(row: Note, session_id: str | None) -> Described:
    return (f"{row.title}: {row.content}",
            f"written {_day(row.created_at)}{_which_chat(row.session_id, session_id)}",
            row.updated_at)


def _version(row: AboutYouVersion | WorkingMemoryVersion, _session_id: str | None) -> Described:
    return row.content, f"version {row.id} · by {row.source} · {_day(row.created_at)}", None


def _notes_about_you(row: NotesAboutYouVersion, _session_id: str | None) -> Described:
    keys = ", ".join(sorted(row.data)) if row.data else "empty"
    return (f"Sections: {keys}", f"version {row.id} · by {row.source} · {_day(row.created_at)}",
            None)


def _habit(row: Habit, _session_id: str | None) -> Described:
    return (row.rule, f"{row.status} · {row.category} · seen {row.recurrence_count}×",
            row.last_seen)


def _history(row: Interaction, _session_id: str | None) -> Described:
    reply = f"\n→ {row.agent_response}" if row.agent_response else ""
    return f"{row.user_message}{reply}", f"said {_day(row.created_at)}", None


_MODELS: dict[str, type] = {
    "fact": UserFact, "memory": Memory, "summary": Note, "note": Note,
    "about_you": AboutYouVersion, "working_memory": WorkingMemoryVersion,
    "notes_about_you": NotesAboutYouVersion, "habit": Habit, "history": Interaction,
}
_INDEXED = {"memory": IndexedKind.MEMORY, "note": IndexedKind.NOTE,
            "summary": IndexedKind.NOTE}
"""Kinds whose log entries may name a window, and which index kind they are."""
_DESCRIBERS: dict[str, Callable[[Any, str | None], Described]] = {
    "fact": _fact, "memory": _memory, "summary": _note, "note": _note,
    "about_you": _version, "working_memory": _version, "notes_about_you": _notes_about_you,
    "habit": _habit, "history": _history,
}


def group_title(kind: str) -> str:
    """The heading of a kind's group (``"memory"`` → ``"Memories"``)."""
    return dict(GROUPS)[kind]


def kinds_in(items: Iterable[UsedItem]) -> list[str]:
    """The kinds present, in ``GROUPS`` order."""
    present = {item.kind for item in items}
    return [kind for kind, _ in GROUPS if kind in present]
