"""Decay: memories that are not used lose weight in ranking; age never takes one out of reach.

Two numbers per memory, both recomputed from the row and the clock, never from their own
previous value:

* ``freshness = exp(-age / tau)``, ``age`` in days since ``created_at`` (when the thing
  happened) and ``tau = half_life / ln 2`` with the half-life of the memory's category
  (``settings.decay_half_life_days``; unknown categories use ``general``). It says how old
  the knowledge is, whether or not it is used; the merge stage picks stale memories by it
  and folds them into archival summaries *before* they fade further.
* ``strength = 0.95 ** (days / (0.5 + importance))``, ``days`` since ``last_accessed_at``,
  else ``learned_at`` (when Hearth stored it), else ``created_at``: the Ebbinghaus curve
  ``strength *= 0.95^days``, written as a pure function. The in-place form decays
  again on every run (twice in a day is twice the decay) and cannot be rerun after a crash;
  this form is idempotent. Recall resets ``last_accessed_at`` (strength back to 1) and raises
  ``importance``, which stretches time: at the default importance 0.5 it is exactly
  ``0.95^days``; at 1.0 a memory decays at 2/3 of that speed, at 0.0 twice as fast.

Strength only weighs a memory in ranking (``core.recall.fusion.strength_factor``): a
faded memory sinks below equally relevant ones in use, and is still found when it is the
answer. Hearth's first decay stage invalidated memories below a strength floor; measured on
imported conversations that wiped every memory untouched for ~59 days from recall (turn
recall@10 0.65 → 0.00 after one dream), so Hearth never invalidates for age:
``is_valid = false`` is for contradiction, the user's own action and triaged noise only.
``faded`` counts the memories whose strength is below ``FADED_BELOW``, for the record.

User-stated memories (``priority = highest``) and pinned ones (``tier = core``) never decay:
both numbers are held at 1. Invalid and superseded memories are left as they are.

The arithmetic is vectorised with numpy over pages of rows and written back with one
executemany per page (100k memories: see ``benchmarks/dream.py``); no dialect SQL. Each page
is its own short transaction (``core.storage.pacing``), so a person's write never waits for
the whole pass; being a pure function of the row and the clock, an interrupted pass is
simply run again.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime
from typing import Any, cast

import numpy as np
from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.orm import Session

from core.config import Settings
from core.storage.orm import Memory, MemoryTier, Priority, utcnow
from core.storage.pacing import WritePacer
from core.storage.port import StoragePort

EBBINGHAUS_BASE = 0.95
IMPORTANCE_PIVOT = 0.5
"""At this importance a memory decays at exactly ``0.95^days``."""
FADED_BELOW = 0.05
"""Strength under which a memory is counted as faded (59 unused days at importance 0.5)."""
FIRST_PAGE = 1_000
"""Rows in the first transaction; the pacer sizes the next ones by how long it took."""
CHANGE_EPSILON = 1e-9
"""Values closer than this to the stored ones are not rewritten (a rerun writes nothing)."""
_DAY = 86_400.0
_TABLE = cast(Table, Memory.__table__)
_SET_DECAY = update(_TABLE).where(_TABLE.c.id == bindparam("m_id")).values(
    strength=bindparam("m_strength"), freshness=bindparam("m_freshness"))
"""A Core executemany by id: the ORM's bulk update costs ~1 s more per 100k rows."""


def freshness(age_days: np.ndarray, half_life_days: np.ndarray) -> np.ndarray:
    """``exp(-age / tau)`` with ``tau = half_life / ln 2`` (so 0.5 at one half-life)."""
    tau = half_life_days / math.log(2)
    return np.asarray(np.exp(-np.maximum(age_days, 0.0) / tau))


def strength(days_since_access: np.ndarray, importance: np.ndarray) -> np.ndarray:
    """``0.95 ** (days / (0.5 + importance))`` (see the module docstring)."""
    stretch = IMPORTANCE_PIVOT + np.clip(importance, 0.0, 1.0)
    return np.asarray(np.power(EBBINGHAUS_BASE, np.maximum(days_since_access, 0.0) / stretch))


def run_decay(storage: StoragePort, settings: Settings, *,
              now: datetime | None = None) -> dict[str, int]:
    """Recompute freshness and strength of every valid memory (nothing is invalidated).

    Returns counts: ``memories`` looked at, ``updated`` rows written, ``faded`` (strength
    below ``FADED_BELOW``), ``exempt`` (highest priority or core tier). A page of rows is
    read and rewritten in one short transaction, so a row is never decayed from values
    another writer changed in between.
    """
    now = now or utcnow()
    counts = {"memories": 0, "updated": 0, "faded": 0, "exempt": 0}
    pacer = WritePacer(storage, first_size=FIRST_PAGE)
    after = 0
    while True:
        with pacer.write() as session:
            rows = session.execute(
                select(Memory.id, Memory.created_at, Memory.last_accessed_at,
                       Memory.learned_at, Memory.category, Memory.importance, Memory.priority,
                       Memory.tier, Memory.strength, Memory.freshness)
                .where(Memory.is_valid.is_(True), Memory.superseded_by.is_(None),
                       Memory.id > after)
                .order_by(Memory.id).limit(pacer.size)).all()
            if rows:
                _decay_page(session, rows, settings, now, counts)
        if not rows:
            return counts
        after = rows[-1].id


def _decay_page(session: Session, rows: Sequence[Any], settings: Settings, now: datetime,
                counts: dict[str, int]) -> None:
    half_lives = settings.decay_half_life_days
    general = half_lives.get("general", 30.0)
    stamp = now.timestamp()
    (ids, created_at, accessed_at, learned_at, category, importance, priority, tier,
     old_strength, old_freshness) = (np.array(column) for column in zip(*rows, strict=True))
    created = np.fromiter((t.timestamp() for t in created_at), float, len(rows))
    last_used = np.fromiter(((a or learned or c).timestamp()
                             for a, learned, c in zip(accessed_at, learned_at, created_at,
                                                      strict=True)),
                            float, len(rows))
    half_life = np.fromiter((half_lives.get(c, general) for c in category), float, len(rows))
    importance = importance.astype(np.float64)
    exempt = (priority == Priority.HIGHEST.value) | (tier == MemoryTier.CORE.value)

    new_freshness = np.where(exempt, 1.0, freshness((stamp - created) / _DAY, half_life))
    new_strength = np.where(exempt, 1.0, strength((stamp - last_used) / _DAY, importance))
    changed = ((np.abs(new_strength - old_strength) > CHANGE_EPSILON)
               | (np.abs(new_freshness - old_freshness) > CHANGE_EPSILON))

    rewritten = np.flatnonzero(changed)
    if rewritten.size:
        session.execute(_SET_DECAY, [
            {"m_id": int(ids[i]), "m_strength": float(new_strength[i]),
             "m_freshness": float(new_freshness[i])} for i in rewritten])
    counts["memories"] += len(rows)
    counts["updated"] += int(rewritten.size)
    counts["faded"] += int((new_strength < FADED_BELOW).sum())
    counts["exempt"] += int(exempt.sum())
