"""Decay: memories that are never used fade, and below a floor leave recall (never deleted).

Two numbers per memory, both recomputed from the row and the clock, never from their own
previous value:

* ``freshness = exp(-age / tau)``, ``age`` in days since ``created_at`` and
  ``tau = half_life / ln 2`` with the half-life of the memory's category
  (``settings.decay_half_life_days``; unknown categories use ``general``). It says how old
  the knowledge is, whether or not it is used; the merge stage picks stale memories by it.
* ``strength = 0.95 ** (days / (0.5 + importance))``, ``days`` since ``last_accessed_at``
  (else ``created_at``): the design's Ebbinghaus ``strength *= 0.95^days``, written as a
  pure function. The design's in-place form decays again on every run (twice in a day is
  twice the decay) and cannot be rerun after a crash; this form is idempotent. Recall
  resets ``last_accessed_at`` (strength back to 1) and raises ``importance``, which
  stretches time: at the default importance 0.5 it is exactly ``0.95^days``; at 1.0 a
  memory decays at 2/3 of that speed, at 0.0 twice as fast.

User-stated memories (``priority = highest``) and pinned ones (``tier = core``) never decay:
both numbers are held at 1. A valid memory whose strength falls below
``settings.decay_invalid_below`` becomes ``is_valid = false`` with ``invalid_reason =
'decayed'``, except in the ``source`` tier, whose originals are kept under their summary.
Invalid and superseded memories are left as they are.

The arithmetic is vectorised with numpy over pages of rows and written back with one
executemany per page (100k memories: see ``benchmarks/dream.py``); no dialect SQL.
"""

from __future__ import annotations

import math
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import bindparam, select, update
from sqlalchemy.orm import Session

from core.config import Settings
from core.storage.orm import Memory, MemoryTier, Priority, utcnow
from core.storage.port import StoragePort

EBBINGHAUS_BASE = 0.95
IMPORTANCE_PIVOT = 0.5
"""At this importance a memory decays at exactly ``0.95^days``."""
DECAYED = "decayed"
PAGE = 20_000
CHANGE_EPSILON = 1e-9
"""Values closer than this to the stored ones are not rewritten (a rerun writes nothing)."""
_DAY = 86_400.0
_TABLE = Memory.__table__
_SET_DECAY = update(_TABLE).where(_TABLE.c.id == bindparam("m_id")).values(
    strength=bindparam("m_strength"), freshness=bindparam("m_freshness"))
"""A Core executemany by id: the ORM's bulk update costs ~1 s more per 100k rows."""


def freshness(age_days: np.ndarray, half_life_days: np.ndarray) -> np.ndarray:
    """``exp(-age / tau)`` with ``tau = half_life / ln 2`` (so 0.5 at one half-life)."""
    tau = half_life_days / math.log(2)
    return np.exp(-np.maximum(age_days, 0.0) / tau)


def strength(days_since_access: np.ndarray, importance: np.ndarray) -> np.ndarray:
    """``0.95 ** (days / (0.5 + importance))`` (see the module docstring)."""
    stretch = IMPORTANCE_PIVOT + np.clip(importance, 0.0, 1.0)
    return np.power(EBBINGHAUS_BASE, np.maximum(days_since_access, 0.0) / stretch)


def run_decay(storage: StoragePort, settings: Settings, *,
              now: datetime | None = None) -> dict[str, int]:
    """Recompute freshness and strength of every valid memory; invalidate the faded ones.

    Returns counts: ``memories`` looked at, ``updated`` rows written, ``invalidated``,
    ``exempt`` (highest priority or core tier). One transaction: all or nothing.
    """
    now = now or utcnow()
    counts = {"memories": 0, "updated": 0, "invalidated": 0, "exempt": 0}
    with storage.write() as session:
        after = 0
        while True:
            rows = session.execute(
                select(Memory.id, Memory.created_at, Memory.last_accessed_at,
                       Memory.category, Memory.importance, Memory.priority, Memory.tier,
                       Memory.strength, Memory.freshness)
                .where(Memory.is_valid.is_(True), Memory.superseded_by.is_(None),
                       Memory.id > after)
                .order_by(Memory.id).limit(PAGE)).all()
            if not rows:
                break
            _decay_page(session, rows, settings, now, counts)
            after = rows[-1].id
    return counts


def _decay_page(session: Session, rows: list[Any], settings: Settings, now: datetime,
                counts: dict[str, int]) -> None:
    half_lives = settings.decay_half_life_days
    general = half_lives.get("general", 30.0)
    stamp = now.timestamp()
    (ids, created_at, accessed_at, category, importance, priority, tier,
     old_strength, old_freshness) = (np.array(column) for column in zip(*rows))
    created = np.fromiter((t.timestamp() for t in created_at), float, len(rows))
    accessed = np.fromiter(((a or c).timestamp() for a, c in zip(accessed_at, created_at)),
                           float, len(rows))
    half_life = np.fromiter((half_lives.get(c, general) for c in category), float, len(rows))
    importance = importance.astype(np.float64)
    exempt = (priority == Priority.HIGHEST.value) | (tier == MemoryTier.CORE.value)
    keeps = tier == MemoryTier.SOURCE.value

    new_freshness = np.where(exempt, 1.0, freshness((stamp - created) / _DAY, half_life))
    new_strength = np.where(exempt, 1.0, strength((stamp - accessed) / _DAY, importance))
    faded = ~exempt & ~keeps & (new_strength < settings.decay_invalid_below)
    changed = (faded | (np.abs(new_strength - old_strength) > CHANGE_EPSILON)
               | (np.abs(new_freshness - old_freshness) > CHANGE_EPSILON))

    rewritten = np.flatnonzero(changed & ~faded)
    if rewritten.size:
        session.execute(_SET_DECAY, [
            {"m_id": int(ids[i]), "m_strength": float(new_strength[i]),
             "m_freshness": float(new_freshness[i])} for i in rewritten])
    invalidated = np.flatnonzero(faded)
    if invalidated.size:
        session.execute(_SET_DECAY.values(is_valid=False, invalid_reason=DECAYED,
                                          updated_at=now), [
            {"m_id": int(ids[i]), "m_strength": float(new_strength[i]),
             "m_freshness": float(new_freshness[i])} for i in invalidated])
    counts["memories"] += len(rows)
    counts["updated"] += int(rewritten.size + invalidated.size)
    counts["invalidated"] += int(faded.sum())
    counts["exempt"] += int(exempt.sum())
