"""Calibrate the two dedupe thresholds on labelled memory pairs, with the real embedder.

bge-small cosine scores run high (unrelated memory sentences about one user score
0.4-0.6), so round thresholds such as 0.8 or 0.88 cannot be taken on
trust. ``tests/data/dedupe_pairs.jsonl`` holds hand-written pairs in five labels:

* ``duplicate``: the same thing said again (rewording, a dropped article);
* ``update``: the second refines or extends the first;
* ``contradiction``: the second makes the first outdated;
* ``related``: same area of life, different fact (must both be kept);
* ``unrelated``: different facts about the same user.

The skip threshold (no LLM call) must stay above every update and contradiction: skipping
one of those would lose the newer truth. The candidate threshold (the LLM is asked) should
let nearly every duplicate, update and contradiction through while keeping unrelated pairs
out; related pairs in between cost an LLM call that answers ADD, which is safe.

Run: ``.venv/bin/python -m benchmarks.dedupe_calibration``.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from core.config import DEFAULT_EMBEDDING_MODEL_DIR, Settings
from core.embedding import OnnxEmbedder

PAIRS = Path(__file__).resolve().parents[1] / "tests" / "data" / "dedupe_pairs.jsonl"
LABELS = ("duplicate", "update", "contradiction", "related", "unrelated")
MUST_REACH_LLM = ("duplicate", "update", "contradiction")
MUST_NOT_SKIP = ("update", "contradiction", "related", "unrelated")


@dataclass(frozen=True)
class Scored:
    label: str
    a: str
    b: str
    similarity: float


def load_pairs(path: Path = PAIRS) -> list[dict[str, str]]:
    pairs = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()
             if line.strip()]
    unknown = {pair["label"] for pair in pairs} - set(LABELS)
    if unknown:
        raise ValueError(f"{path}: unknown labels {sorted(unknown)}")
    return pairs


def score_pairs(embedder: OnnxEmbedder, pairs: list[dict[str, str]]) -> list[Scored]:
    """Cosine of each pair as dedupe sees it: both sides embedded as documents."""
    left = embedder.embed_documents([pair["a"] for pair in pairs])
    right = embedder.embed_documents([pair["b"] for pair in pairs])
    similarities = np.einsum("ij,ij->i", left, right)
    return [Scored(pair["label"], pair["a"], pair["b"], float(similarity))
            for pair, similarity in zip(pairs, similarities, strict=True)]


def share_at_or_above(scored: list[Scored], labels: tuple[str, ...], threshold: float) -> float:
    chosen = [item for item in scored if item.label in labels]
    return sum(item.similarity >= threshold for item in chosen) / len(chosen)


def report(scored: list[Scored], skip: float, candidate: float) -> str:
    by_label: dict[str, list[float]] = defaultdict(list)
    for item in scored:
        by_label[item.label].append(item.similarity)
    lines = [f"{'label':<14}{'n':>4}{'min':>8}{'p10':>8}{'median':>8}{'p90':>8}{'max':>8}"
             f"{'>=skip':>8}{'>=cand':>8}"]
    for label in LABELS:
        values = np.array(by_label[label])
        p10, median, p90 = np.percentile(values, [10, 50, 90])
        lines.append(f"{label:<14}{len(values):>4}{values.min():>8.3f}{p10:>8.3f}"
                     f"{median:>8.3f}{p90:>8.3f}{values.max():>8.3f}"
                     f"{np.mean(values >= skip):>8.0%}{np.mean(values >= candidate):>8.0%}")
    lines.append(f"\nthresholds (settings defaults): skip {skip:.2f}, candidate {candidate:.2f}")
    lines.append(f"  false skips (update/contradiction/related/unrelated >= skip): "
                 f"{share_at_or_above(scored, MUST_NOT_SKIP, skip):.0%}")
    lines.append(f"  duplicates/updates/contradictions shown to the LLM or skipped: "
                 f"{share_at_or_above(scored, MUST_REACH_LLM, candidate):.0%}")
    lines.append(f"  unrelated pairs shown to the LLM: "
                 f"{share_at_or_above(scored, ('unrelated',), candidate):.0%}")
    lines.append(f"  related pairs shown to the LLM (it should answer ADD): "
                 f"{share_at_or_above(scored, ('related',), candidate):.0%}")
    misses = sorted((item for item in scored if item.label in MUST_REACH_LLM
                     and item.similarity < candidate), key=lambda item: item.similarity)
    if misses:
        lines.append("\nmissed (below the candidate threshold, would be added as new):")
        lines.extend(f"  {item.similarity:.3f} {item.label}: {item.a!r} / {item.b!r}"
                     for item in misses)
    highest_kept = max((item for item in scored if item.label in MUST_NOT_SKIP),
                       key=lambda item: item.similarity)
    lines.append(f"\nmost similar pair that must not be skipped: {highest_kept.similarity:.3f} "
                 f"{highest_kept.label}: {highest_kept.a!r} / {highest_kept.b!r}")
    return "\n".join(lines)


def main() -> None:
    embedder = OnnxEmbedder(DEFAULT_EMBEDDING_MODEL_DIR, threads=2)
    scored = score_pairs(embedder, load_pairs())
    defaults = Settings()
    print(report(scored, defaults.dedupe_skip_similarity, defaults.dedupe_candidate_similarity))


if __name__ == "__main__":
    main()
