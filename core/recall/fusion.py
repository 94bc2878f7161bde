"""The arithmetic of recall ranking: score fusion, recency, strength and tier. No I/O.

Score-aware fusion
------------------
Each signal's scores are put on [0, 1] and summed with weights (``recall_vector_weight``,
``recall_text_weight``; dense higher), divided by the weights of the signals that ran, so a
row found perfectly by everything scores 1:

* cosine similarity is min-max normalised over the vector candidates, from the similarity
  gate (``recall_min_similarity``, or the weakest candidate if that is lower) to the best
  candidate of every kind searched (so a diary turn at 0.56 is not worth a note at 0.89
  because it is the best memory): bge-small's similarities live in a narrow band
  (0.55-0.85 for anything related), and their spread within one question is what carries
  the information. The gate, not the weakest candidate, is the zero so that with few
  candidates the weaker of two good matches is not reduced to nothing;
* BM25 is divided by the best BM25 of the question. Its floor is 0, not the weakest hit,
  so a row matched only by a word that is in almost every row (a speaker's name: FTS5
  gives such a term an IDF of 1e-6) keeps a share of ~0 and cannot be lifted by it. When
  even the best text hit is below ``TEXT_NOISE_FLOOR`` the text signal found nothing worth
  having and adds nothing, unless it is the only signal asked for.

Reciprocal rank fusion, used before, threw the scores away: three turns that merely
contained the speaker's name, with identical near-zero BM25, took full-text ranks 1-3 and
with them as much credit as a real word match. Measured on long multi-session conversations
(bge-small int8, no language model), score-aware fusion gains about 0.05 recall@10 over
RRF k=60.

The adjustments then apply to that relevance:

* recency adds up to ``boost`` (0.05 by default) decaying linearly to 0 at ``days`` (90)
  days after the remembered thing happened (``created_at``);
* strength and tier multiply: ``1 - weight * (1 - strength)``, so a memory nobody has used
  for a year keeps ``1 - weight`` of its score (0.7 by default) and stays findable when it is
  the answer, while an equally relevant memory in use comes first; source-tier originals
  (folded into an archival summary) are weighed by ``recall_tier_weights``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from core.storage.windows import TextWindow
from core.storage.port import IndexHit

SIGNAL_SCORE_NAMES = {"text": "score", "vector": "similarity"}
"""What each signal's ``IndexHit.score`` means, as named in ``RecallResult.signals``."""

TEXT_NOISE_FLOOR = 1e-3
"""A best BM25 below this means only near-ubiquitous words matched (FTS5 clamps their IDF
to 1e-6): the text signal then contributes nothing."""


@dataclass
class Fused:
    """One row's fused relevance in [0, 1] and what each signal said about it."""

    relevance: float = 0.0
    signals: dict[str, dict[str, float]] = field(default_factory=dict)
    chunk: TextWindow | None = None
    """The window of a long text that the vector search matched, if not its beginning."""


def normalised_scores(signal: str, hits: Sequence[IndexHit], vector_floor: float = 0.0,
                      *, alone: bool = False, vector_best: float | None = None
                      ) -> dict[int, float]:
    """Each hit's score on [0, 1] (see the module docstring for each signal's rule).

    ``alone``: the only signal in use, so its order is all there is (a word in every row
    of a tiny store still finds them). ``vector_best``: the best cosine among every kind
    searched, when higher than this kind's own (cosines of one model compare across kinds;
    BM25 of different tables does not)."""
    if not hits:
        return {}
    scores = [hit.score for hit in hits]
    best = max(scores)
    if signal == "vector" and vector_best is not None:
        best = max(best, vector_best)
    if signal == "text":
        if best < TEXT_NOISE_FLOOR and not alone:
            return {hit.id: 0.0 for hit in hits}
        return {hit.id: max(0.0, hit.score) / best for hit in hits}
    worst = min(min(scores), vector_floor)
    spread = best - worst
    if spread <= 1e-9:
        return {hit.id: 1.0 for hit in hits}
    return {hit.id: (hit.score - worst) / spread for hit in hits}


def fuse(hits_by_signal: Mapping[str, Sequence[IndexHit]], weights: Mapping[str, float],
         vector_floor: float = 0.0, vector_best: float | None = None) -> dict[int, Fused]:
    """Weighted sum of the normalised scores of several ranked lists of one kind of row."""
    total = sum(weights[signal] for signal in hits_by_signal) or 1.0
    fused: dict[int, Fused] = {}
    for signal, hits in hits_by_signal.items():
        share = weights[signal] / total
        normal = normalised_scores(signal, hits, vector_floor,
                                   alone=len(hits_by_signal) == 1, vector_best=vector_best)
        for hit in hits:
            entry = fused.setdefault(hit.id, Fused())
            entry.relevance += share * normal[hit.id]
            entry.signals[signal] = {"rank": hit.rank, SIGNAL_SCORE_NAMES[signal]: hit.score,
                                     "normalised": normal[hit.id]}
            if hit.chunk is not None:
                entry.chunk = hit.chunk
                entry.signals[signal]["window"] = hit.chunk.position
    return fused


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


def strength_factor(strength: float, weight: float) -> float:
    """``1 - weight * (1 - strength)`` with strength clamped to [0, 1]."""
    return 1.0 - weight * (1.0 - min(1.0, max(0.0, strength)))
