"""The arithmetic of recall ranking: rank fusion, recency and strength. No I/O.

Reciprocal rank fusion (RRF) gives a row ``1 / (RRF_K + rank)`` for each signal that found
it and sums them. It needs no calibration between BM25 scores and cosine similarities,
which live on unrelated scales; ``RRF_K = 60`` is the usual constant (it flattens the
difference between neighbouring ranks so one signal's top hit cannot drown the other).

The adjustments then work on the fused score *normalised* to [0, 1] by the best score
possible with the signals in use (``signals / (RRF_K + 1)``), so that their size means the
same whether one or two signals ran:

* recency adds up to ``boost`` (0.05 by default) decaying linearly to 0 at ``days`` (90)
  days, as the design's "+0.05 on similarity" does; on this scale 0.05 is worth a few ranks
  in one signal, enough to put the newer of two equally relevant memories first but not to
  lift an irrelevant one;
* strength multiplies: ``0.5 + 0.5 * strength``, so a fully decayed memory keeps half its
  score (it sinks below equally relevant strong ones but stays findable) and a memory at
  full strength is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.storage.port import IndexHit

RRF_K = 60
SIGNAL_SCORE_NAMES = {"text": "score", "vector": "similarity"}
"""What each signal's ``IndexHit.score`` means, as named in ``RecallResult.signals``."""


@dataclass
class Fused:
    """One row's fused score and what each signal said about it."""

    rrf: float = 0.0
    signals: dict[str, dict[str, float]] = field(default_factory=dict)


def fuse(hits_by_signal: Mapping[str, Sequence[IndexHit]]) -> dict[int, Fused]:
    """Reciprocal rank fusion of several ranked lists of the same kind of row, by row id."""
    fused: dict[int, Fused] = {}
    for signal, hits in hits_by_signal.items():
        for hit in hits:
            entry = fused.setdefault(hit.id, Fused())
            entry.rrf += 1.0 / (RRF_K + hit.rank)
            entry.signals[signal] = {"rank": hit.rank, SIGNAL_SCORE_NAMES[signal]: hit.score}
    return fused


def best_possible(signal_count: int) -> float:
    """The fused score of a row ranked first by every one of ``signal_count`` signals."""
    return signal_count / (RRF_K + 1)


def age_in_days(created_at: datetime | None, now: datetime) -> float | None:
    """Fractional days since ``created_at`` (0 for future times; None if unknown)."""
    if created_at is None:
        return None
    return max(0.0, (now - created_at).total_seconds() / 86_400)


def recency_boost(age_days: float | None, boost: float, days: int) -> float:
    """``boost`` at age 0, falling linearly to 0 at ``days`` old and after; 0 if unknown."""
    if age_days is None:
        return 0.0
    return boost * max(0.0, 1.0 - age_days / days)


def strength_factor(strength: float) -> float:
    """``0.5 + 0.5 * strength`` with strength clamped to [0, 1]."""
    return 0.5 + 0.5 * min(1.0, max(0.0, strength))
