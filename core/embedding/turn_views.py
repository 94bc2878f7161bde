"""Several embedded views of one conversation turn, averaged into its vector.

A turn alone often does not say what it is about ("Signed it today!"), who said it, or
when. Each imported turn is embedded as three views and the vector is their normalised
mean:

* the turn with its date (the session's start, in UTC as stored) and speaker:
  ``Session of 12 March 2025, Dana said: ...``;
* the window of three turns around it (previous, itself, next), one ``speaker: text`` line
  each;
* the window of five turns around it.

Measured on long multi-session conversations with bge-small (no language model) against the
plain turn: about +0.06 recall@10 (paraphrase and multi-hop questions gain most). It costs
three embeddings per turn at import instead of one; ``docs/benchmarks.md`` reports the
import throughput it leaves. The memory's stored text stays the plain ``speaker: text``,
and the views are rebuilt from the stored turns whenever the vectors are (``hearth
reembed`` after a model change: ``views_from_store``), so a turn's vector never depends on
which path embedded it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.storage.orm import ChatSession, Memory
from core.storage.port import IMPORTED_SOURCE, batched

WINDOWS = (1, 2)
"""Turns on each side of the turn in its windowed views (windows of 3 and 5)."""


@dataclass(frozen=True)
class SpokenTurn:
    speaker: str
    text: str
    session_started: datetime


def turn_views(turns: Sequence[SpokenTurn], index: int) -> tuple[str, ...]:
    """The texts to embed for ``turns[index]`` (a session's turns in spoken order)."""
    turn = turns[index]
    dated = (f"Session of {turn.session_started:%-d %B %Y}, {turn.speaker} said: "
             f"{turn.text}")
    views = [dated]
    for reach in WINDOWS:
        around = turns[max(0, index - reach):index + reach + 1]
        views.append("\n".join(f"{other.speaker}: {other.text}" for other in around))
    return tuple(views)


def views_from_store(session: Session, memory_ids: Iterable[int]) -> dict[int, tuple[str, ...]]:
    """The views of those of ``memory_ids`` that are imported turns, rebuilt from their
    session's stored turns (the same texts the import embedded)."""
    wanted: dict[int, str] = {}
    for chunk in batched(sorted(set(memory_ids)), 500):
        wanted.update((row.id, row.session_id) for row in session.execute(
            select(Memory.id, Memory.session_id).where(
                Memory.id.in_(chunk), Memory.source == IMPORTED_SOURCE,
                Memory.session_id.is_not(None))))
    views: dict[int, tuple[str, ...]] = {}
    for session_id in set(wanted.values()):
        started = session.scalar(select(ChatSession.started_at)
                                 .where(ChatSession.id == session_id))
        rows = session.execute(select(Memory.id, Memory.content, Memory.origin).where(
            Memory.session_id == session_id, Memory.source == IMPORTED_SOURCE)
            .order_by(Memory.created_at, Memory.id)).all()
        if started is None or not rows:
            continue
        spoken = [_spoken(row.content, row.origin, started) for row in rows]
        for index, row in enumerate(rows):
            if wanted.get(row.id) == session_id:
                views[row.id] = turn_views(spoken, index)
    return views


def _spoken(content: str, origin: dict[str, Any] | None, started: datetime) -> SpokenTurn:
    """The turn as imported: its speaker and text (the content is ``speaker: text``)."""
    speaker = str((origin or {}).get("speaker") or "")
    text = content.removeprefix(f"{speaker}: ") if speaker else content
    return SpokenTurn(speaker, text, started)
