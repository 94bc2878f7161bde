"""Facts: list, search, correct and forget what Hearth knows about the user for certain.

Wraps ``core.knowledge.facts`` (remember, recategorise, history) and ``core.forgetting``
(the forget that reaches every copy of a value). Rows come back as ``Fact`` and
``EarlierValue``; the forget's own results (``ForgetPreview``, ``Forgotten``) are already
plain, frozen data and are handed on as they are, with the sentences that tell them."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from core.app import Hearth
from core.forgetting.backups import BackupRewrite
from core.forgetting.preview import PlaceInPreview
from core.forgetting.service import FileCheck, Forgotten, ForgetPreview, ForgetReport
from core.forgetting.wording import FILES, backups_held, compacted, redactions, rewritten, unmasked
from core.knowledge.facts import CATEGORIES, FactChange, normalise_key
from core.forgetting.recently_deleted import FACT, DeletedItem
from core.forgetting.wording import CANNOT_UNDO, kept, words_left
from core.operations.changes import NOTHING, Changes, Domain
from core.operations.deleted import changes_of
from core.operations.done import Done
from core.storage.orm import UserFact

__all__ = ["CANNOT_UNDO", "CATEGORIES", "FILES", "BackupRewrite", "DeletedItem",
           "EarlierValue", "Fact", "FactChange", "FileCheck", "ForgetPreview", "ForgetReport",
           "Forgotten", "PlaceInPreview", "backups_held", "compact", "compacted", "correct",
           "delete", "fact_history", "forget", "forget_in_backups", "kept", "list_facts",
           "normalise_key", "preview_forget", "recategorise", "redactions", "remember",
           "rewritten", "unmasked", "words_left"]

FORGET_CHANGES = Changes.knowledge() | Changes.of(Domain.CHATS, Domain.RUNS)
"""A forget replaces the fact's values wherever the user's words are kept: every part of
what Hearth knows, the chats and the runs' records."""


@dataclass(frozen=True)
class Fact:
    """One permanent fact as a view shows it."""

    id: int
    key: str
    value: str
    category: str
    source: str
    confidence: float
    created_at: datetime
    updated_at: datetime


@dataclass(frozen=True)
class EarlierValue:
    """A value a fact had before it was replaced."""

    id: int
    value: str
    category: str
    source: str
    valid_from: datetime
    replaced_at: datetime


def _fact(row: UserFact) -> Fact:
    return Fact(row.id, row.key, row.value, row.category, row.source, row.confidence,
                row.created_at, row.updated_at)


def _changed(change: FactChange) -> Done[FactChange]:
    return Done(change, NOTHING if change.action == "unchanged" else Changes.of(Domain.FACTS))


def list_facts(hearth: Hearth, query: str = "", category: str | None = None
               ) -> tuple[Fact, ...]:
    """Every fact (of ``category``, if given) whose key or value holds ``query``."""
    facts = hearth.facts
    rows = facts.search(query) if query else facts.list(category)
    return tuple(_fact(row) for row in rows if category is None or row.category == category)


def fact_history(hearth: Hearth, key: str) -> tuple[EarlierValue, ...]:
    """The fact's earlier values, oldest first (none for an unknown key)."""
    return tuple(EarlierValue(row.id, row.value, row.category, row.source, row.valid_from,
                              row.replaced_at) for row in hearth.facts.history(key))


def remember(hearth: Hearth, key: str, value: str, category: str) -> Done[FactChange]:
    """Store the user's value for ``key`` (the old one goes into its history)."""
    return _changed(hearth.facts.remember(key, value, category=category, source="user"))


def correct(hearth: Hearth, key: str, value: str) -> Done[FactChange]:
    """The user's new value for a fact learning stored (a note's Edit…): its category stays
    as it is, or the key's own category for a fact that was undone meanwhile."""
    known = hearth.facts.get(key)
    if known is None:
        return _changed(hearth.facts.remember(key, value, source="user"))
    return _changed(hearth.facts.remember(key, value, category=known.category, source="user"))


def recategorise(hearth: Hearth, key: str, category: str) -> Done[FactChange]:
    """Move a fact to another category; its value stays."""
    return _changed(hearth.facts.recategorise(key, category))


def delete(hearth: Hearth, key: str) -> Done[DeletedItem]:
    """Delete the fact alone (its earlier values and the record of its learning with it),
    touching nothing else; it can be brought back until its undo ends
    (``core.operations.deleted.restore``)."""
    return Done(hearth.deleted.delete_fact(key), changes_of(FACT))


def preview_forget(hearth: Hearth, key: str) -> ForgetPreview:
    """Every place the fact's values are kept, with the words around them and whether an
    erase rewrites it unless unticked, so the person can choose before anything changes."""
    return hearth.forgetting.preview(key)


def forget(hearth: Hearth, key: str, skip: Iterable[str] = (),
           include: Iterable[str] = (), *, compact: bool = False) -> Done[Forgotten]:
    """Erase the fact everywhere but in the places left (``skip``; the unticked ones not in
    ``include``); the ``Forgotten`` can still remove it from backups. ``compact`` also
    rewrites a PostgreSQL server's tables so their files keep no copy."""
    return Done(hearth.forgetting.forget(key, skip=skip, include=include, compact=compact),
                FORGET_CHANGES)


def forget_in_backups(hearth: Hearth, key: str) -> tuple[BackupRewrite, ...]:
    """Rewrite the backups that still hold a fact already forgotten without it, its values
    read from the backups' own records; NotFoundError if no backup has a record of it."""
    return hearth.forgetting.remove_from_backups(key)


def compact(hearth: Hearth) -> FileCheck:
    """Rebuild the database's files without what earlier forgets and deletes left in their
    free space (``compacted`` says what was done)."""
    return hearth.forgetting.compact()
