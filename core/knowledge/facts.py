"""Permanent user facts: the remember and recall tools, over ``user_facts``.

A fact is a key-value pair the user (or the agent on the user's behalf) stated outright:
``home_address``, ``partner_name``, ``dietary_restrictions``. Facts are upserted by key and
never pruned by the machine, so they survive where the narrative profile would lose them.

Four rules shape this module:

* an upsert whose value did not change writes nothing (no history row, no new
  ``updated_at``, no re-embedding), because extraction re-states known facts constantly;
* a changed value keeps the previous one in ``fact_history`` in the same transaction as the
  update and its new embedding, so the fact, its past and its vector never disagree;
* a writer that may add facts but not overrule the user (another program over MCP) passes
  ``yield_to_user``: a value the user set (source ``"user"``) is then left as it is and
  ``SetByUser`` raised, checked again inside the write transaction so a value the user
  sets meanwhile is not replaced either;
* the audit entries of ``remember`` record key, category and source but never the value:
  a fact the user forgets must leave no copy behind. Forgetting is not done here but by
  ``core.forgetting``, because it reaches far beyond this table: every value the fact had
  is removed from chats, memories, events, indexes, files and (asked) backups.

Objects returned from reads are detached from their session; ``UserFact.history`` is not
loaded on them (use :meth:`FactService.history`).
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass
from typing import Literal

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.embedding import Embedder
from core.embedding.chunking import embed_documents_with_chunks
from core.errors import HearthError, InvalidInputError, NotFoundError
from core.storage.orm import AuditEntry, FactHistory, UserFact, utcnow
from core.storage.port import IndexedKind, StoragePort, document_text
from core.user_input import FORGOTTEN, readable_text

CATEGORIES: tuple[str, ...] = ("location", "personal", "preference", "work", "health", "general")
MAX_KEY_LENGTH = 200  # user_facts.key is String(200)

FactAction = Literal["created", "updated", "unchanged"]
USER = "user"
"""The source of a value the user set (stated, typed, or corrected)."""


class SetByUser(HearthError):
    """The fact's value was set by the user, and the writer may not replace it: the
    caller asks the user instead (``core.agents.writes`` holds it for review)."""

    def __init__(self, key: str, value: str) -> None:
        super().__init__(f"The user set {key} themselves, so it is not changed without "
                         "their review.", "Ask the user to change it.")
        self.key = key
        self.value = value


@dataclass(frozen=True)
class FactChange:
    """What one ``remember`` did, so the caller (tool, CLI, UI) can say it back."""

    key: str
    action: FactAction
    old_value: str | None
    new_value: str


def normalise_key(key: str) -> str:
    """``"Home Address!"`` → ``"home_address"``: one spelling per fact, whoever writes it.

    Letters and digits of any script are kept (``"café"`` stays ``"café"``); everything
    else becomes a single underscore, trimmed at both ends.
    """
    readable_text(key, "The fact key")  # else "caf\udce9" would quietly become "caf"
    normalised = re.sub(r"[\W_]+", "_", key.strip().lower()).strip("_")
    if not normalised:
        raise InvalidInputError(f"The fact key {key!r} has no letters or digits.",
                                "Name it in a few words, such as “home address”.")
    if len(normalised) > MAX_KEY_LENGTH:
        raise InvalidInputError(f"The fact key is {len(normalised)} characters long.",
                                f"Use a key of at most {MAX_KEY_LENGTH} characters.")
    return normalised


def key_words(key: str) -> str:
    """A fact's key as a person says it: ``"sister_name"`` → ``"sister name"``. The stored
    key (``normalise_key``) is the precise name ``hearth facts`` takes; every sentence a
    person reads names the fact this way (the window's ``spaced`` is the same rule)."""
    return key.replace("_", " ").strip()


def fact_text(key: str, value: str) -> str:
    """The text a fact is embedded as: ``"home address: 12 Rua Nova"`` reads like prose."""
    return document_text(IndexedKind.FACT, (key, value))


def _check_category(category: str) -> str:
    if category not in CATEGORIES:
        raise InvalidInputError(f"{category!r} is not a fact category.",
                                f"Use one of: {', '.join(CATEGORIES)}.")
    return category


def _check_value(value: str) -> str:
    """A value with text in it, and not what a forget left behind: a sentence such as "I live
    in [forgotten]" must not teach Hearth a fact whose value is the placeholder."""
    stripped = readable_text(value, "The fact value").strip()
    if not stripped:
        raise InvalidInputError("A fact needs a value.", "Say what the fact is, not just its key.")
    if FORGOTTEN in stripped:
        raise InvalidInputError(f"“{FORGOTTEN}” marks a forgotten value; it cannot be part "
                                "of a fact.", "Say the fact in your own words.")
    return stripped


class FactService:
    """Remember, recall and forget permanent facts, with their history and embeddings."""

    def __init__(self, storage: StoragePort, embedder: Embedder) -> None:
        self._storage = storage
        self._embedder = embedder

    # --- writing -----------------------------------------------------------------------

    def remember(self, key: str, value: str, category: str = "general", source: str = USER,
                 confidence: float = 1.0, *, yield_to_user: bool = False) -> FactChange:
        """Upsert a fact by key; an unchanged value (case-sensitive) is a no-op, even if the
        category or source given differ (re-stating a fact does not recategorise it). With
        ``yield_to_user``, a different value where the user set the current one raises
        ``SetByUser`` and changes nothing.

        The new value is embedded before the write transaction opens, so the database is
        never locked during inference; the row, its history and its vector are then
        written together.
        """
        key = normalise_key(key)
        value = _check_value(value)
        category = _check_category(category)
        if not 0.0 <= confidence <= 1.0:
            raise InvalidInputError(f"Confidence {confidence} is outside 0..1.",
                                    "Pass a confidence between 0 and 1.")
        known = self.get(key)
        if known is not None and known.value == value:
            return FactChange(key, "unchanged", value, value)
        if yield_to_user and known is not None and known.source == USER:
            raise SetByUser(key, known.value)
        self._storage.search.ensure_dimensions(self._embedder.dimensions)
        embedded = embed_documents_with_chunks(self._embedder, [fact_text(key, value)])
        with self._storage.write() as session:
            fact = self._find(session, key)
            old_value = fact.value if fact is not None else None
            if old_value == value:  # another writer stored the same value meanwhile
                return FactChange(key, "unchanged", value, value)
            if yield_to_user and fact is not None and fact.source == USER:  # set meanwhile
                raise SetByUser(key, fact.value)
            if fact is None:
                fact = UserFact(key=key, value=value, category=category, source=source,
                                confidence=confidence)
                session.add(fact)
            else:
                self._archive(session, fact)
                fact.value, fact.category, fact.source = value, category, source
                fact.confidence, fact.updated_at = confidence, utcnow()
            action: FactAction = "created" if old_value is None else "updated"
            session.flush()
            embedded.store(self._storage.search, session, IndexedKind.FACT, [fact.id],
                           self._embedder.model_id)
            session.add(AuditEntry(
                action="fact.remember", actor=source,
                arguments={"key": key, "category": category, "source": source},
                result_summary=action))
        return FactChange(key, action, old_value, value)

    def recategorise(self, key: str, category: str) -> FactChange:
        """Move a fact to another category (the user's correction; the value, its history
        and its vector are untouched, so nothing is re-embedded)."""
        key, category = normalise_key(key), _check_category(category)
        with self._storage.write() as session:
            fact = self._require(session, key)
            if fact.category == category:
                return FactChange(key, "unchanged", fact.value, fact.value)
            fact.category, fact.updated_at = category, utcnow()
            session.add(AuditEntry(action="fact.recategorise", actor="user",
                                   arguments={"key": key, "category": category},
                                   result_summary="updated"))
            return FactChange(key, "updated", fact.value, fact.value)

    def restore(self, key: str, history_id: int) -> FactChange:
        """Make an earlier value of the fact (its ``fact_history`` row ``history_id``) the
        current one again, with the category, source and confidence it had: a change like
        any other, so the value it replaces joins the history (undoing a run that changed
        the fact; ``core.consolidation.undo``)."""
        key = normalise_key(key)
        with self._storage.read() as session:
            earlier = session.scalars(select(FactHistory).join(UserFact).where(
                FactHistory.id == history_id, UserFact.key == key)).one_or_none()
            if earlier is None:
                raise NotFoundError(f"The fact {key!r} has no such earlier value.",
                                    f"See its history with `hearth facts history {key}`.")
            session.expunge(earlier)
        return self.remember(key, earlier.value, category=earlier.category,
                             source=earlier.source, confidence=earlier.confidence)

    def retire(self, key: str) -> None:
        """Remove a fact a run added when the user undoes that run's change: the row, its
        vector (by trigger) and its history go. Not a forget (``core.forgetting``): the
        chats it was learned from are untouched. Audited by key, never by value."""
        key = normalise_key(key)
        with self._storage.write() as session:
            fact = self._require(session, key)
            session.delete(fact)
            session.add(AuditEntry(action="fact.retire", actor="user",
                                   arguments={"key": key, "category": fact.category},
                                   result_summary="retired"))

    # --- reading -----------------------------------------------------------------------

    def get(self, key: str) -> UserFact | None:
        key = normalise_key(key)
        with self._storage.read() as session:
            fact = self._find(session, key)
            session.expunge_all()
        return fact

    def list(self, category: str | None = None) -> builtins.list[UserFact]:
        """All facts (or one category's), ordered by category then key."""
        query = select(UserFact).order_by(UserFact.category, UserFact.key)
        if category is not None:
            query = query.where(UserFact.category == _check_category(category))
        with self._storage.read() as session:
            facts = builtins.list(session.scalars(query))
            session.expunge_all()
        return facts

    def search(self, query: str) -> builtins.list[UserFact]:
        """Facts whose key or value contains ``query``, ignoring case; all facts if empty.

        Done in Python rather than SQL: a person has hundreds of facts at most, and Python's
        ``casefold`` handles every script where SQL ``lower()`` may only fold ASCII. The key
        is also matched with spaces for underscores, so "home address" finds home_address.
        """
        needle = query.strip().casefold()
        return [fact for fact in self.list()
                if needle in fact.key.casefold()
                or needle in fact.key.replace("_", " ").casefold()
                or needle in fact.value.casefold()]

    def by_category(self) -> dict[str, builtins.list[UserFact]]:
        """Facts grouped by category, in the order the system prompt shows them."""
        grouped: dict[str, builtins.list[UserFact]] = {}
        for fact in self.list():
            grouped.setdefault(fact.category, []).append(fact)
        return grouped

    def history(self, key: str) -> builtins.list[FactHistory]:
        """Previous values of a fact, oldest first; empty for an unknown key."""
        key = normalise_key(key)
        query = (select(FactHistory).join(UserFact).where(UserFact.key == key)
                 .order_by(FactHistory.id))
        with self._storage.read() as session:
            entries = builtins.list(session.scalars(query))
            session.expunge_all()
        return entries

    # --- helpers -----------------------------------------------------------------------

    @staticmethod
    def _find(session: Session, key: str) -> UserFact | None:
        return session.scalars(select(UserFact).where(UserFact.key == key)).one_or_none()

    @classmethod
    def _require(cls, session: Session, key: str) -> UserFact:
        fact = cls._find(session, key)
        if fact is None:
            raise NotFoundError(f"There is no fact called {key!r}.",
                                "List facts with `hearth facts list`.")
        return fact

    @staticmethod
    def _archive(session: Session, fact: UserFact) -> None:
        """Keep the value about to be replaced, valid from when it was last set."""
        session.add(FactHistory(fact_id=fact.id, value=fact.value, category=fact.category,
                                source=fact.source, confidence=fact.confidence,
                                valid_from=fact.updated_at))

