"""Vectors for a million memories without embedding a million texts.

Embedding 1M generated memories with bge-small takes over half an hour on the 2-core
machine, and a benchmark of *scale* needs the vectors' shape, not their meaning. So the
first ``REAL`` rows are the real (cached) embeddings of the recall benchmark's generated
memories, and each further vector is one of them moved by noise drawn from the real
embeddings' own covariance (their principal axes and variances), scaled so that its cosine
to its source lies around 0.85 (0.75-0.92: the range of two paraphrases or two memories on
the same topic, ``core.consolidation.link``). The result keeps what makes bge's vectors
hard or easy for an index: the shared mean direction (anisotropy), the uneven variance
across dimensions, and clusters of near neighbours around every topic.

The text of a generated row is the generator's own sentence for that row, which does not
match its vector; full-text figures at 1M measure the index's cost, not relevance.
"""

from __future__ import annotations

import numpy as np

REAL = 100_000
"""Rows that are real embeddings; the rest are derived from them."""

SEED = 20261122
_BLOCK = 50_000


def bge_shaped(real: np.ndarray, count: int, seed: int = SEED) -> np.ndarray:
    """``count`` unit float32 vectors: ``real`` (unit rows) first, then vectors derived from
    them as the module says. The same inputs always give the same output."""
    if count <= real.shape[0]:
        return np.ascontiguousarray(real[:count], dtype=np.float32)
    rng = np.random.default_rng(seed)
    sample = real[rng.choice(real.shape[0], min(20_000, real.shape[0]), replace=False)]
    centred = sample - sample.mean(axis=0)
    _, singular, axes = np.linalg.svd(centred, full_matrices=False)
    spread = (singular / np.sqrt(sample.shape[0] - 1)).astype(np.float32)
    variance = float((spread ** 2).sum())
    out = np.empty((count, real.shape[1]), dtype=np.float32)
    out[:real.shape[0]] = real
    for start in range(real.shape[0], count, _BLOCK):
        stop = min(count, start + _BLOCK)
        n = stop - start
        sources = real[rng.integers(0, real.shape[0], n)]
        target = rng.uniform(0.75, 0.92, n).astype(np.float32)
        # |noise|^2 = 1/cos^2 - 1 gives the wanted cosine for a unit source (on average)
        scale = np.sqrt((1.0 / target ** 2 - 1.0) / variance)[:, None]
        noise = (rng.standard_normal((n, real.shape[1]), dtype=np.float32) * spread) @ axes
        block = sources + noise.astype(np.float32) * scale
        block /= np.linalg.norm(block, axis=1, keepdims=True)
        out[start:stop] = block
    return out
