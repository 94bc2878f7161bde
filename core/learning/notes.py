"""What learning changed after each exchange, as plain data, and undoing one change.

The pipeline records every fact it adds or changes as a ``fact`` context event carrying the
exchange (``interaction_id``, ``session_id``), the key and the previous value
(``core.learning.pipeline``). That event is the record read here, so no second copy of a
value is kept anywhere: a fact the user forgets takes its events with it
(``core.forgetting``), and its note goes too.

``learned_in_session`` gives, per exchange, the ``LearnedFact`` items a chat shows under
its replies ("Remembered: sister lives in Lisbon · Undo · Edit"), whenever the chat is
opened. ``undo`` reverts one change:

* a fact learning *added* is removed: the fact, its history, its vector and the events
  that carried it (``core.forgetting.database.delete_fact``, the database step of a
  forget). The user's own message is left as written: to erase a value from every chat
  and memory, Forget it in Facts;
* a fact learning *updated* gets its previous value (and category) back through
  ``FactService.remember``, so the learned value goes into the fact's history like any
  other change; the event is marked undone and, if consolidation has not read it yet,
  it never will.

Undo is refused once the fact has changed since (edited, corrected, learned again): it
would overwrite something newer.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import InvalidInputError, NotFoundError
from core.forgetting.database import FACT_EVENT, delete_fact
from core.knowledge.facts import key_words
from core.storage.orm import AuditEntry, ContextEvent, FactHistory, UserFact, utcnow
from core.knowledge.facts import FactService
from core.storage.port import StoragePort

LearnedAction = Literal["added", "updated"]
LearnedState = Literal["kept", "undone", "changed"]
"""``kept``: the fact still has the learned value; ``undone``: the user undid it;
``changed``: the fact was changed (or removed) since, so it cannot be undone."""


@dataclass(frozen=True)
class LearnedFact:
    """One fact learning added or updated from one exchange."""

    event_id: int
    interaction_id: int
    key: str
    action: LearnedAction
    before: str | None
    after: str
    current: str | None
    """The fact's value now (``None`` once it is gone)."""
    state: LearnedState

    @property
    def can_undo(self) -> bool:
        return self.state == "kept"


def learned_in_session(storage: StoragePort, session_id: str
                       ) -> dict[int, tuple[LearnedFact, ...]]:
    """What learning changed in a chat, per exchange id, in the order it happened."""
    query = (select(ContextEvent)
             .where(ContextEvent.event_type == FACT_EVENT,
                    ContextEvent.source_metadata["session_id"].as_string() == session_id)
             .order_by(ContextEvent.id))
    with storage.read() as session:
        events = list(session.scalars(query))
        current = _current_values(session, {_key(event) for event in events})
    learned: dict[int, list[LearnedFact]] = {}
    for event in events:
        item = _learned(event, current)
        if item is not None:
            learned.setdefault(item.interaction_id, []).append(item)
    return {interaction_id: tuple(items) for interaction_id, items in learned.items()}


def undo(event_id: int, *, storage: StoragePort, facts: FactService) -> LearnedFact:
    """Revert one learned change (see the module docstring); returns it as it is now.
    ``NotFoundError`` if it is no longer recorded (the fact was forgotten),
    ``InvalidInputError`` if the fact has changed since or it was undone already."""
    item = _find(storage, event_id)
    if not item.can_undo:
        raise InvalidInputError(
            f"“{key_words(item.key)}” has changed since it was learned, so undoing would "
            "overwrite something newer." if item.state == "changed"
            else "This was undone already.",
            "Edit or forget the fact in Facts.")
    if item.action == "added":
        with storage.write() as session:
            delete_fact(session, item.key)
            session.add(AuditEntry(action="fact.undo_learned", actor="user",
                                   arguments={"key": item.key, "event_id": event_id},
                                   result_summary="removed"))
        return _undone(item, current=None)
    assert item.before is not None  # an update always had a value before
    category = _previous_category(storage, item.key)
    facts.remember(item.key, item.before, category=category, source="user")
    with storage.write() as session:
        event = session.get(ContextEvent, event_id)
        if event is not None:
            event.source_metadata = {**event.source_metadata, "undone": True}
            if not event.processed:  # consolidation must not learn the undone value
                event.processed, event.processed_at = True, utcnow()
        session.add(AuditEntry(action="fact.undo_learned", actor="user",
                               arguments={"key": item.key, "event_id": event_id},
                               result_summary="restored"))
    return _undone(item, current=item.before)


# --- reading ---------------------------------------------------------------------------------


def _key(event: ContextEvent) -> str:
    return str(event.source_metadata.get("fact_key", ""))


def _current_values(session: Session, keys: Iterable[str]) -> dict[str, str]:
    rows = session.execute(select(UserFact.key, UserFact.value)
                           .where(UserFact.key.in_(list(keys))))
    return {key: value for key, value in rows}


def _learned(event: ContextEvent, current: dict[str, str]) -> LearnedFact | None:
    """The event as a ``LearnedFact``; None for one without the exchange it came from."""
    meta = event.source_metadata
    key, interaction_id = _key(event), meta.get("interaction_id")
    prefix = f"{key}: "
    if not key or not isinstance(interaction_id, int) or not event.content.startswith(prefix):
        return None
    after = event.content[len(prefix):]
    before = meta.get("previous_value")
    now = current.get(key)
    state: LearnedState = ("undone" if meta.get("undone")
                           else "kept" if now == after else "changed")
    return LearnedFact(event.id, interaction_id, key, "added" if before is None else "updated",
                       before, after, now, state)


def _find(storage: StoragePort, event_id: int) -> LearnedFact:
    with storage.read() as session:
        event = session.get(ContextEvent, event_id)
        item = None
        if event is not None and event.event_type == FACT_EVENT:
            item = _learned(event, _current_values(session, [_key(event)]))
    if item is None:
        raise NotFoundError("That change is no longer recorded: the fact was forgotten.",
                            "See Facts for what Hearth knows now.")
    return item


def _previous_category(storage: StoragePort, key: str) -> str:
    """The category the fact had before its last change (its newest history entry)."""
    with storage.read() as session:
        category = session.scalar(
            select(FactHistory.category).join(UserFact).where(UserFact.key == key)
            .order_by(FactHistory.id.desc()).limit(1))
        if category is None:
            category = session.scalar(select(UserFact.category).where(UserFact.key == key))
    return category or "general"


def _undone(item: LearnedFact, *, current: str | None) -> LearnedFact:
    return LearnedFact(item.event_id, item.interaction_id, item.key, item.action, item.before,
                       item.after, current, "undone")
