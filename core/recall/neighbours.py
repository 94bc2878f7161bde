"""The turns next to a turn: adjacency within a conversation session, for context smoothing.

A turn is rarely understood alone: "Signed it today!" answers "Did you take the Helio
offer?" one turn earlier. Recall lets a turn gain a share of its adjacent turns' relevance
(``core.recall.service``); this module finds who is adjacent, with one windowed query over
the sessions of the candidates (dialect-neutral SQL: ``LAG``/``LEAD`` over
``(session_id) ORDER BY created_at, id``). Only current memories count as turns, so an
invalidated memory never sits between two neighbours.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from core.storage.orm import Interaction, Memory
from core.storage.port import IndexedKind, batched

SESSION_MODELS: dict[IndexedKind, Any] = {IndexedKind.MEMORY: Memory,
                                          IndexedKind.INTERACTION: Interaction}
"""The kinds whose rows are turns of a session."""
_SESSIONS = {kind: select(model.session_id).where(
    model.id.in_(bindparam("ids", expanding=True)), model.session_id.is_not(None))
    for kind, model in SESSION_MODELS.items()}
"""The sessions of a list of rows: built once and run on the session's connection, as
recall's hydration is (it runs on every recall, with ~100 candidate ids)."""


def adjacent(session: Session, kind: IndexedKind,
             ids: Iterable[int]) -> dict[int, tuple[int | None, int | None]]:
    """``id -> (previous, next)`` for every turn of the sessions the given rows belong to
    (so the neighbours' own neighbours come with the same query); rows without a session
    (or of a kind without sessions) are absent."""
    model = SESSION_MODELS.get(kind)
    wanted = sorted(set(ids))
    if model is None or not wanted:
        return {}
    sessions: set[str] = set()
    connection = session.connection()
    for chunk in batched(wanted, 500):
        sessions.update(connection.scalars(_SESSIONS[kind], {"ids": list(chunk)}))
    if not sessions:
        return {}
    order = {"partition_by": model.session_id, "order_by": (model.created_at, model.id)}
    conditions = [model.session_id.in_(sorted(sessions))]
    if model is Memory:
        conditions += [Memory.is_valid.is_(True), Memory.superseded_by.is_(None)]
    ordered = (select(model.id.label("id"),
                      func.lag(model.id).over(**order).label("previous"),
                      func.lead(model.id).over(**order).label("next"))
               .where(*conditions).subquery())
    return {row.id: (row.previous, row.next)
            for row in session.execute(select(ordered.c.id, ordered.c.previous, ordered.c.next))}
