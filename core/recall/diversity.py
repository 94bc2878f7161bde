"""Spreading the head of a recall over what it found: maximal marginal relevance.

Ranked by relevance alone, the top ``k`` of a long history fills with near-copies of one
strong match (five turns of the same conversation about the wedding) and pushes out the
second thing a question asks about (when the new job started). Recall therefore picks its
head greedily from a deeper pool: each next result is the one with the best
``weight x score / best score - (1 - weight) x cosine to the closest result already
picked`` (maximal marginal relevance, Carbonell and Goldstein 1998), compared by the
records' whole-text vectors. ``weight`` is ``recall_diversity``; 1 turns it off.

The order is expressed as a score: each result loses ``(1 - weight) / weight x best score
x that cosine``, so sorting by score still gives the picked order and a result's
``signals["diversity"]`` says what it lost and to which record. Measured in
``docs/recall-tuning.md``: on the labelled turn sets it changes nothing measurable, on
RealMem's conversations it finds the answering conversation markedly more often.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Pick:
    """One result of the spread head: its index in the pool and what it lost."""

    index: int
    penalty: float
    closest: int | None
    """The index of the already picked result it was most like (None for the first or
    when either has no vector)."""
    cosine: float


def spread(scores: Sequence[float], vectors: Sequence[np.ndarray | None], weight: float,
           count: int) -> list[Pick]:
    """The ``count`` picks from a pool (``scores`` best first, a vector or None each; a
    row without a vector is like nothing)."""
    if not scores or count < 1:
        return []
    cost = (1.0 - weight) / weight * max(scores[0], 1e-9) if weight < 1.0 else 0.0
    width = next((len(vector) for vector in vectors if vector is not None), 1)
    matrix = np.stack([np.zeros(width, dtype=np.float32) if vector is None
                       else np.asarray(vector, dtype=np.float32) for vector in vectors])
    gains = np.asarray(scores, dtype=np.float64)
    closest_cosine = np.zeros(len(scores))
    closest_index = np.full(len(scores), -1)
    picks: list[Pick] = []
    for _ in range(min(count, len(scores))):
        chosen = int(np.argmax(gains - cost * closest_cosine))  # ties: the better ranked
        closest = int(closest_index[chosen])
        picks.append(Pick(chosen, float(cost * closest_cosine[chosen]),
                          None if closest < 0 else closest, float(closest_cosine[chosen])))
        gains[chosen] = -np.inf
        cosines = matrix @ matrix[chosen]
        nearer = cosines > closest_cosine
        closest_cosine[nearer] = cosines[nearer]
        closest_index[nearer] = chosen
    return picks
