"""Forgetting a fact inside one database: its rows go, its values become ``[forgotten]``.

``erase_fact`` is used for the live database and, without re-embedding, for each backup
rewritten on the user's request. In one write transaction it deletes the fact (its history
goes with it by foreign key), deletes the ``fact`` events that carried it, and redacts
every value it had, current and earlier, in every column of ``places.PLACES``. The
full-text indexes follow by trigger; the vector triggers drop the old vectors and windows
of every changed row, and the new text's vectors (embedded before the transaction opened,
so the lock is never held during inference) are stored in the same transaction. A row
changed by another writer between the embedding and the transaction is re-embedded
afterwards by the backfill.

Which rows a value is searched in (``Redactor``): a distinctive value everywhere; a value
too short or too common to tell apart from ordinary words (``matching.is_distinctive``)
only in the rows where this fact was recorded: the exchanges it was learned from (named
by its ``fact`` events, or by the ``remember_fact`` tool call that stored it), their
chats' titles, and the memories made from those events or exchanges.

The caller makes the bytes go from the files afterwards (``StoragePort.erase_deleted``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Table, Text, cast, delete, false, inspect, or_, select, update
from sqlalchemy.orm import Session

from core.embedding import Embedder
from core.embedding.chunking import EmbeddedDocuments, embed_documents_with_chunks
from core.errors import InvalidInputError
from core.knowledge.facts import normalise_key
from core.forgetting.deleted_rows import (
    deleted_fact_tokens,
    deleted_fact_values,
    drop_deleted_fact,
)
from core.forgetting.matching import ValueMatcher, is_distinctive
from core.forgetting.places import PLACES, Place
from core.embedding.reembed import backfill_embeddings
from core.storage.affected import affected
from core.storage.orm import (
    AuditEntry,
    Base,
    ContextEvent,
    FactHistory,
    Interaction,
    Memory,
    UserFact,
)
from core.storage.port import (
    IMPORTED_SOURCE,
    INDEXED_COLUMNS,
    IndexedKind,
    StoragePort,
    batched,
    document_text,
)
from core.embedding.turn_views import views_from_store

PAGE = 2_000
"""Rows read at a time while searching a table."""

FACT_EVENT = "fact"


# --- which values, where -------------------------------------------------------------------


@dataclass(frozen=True)
class Redactor:
    """The values to redact and where: ``everywhere`` in every row, ``recorded`` (which also
    holds the short or common values) in the rows of ``scope``, per table."""

    everywhere: ValueMatcher
    recorded: ValueMatcher
    scope: Mapping[str, frozenset[Any]] = field(default_factory=dict)

    @property
    def searched_everywhere(self) -> bool:
        """False when some value was searched only where the fact was recorded."""
        return len(self.recorded) == len(self.everywhere)

    def for_row(self, table: str, row_id: Any) -> ValueMatcher:
        return self.recorded if row_id in self.scope.get(table, ()) else self.everywhere


def fact_values(session: Session, key: str) -> list[str]:
    """Every value the fact ``key`` has had: the current one, then the earlier ones; and
    those of a deleted copy still waiting for its undo to end (``deleted_rows``)."""
    current = session.scalar(select(UserFact.value).where(UserFact.key == key))
    earlier = session.scalars(select(FactHistory.value).join(UserFact)
                              .where(UserFact.key == key).order_by(FactHistory.id))
    values = [value for value in (current, *earlier) if value is not None]
    return list(dict.fromkeys([*values, *deleted_fact_values(session, key)]))


def fact_exists(session: Session, key: str) -> bool:
    return session.scalar(select(UserFact.id).where(UserFact.key == key)) is not None


def redactor_for(session: Session, key: str, values: Sequence[str]) -> Redactor:
    """The redactor for ``values`` of the fact ``key``, with the rows where it was recorded."""
    everywhere = ValueMatcher(value for value in values if is_distinctive(value))
    recorded = ValueMatcher(values)
    scope = {} if len(recorded) == len(everywhere) else _recorded_rows(session, key)
    return Redactor(everywhere, recorded, scope)


def fact_events(key: str) -> Any:
    """The ``fact`` events that recorded the learning of the fact ``key``."""
    return ((ContextEvent.event_type == FACT_EVENT)
            & (ContextEvent.source_metadata["fact_key"].as_string() == key))


def _recorded_rows(session: Session, key: str) -> dict[str, frozenset[Any]]:
    """The rows that recorded the fact ``key``, by table: the exchanges its events (or a
    ``remember_fact`` call) came from, their chats, and the memories made of either."""
    events = session.execute(select(ContextEvent.id, ContextEvent.source_metadata)
                             .where(fact_events(key))).all()
    exchanges = {meta.get("interaction_id") for _, meta in events if isinstance(meta, dict)}
    chats = {meta.get("session_id") for _, meta in events if isinstance(meta, dict)}
    for row in session.execute(select(Interaction.id, Interaction.session_id,
                                      Interaction.tools_used)
                               .where(cast(Interaction.tools_used, Text)
                                      .contains("remember_fact"))):
        if _remembered(row.tools_used, key):
            exchanges.add(row.id)
            chats.add(row.session_id)
    exchanges.discard(None)
    chats |= set(session.scalars(select(Interaction.session_id)
                                 .where(Interaction.id.in_(exchanges))))
    chats.discard(None)
    event_ids = {event_id for event_id, _ in events}
    memories = set(session.scalars(select(Memory.id).where(
        Memory.event_id.in_(event_ids) | Memory.interaction_id.in_(exchanges))))
    return {"interactions": frozenset(exchanges), "chat_sessions": frozenset(chats),
            "memories": frozenset(memories)}


def _remembered(tools_used: Any, key: str) -> bool:
    """Whether a turn's tool calls include ``remember_fact`` for ``key``."""
    for call in tools_used if isinstance(tools_used, list) else ():
        if not isinstance(call, dict) or call.get("name") != "remember_fact":
            continue
        arguments = call.get("arguments")
        if not isinstance(arguments, dict):
            continue
        try:
            if normalise_key(str(arguments.get("key", ""))) == key:
                return True
        except InvalidInputError:
            continue
    return False


# --- finding and redacting -------------------------------------------------------------------


@dataclass(frozen=True)
class Found:
    """One row holding a value, and its columns as they are to be written."""

    place: Place
    row_id: Any
    changes: dict[str, Any]
    before: dict[str, Any] = field(default_factory=dict, compare=False)
    """The same columns as they are now (a preview shows the words around each value)."""

    @property
    def token(self) -> str:
        """The row's name in a preview and in a choice of places: ``interactions:12``."""
        return f"{self.place.table}:{self.row_id}"


def find(session: Session, redactor: Redactor,
         places: Sequence[Place] = PLACES) -> list[Found]:
    """Every row of ``places`` (every place, unless told) that holds one of the values
    (columns missing from an older database are skipped)."""
    present = inspect(session.connection())
    found: list[Found] = []
    for place in places:
        if not present.has_table(place.table):
            continue
        known = {column["name"] for column in present.get_columns(place.table)}
        table = Base.metadata.tables[place.table]
        columns = [name for name in place.columns if name in known]
        for row in _rows(session, table, columns, _candidates(table, columns, redactor)):
            matcher = redactor.for_row(place.table, row[0])
            values = dict(zip(columns, row[1:], strict=True))
            changes = _redacted(place, values, matcher)
            if changes:
                found.append(Found(place, row[0], changes,
                                   {name: values[name] for name in changes}))
    return found


def find_elsewhere(session: Session, key: str, redactor: Redactor) -> list[Found]:
    """``find``, without the rows of the fact itself (``own_rows``)."""
    own = own_rows(session, key)
    deleted = deleted_fact_tokens(session, key)
    return [item for item in find(session, redactor)
            if (item.place.table, item.row_id) not in own and item.token not in deleted]


def _candidates(table: Table, columns: Sequence[str], redactor: Redactor) -> Any:
    """A condition every row holding a value meets (its ``anchors``, in any case, or being
    in the scope of the values searched only where the fact was recorded); None when the
    values have no anchors and every row must be read. The exact match is ``_redacted``'s."""
    anchors = redactor.everywhere.anchors()
    if anchors is None:
        return None
    conditions = [cast(table.c[name], Text).ilike(f"%{anchor}%")
                  for name in columns for anchor in anchors]
    scoped = redactor.scope.get(table.name)
    if scoped:
        conditions.extend(table.c.id.in_(chunk) for chunk in batched(sorted(scoped), 500))
    return or_(false(), *conditions)


def _rows(session: Session, table: Table, columns: Sequence[str],
          condition: Any = None) -> Iterator[Any]:
    """(id, *columns) of the rows meeting ``condition`` (all if None), a page at a time
    (keyset on the primary key)."""
    key = table.c.id
    query = select(key, *(table.c[name] for name in columns)).order_by(key).limit(PAGE)
    if condition is not None:
        query = query.where(condition)
    page = session.execute(query).all()
    while page:
        yield from page
        page = session.execute(query.where(key > page[-1][0])).all()


def _redacted(place: Place, values: Mapping[str, Any], matcher: ValueMatcher) -> dict[str, Any]:
    """The columns of one row that change, with their redacted values."""
    changes: dict[str, Any] = {}
    for name, value in values.items():
        if name in place.json:
            if matcher.found_in(value):
                changes[name] = matcher.redact_data(value)
        elif isinstance(value, str) and matcher.found(value):
            changes[name] = matcher.redact(value)
    return changes


def apply(session: Session, found: Sequence[Found]) -> Counter[str]:
    """Write the redacted columns; returns rows changed per place label.

    A learning's rule is unique: two rules that differ only by the value would become one,
    so the later row is deleted rather than left holding the value.
    """
    counts: Counter[str] = Counter()
    for item in found:
        table = Base.metadata.tables[item.place.table]
        if item.place.table == "habits" and _rule_taken(session, table, item):
            session.execute(delete(table).where(table.c.id == item.row_id))
        else:
            session.execute(update(table).where(table.c.id == item.row_id)
                            .values(**item.changes))
        counts[item.place.label] += 1
    return counts


def _rule_taken(session: Session, table: Table, item: Found) -> bool:
    rule = item.changes.get("rule")
    return rule is not None and session.scalar(
        select(table.c.id).where(table.c.rule == rule, table.c.id != item.row_id)) is not None


def own_rows(session: Session, key: str) -> set[tuple[str, Any]]:
    """(table, id) of the rows that are the fact ``key`` itself: its row, its history and
    its events, which a forget deletes rather than redacts."""
    fact_id = session.scalar(select(UserFact.id).where(UserFact.key == key))
    history = session.scalars(select(FactHistory.id).where(FactHistory.fact_id == fact_id))
    events = session.scalars(select(ContextEvent.id).where(fact_events(key)))
    return {("user_facts", fact_id), *(("fact_history", row) for row in history),
            *(("context_events", row) for row in events)}


def delete_fact(session: Session, key: str) -> int:
    """Delete the fact (its history cascades), a deleted copy waiting for its undo to end,
    and the events that carried it; returns how many events went."""
    session.execute(delete(UserFact).where(UserFact.key == key))
    drop_deleted_fact(session, key)
    return affected(session.execute(delete(ContextEvent).where(fact_events(key)))) or 0


# --- re-embedding ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Planned:
    """Rows of one kind to embed again, the texts they will have, and their vectors."""

    place: Place
    ids: list[Any] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    views: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def kind(self) -> IndexedKind:
        assert self.place.kind is not None
        return self.place.kind


def plan_reembedding(session: Session, redactor: Redactor,
                     found: Sequence[Found]) -> list[_Planned]:
    """For each indexed kind: the rows whose embedded input changes (their text, or for an
    imported turn the neighbouring turns its vector is also made of)."""
    plans = []
    for place in PLACES:
        if place.kind is None:
            continue
        ids = {item.row_id for item in found if item.place is place}
        if place.kind is IndexedKind.MEMORY:
            ids |= _turns_beside(session, ids)
        if ids:
            plans.append(_plan_kind(session, redactor, place, sorted(ids)))
    return [plan for plan in plans if plan.ids]


def _turns_beside(session: Session, memory_ids: set[Any]) -> set[Any]:
    """The imported turns of the conversations these memories are turns of: their vectors
    are averaged over neighbouring turns (``core.embedding.turn_views``)."""
    sessions: set[Any] = set()
    for chunk in batched(sorted(memory_ids), 500):
        sessions |= set(session.scalars(select(Memory.session_id).where(
            Memory.id.in_(chunk), Memory.source == IMPORTED_SOURCE,
            Memory.session_id.is_not(None))))
    if not sessions:
        return set()
    return set(session.scalars(select(Memory.id).where(
        Memory.session_id.in_(sessions), Memory.source == IMPORTED_SOURCE)))


def _indexed_texts(session: Session, place: Place, ids: Sequence[Any]
                   ) -> dict[Any, tuple[Any, ...]]:
    """The indexed columns (``INDEXED_COLUMNS``) of these rows, by id."""
    assert place.kind is not None
    table = Base.metadata.tables[place.table]
    columns = [table.c[name] for name in INDEXED_COLUMNS[place.kind]]
    return {row[0]: tuple(row[1:]) for chunk in batched(list(ids), 500)
            for row in session.execute(select(table.c.id, *columns)
                                       .where(table.c.id.in_(chunk)))}


def _plan_kind(session: Session, redactor: Redactor, place: Place, ids: list[Any]) -> _Planned:
    plan = _Planned(place)
    kind = plan.kind
    rows = _indexed_texts(session, place, ids)
    views = (views_from_store(session, ids) if kind is IndexedKind.MEMORY else {})
    for row_id in ids:
        if row_id not in rows:
            continue
        matcher = redactor.for_row(place.table, row_id)
        before = document_text(kind, rows[row_id])
        after = document_text(kind, [matcher.redact(value or "") for value in rows[row_id]])
        old_views = views.get(row_id, ())
        new_views = tuple(matcher.redact(view) for view in old_views)
        if after != before or new_views != old_views:
            plan.ids.append(row_id)
            plan.texts.append(after)
            plan.views.append(new_views)
    return plan


def embed_plans(embedder: Embedder, plans: Sequence[_Planned]) -> list[EmbeddedDocuments]:
    return [embed_documents_with_chunks(embedder, plan.texts, views=plan.views)
            for plan in plans]


def store_current(storage: StoragePort, session: Session, plans: Sequence[_Planned],
                   embedded: Sequence[EmbeddedDocuments], model_id: str) -> set[tuple[Any, Any]]:
    """Store the planned vectors of the rows whose text is, inside this transaction, the
    text they were embedded for; returns the (kind, id) stored."""
    stored: set[tuple[Any, Any]] = set()
    for plan, vectors in zip(plans, embedded, strict=True):
        current = {row_id: document_text(plan.kind, fields)
                   for row_id, fields in _indexed_texts(session, plan.place, plan.ids).items()}
        keep = [index for index, row_id in enumerate(plan.ids)
                if current.get(row_id) == plan.texts[index]]
        if keep:
            vectors.select(keep).store(storage.search, session, plan.kind,
                                       [plan.ids[index] for index in keep], model_id)
            stored |= {(plan.kind, plan.ids[index]) for index in keep}
    return stored


# --- the whole erasure -----------------------------------------------------------------------


@dataclass(frozen=True)
class Erasure:
    """What ``erase_fact`` did in one database."""

    existed: bool
    """Whether the database had the fact itself (it may hold only its values)."""
    redactor: Redactor
    places: Counter[str]


def erase_fact(storage: StoragePort, key: str, *, known_values: Sequence[str] = (),
               embedder: Embedder | None = None, audit: bool = True,
               skip: frozenset[str] = frozenset()) -> Erasure:
    """Delete the fact ``key`` and redact every value it had (those stored here and
    ``known_values``) in one transaction, except in the rows ``skip`` names (``Found.token``:
    the places the person chose to keep); see the module docstring.

    With ``embedder``, changed rows get vectors of their new text in the same transaction
    (and the few changed by another writer meanwhile, right after). Without it, their
    vectors are dropped and ``hearth reembed`` makes new ones. ``audit`` records the forget
    (by key and counts, never a value).
    """
    with storage.read() as session:
        values = [*known_values, *fact_values(session, key)]
        redactor = redactor_for(session, key, values)
        plans = (plan_reembedding(session, redactor,
                                  [item for item in find_elsewhere(session, key, redactor)
                                   if item.token not in skip])
                 if embedder is not None else [])
    embedded = embed_plans(embedder, plans) if embedder is not None and plans else []
    if embedder is not None:
        storage.search.ensure_dimensions(embedder.dimensions)
    with storage.write() as session:
        existed = fact_exists(session, key)
        delete_fact(session, key)
        found = [item for item in find(session, redactor) if item.token not in skip]
        places = apply(session, found)
        stored = (store_current(storage, session, plans, embedded, embedder.model_id)
                  if embedder is not None else set())
        if audit and (existed or found):
            session.add(AuditEntry(action="fact.forget", actor="user", arguments={"key": key},
                                   result_summary=f"deleted; redacted {sum(places.values())} "
                                                  f"places"))
    if embedder is not None:
        _backfill_rows_changed_meanwhile(storage, embedder, found, stored)
    return Erasure(existed, redactor, places)


def _backfill_rows_changed_meanwhile(storage: StoragePort, embedder: Embedder,
                                     found: Sequence[Found],
                                     stored: set[tuple[Any, Any]]) -> None:
    """Embed the redacted rows the transaction could not give planned vectors to (another
    writer changed them after the plan): the triggers queued them for the backfill."""
    left = {kind for item in found if (kind := item.place.kind) is not None
            and set(item.changes) & set(INDEXED_COLUMNS[kind])
            and (kind, item.row_id) not in stored}
    if left:
        backfill_embeddings(storage, embedder, kinds=[kind for kind in IndexedKind if kind in left])
