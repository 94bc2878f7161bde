"""What an erase would change, place by place, with the words around each match.

A person asked to erase words everywhere must see where they are before anything is
rewritten: their own message, the chat's title, another fact that happens to hold the same
word ("sister home city: Lisbon" when erasing the junk fact "priya: Lisbon"). So a preview
lists each row that would change (``PlaceInPreview``): what it is and where, the text
around each match, and whether it is rewritten unless the person unticks it. Another
fact's rows (its value, its earlier values, what learning noted about it) are *not*
ticked: erasing one fact never rewrites another one unless the person asks for it.

Each place has a ``token`` (``interactions:12``) that the front ends hand back to say which
places to leave (``skip``) or to add (``include``); ``chosen_skips`` turns that choice into
the rows an erase leaves as they are.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import InvalidInputError
from core.forgetting.database import FACT_EVENT, Found, Redactor
from core.forgetting.matching import ValueMatcher
from core.storage.orm import (
    ChatSession,
    ContextEvent,
    FactHistory,
    Interaction,
    Memory,
    Note,
    UserFact,
)

EXCERPT_CHARS = 60
"""Characters shown on each side of a match."""
EXCERPTS_PER_PLACE = 3

OTHER_FACTS = ("user_facts", "fact_history")


@dataclass(frozen=True)
class Excerpt:
    """A match with the words around it (``…before`` ``match`` ``after…``)."""

    before: str
    match: str
    after: str

    def __str__(self) -> str:
        return f"{self.before}«{self.match}»{self.after}"


@dataclass(frozen=True)
class PlaceInPreview:
    """One row an erase would rewrite: ``kind`` is the place's name (``chat messages``),
    ``where`` says which one in words, ``when`` its time if it has one."""

    token: str
    kind: str
    where: str
    when: datetime | None
    excerpts: tuple[Excerpt, ...]
    ticked: bool
    """Rewritten unless the person unticks it; another fact's rows are not ticked."""


def describe(session: Session, found: Sequence[Found], redactor: Redactor,
             key: str | None = None) -> tuple[PlaceInPreview, ...]:
    """The rows ``found`` as a preview lists them (``key``: the fact being erased, whose
    own records are not listed as another fact's)."""
    return tuple(PlaceInPreview(item.token, item.place.label,
                                *_where(session, item, key),
                                _excerpts(item, redactor.for_row(item.place.table,
                                                                 item.row_id)),
                                not _another_facts(session, item, key))
                 for item in found)


def chosen_skips(places: Iterable[PlaceInPreview], skip: Iterable[str] = (),
                 include: Iterable[str] = ()) -> frozenset[str]:
    """The tokens an erase leaves as they are: the places not ticked unless included, and
    those the person unticked. A token that names no place of this preview is refused:
    a typo must not erase what the person meant to keep."""
    listed = {place.token: place for place in places}
    unknown = sorted({*skip, *include} - set(listed))
    if unknown:
        raise InvalidInputError(
            f"{', '.join(unknown[:5])} {'is' if len(unknown) == 1 else 'are'} not among the "
            "places this erase would change.", "See them with --preview; nothing was erased.")
    unticked = {token for token, place in listed.items() if not place.ticked}
    return frozenset((unticked - set(include)) | set(skip))


def _another_facts(session: Session, item: Found, key: str | None) -> bool:
    """Whether the row is another fact's value, earlier value or learning record."""
    table = item.place.table
    if table in OTHER_FACTS:
        return True
    if table != "context_events":
        return False
    event = session.get(ContextEvent, item.row_id)
    return (event is not None and event.event_type == FACT_EVENT
            and event.source_metadata.get("fact_key") != key)


def _where(session: Session, item: Found, key: str | None) -> tuple[str, datetime | None]:
    """Which row it is, in words a person knows it by, and its time."""
    table, row_id = item.place.table, item.row_id
    if table == "interactions":
        row = session.get(Interaction, row_id)
        if row is not None:
            chat = session.get(ChatSession, row.session_id) if row.session_id else None
            whose = ("Hearth's reply" if set(item.changes) == {"agent_response"}
                     else "your message" if row.speaker in (None, "", "user")
                     else "the assistant's message" if row.speaker == "assistant"
                     else f"a message by {row.speaker}")
            if "agent_response" in item.changes and whose != "Hearth's reply":
                whose += " and Hearth's reply"
            titled = f" in the chat “{chat.title}”" if chat is not None and chat.title else ""
            return f"{whose}{titled}", row.created_at
    if table == "chat_sessions":
        chat = session.get(ChatSession, row_id)
        if chat is not None:
            return f"the chat “{chat.title}”", chat.started_at
    if table == "user_facts":
        fact = session.get(UserFact, row_id)
        if fact is not None:
            return f"the fact “{fact.key.replace('_', ' ')}”", fact.updated_at
    if table == "fact_history":
        earlier = session.get(FactHistory, row_id)
        if earlier is not None:
            name = session.scalar(select(UserFact.key).where(UserFact.id == earlier.fact_id))
            return (f"an earlier value of the fact “{str(name).replace('_', ' ')}”",
                    earlier.replaced_at)
    if table == "context_events":
        event = session.get(ContextEvent, row_id)
        if event is not None and event.event_type == FACT_EVENT:
            noted = str(event.source_metadata.get("fact_key", "")).replace("_", " ")
            return f"what learning noted about “{noted}”", event.created_at
    if table == "memories":
        memory = session.get(Memory, row_id)
        if memory is not None:
            chat = session.get(ChatSession, memory.session_id) if memory.session_id else None
            titled = f" from the chat “{chat.title}”" if chat is not None and chat.title else ""
            return f"memory #{row_id}{titled}", memory.created_at
    if table == "notes":
        note = session.get(Note, row_id)
        if note is not None:
            return f"the note “{note.title}”" if note.title else f"note #{row_id}", \
                note.updated_at
    return f"{item.place.label} #{row_id}", None


def _excerpts(item: Found, matcher: ValueMatcher) -> tuple[Excerpt, ...]:
    found: list[Excerpt] = []
    for value in item.before.values():
        for text in _texts(value):
            found.extend(_around(text, matcher))
            if len(found) >= EXCERPTS_PER_PLACE:
                return tuple(found[:EXCERPTS_PER_PLACE])
    return tuple(found)


def _texts(value: Any) -> Iterable[str]:
    """The strings of a column's value (a text, or the strings and keys inside JSON)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for name, inner in value.items():
            yield str(name)
            yield from _texts(inner)
    elif isinstance(value, (list, tuple)):
        for inner in value:
            yield from _texts(inner)


def _around(text: str, matcher: ValueMatcher) -> Iterable[Excerpt]:
    for start, end in matcher.spans(text):
        before = text[max(0, start - EXCERPT_CHARS):start]
        after = text[end:end + EXCERPT_CHARS]
        yield Excerpt(("…" if start > EXCERPT_CHARS else "") + _flat(before, end=False),
                      text[start:end],
                      _flat(after, end=True) + ("…" if end + EXCERPT_CHARS < len(text) else ""))


def _flat(text: str, *, end: bool) -> str:
    """Line breaks as spaces, keeping the space next to the match."""
    flat = " ".join(text.split())
    if not flat:
        return ""
    if end:
        return (" " if text[:1].isspace() else "") + flat
    return flat + (" " if text[-1:].isspace() else "")
