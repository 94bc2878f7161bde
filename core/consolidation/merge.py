"""Merge (dream stages 2-4): clusters of stale, similar memories become archival summaries.

The thresholds are settings (``merge_*`` in ``core.config``). Candidates are valid,
current recall-tier memories whose ``freshness`` (set by decay) is below
``merge_stale_freshness`` and that are not user-stated (those never decay, and the user's
own words are kept as said). Their stored vectors are clustered greedily: in id order,
each unclustered memory takes its most similar unclustered stale neighbours with cosine
at least ``merge_similarity_floor`` (at most ``merge_max_cluster`` in all); a group of at
least ``merge_min_cluster`` is a cluster. Similarities are computed as blocked matrix
products over the stale set, and a run stops after ``merge_clusters_per_run`` clusters
(each costs an LLM call); the next run continues with the rest.

The floor. On the labelled pairs of ``tests/core/consolidation/test_link_rem.py`` bge-small
scores paraphrases and same-topic pairs 0.79-0.92 and unrelated pairs at most 0.50; linking
uses 0.70. Merged originals weigh less in recall (the source tier), so it asks for more:
**0.80**, the paraphrase band (``tests/core/consolidation/test_dream_stages.py`` checks both
sides on its own triples).

Per cluster the LLM writes one summary. In one transaction the summary is stored (tier
``archival``, source ``merge``, embedded), every original is demoted to tier ``source``
(still valid, never deleted) and linked from the summary by an edge ``summary_of`` of
weight 1.0. Source-tier memories are never candidates, so a rerun merges nothing twice; a
failed or garbled answer, or one the quality gate turns down (too short, a template hole,
covering fewer than half of its originals: ``core.learning.quality_gate``), leaves the
cluster as it was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from pydantic import BaseModel, Field
from sqlalchemy import select

from core.consolidation.link import normalised
from core.consolidation.triage import ask_or_none, check_cancel, report_progress
from core.embedding.chunking import embed_documents_with_chunks
from core.learning import quality_gate
from core.learning.schemas import plain_text
from core.llm.protocol import CancelToken, LLMProvider, Message
from core.knowledge.memories import MemorySpec, validated_memory
from core.llm.prompts import load_prompt
from core.storage.orm import Memory, MemoryEdge, MemoryTier, Priority, utcnow
from core.storage.port import IndexedKind

if TYPE_CHECKING:
    from core.consolidation.services import ConsolidationServices
    from core.config import Settings

BLOCK_CELLS = 8 * 1024 * 1024
"""Similarities held at once (32 MB of float32): rows per block = this / stale count."""
SOURCE = "merge"
EDGE_KIND = "summary_of"
SUMMARY_CHARS = 600
MERGE_MAX_TOKENS = SUMMARY_CHARS // 3 + 30
COVERAGE = 0.5
"""Share of its originals a summary must cover to replace them (``quality_gate``)."""

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ClusterRule:
    """How stale memories are grouped (the ``merge_*`` settings)."""

    similarity_floor: float
    min_cluster: int
    max_cluster: int
    clusters_per_run: int

    @classmethod
    def from_settings(cls, settings: Settings) -> ClusterRule:
        return cls(settings.merge_similarity_floor, settings.merge_min_cluster,
                   settings.merge_max_cluster, settings.merge_clusters_per_run)


class MergeSummary(BaseModel):
    summary: str = Field(min_length=1, max_length=SUMMARY_CHARS,
                         pattern=plain_text(SUMMARY_CHARS))


def run(services: ConsolidationServices, provider: LLMProvider, *, progress: Progress | None = None,
        cancel: CancelToken | None = None) -> dict[str, int]:
    """Merge stale clusters; counts ``stale``, ``clusters``, ``merged`` (summaries
    written), ``demoted`` (originals moved to the source tier), ``failed`` and
    ``rejected`` (a summary the quality gate turned down: ``core.learning.quality_gate``)."""
    rule = ClusterRule.from_settings(services.settings)
    ids, matrix = _stale_vectors(services, rule)
    clusters = find_clusters(ids, matrix, rule)
    counts = {"stale": int(ids.size), "clusters": len(clusters), "merged": 0, "demoted": 0,
              "failed": 0, "rejected": 0}
    for done, cluster in enumerate(clusters, start=1):
        check_cancel(cancel, "Merging memories")
        _merge_one(services, provider, cluster, counts, cancel)
        report_progress(progress, done, len(clusters))
    return counts


def _stale_vectors(services: ConsolidationServices,
                   rule: ClusterRule) -> tuple[np.ndarray, np.ndarray]:
    """Ids (ascending) and unit vectors of the merge candidates."""
    storage = services.storage
    with storage.read() as session:
        stale = np.array(session.scalars(select(Memory.id).where(
            Memory.tier == MemoryTier.RECALL.value, Memory.is_valid.is_(True),
            Memory.superseded_by.is_(None),
            Memory.freshness < services.settings.merge_stale_freshness,
            Memory.priority != Priority.HIGHEST.value).order_by(Memory.id)).all(),
            dtype=np.int64)
        if stale.size < rule.min_cluster:
            return np.empty(0, dtype=np.int64), np.empty((0, 0), dtype=np.float32)
        ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY, valid_only=True)
    keep = np.isin(ids, stale)
    return ids[keep], normalised(matrix[keep])


def find_clusters(ids: np.ndarray, matrix: np.ndarray,
                  rule: ClusterRule) -> list[list[int]]:
    """Greedy clusters of memory ids (unit rows of ``matrix``), seed first, then by
    similarity to the seed; at most ``rule.clusters_per_run``."""
    taken = np.zeros(ids.size, dtype=bool)
    clusters: list[list[int]] = []
    block = max(1, BLOCK_CELLS // max(1, ids.size))
    for start in range(0, ids.size, block):
        scores = matrix[start:start + block] @ matrix.T
        for offset, row in enumerate(scores):
            seed = start + offset
            if taken[seed]:
                continue
            close = np.flatnonzero((row >= rule.similarity_floor) & ~taken)
            close = close[close != seed]
            if close.size + 1 < rule.min_cluster:
                continue
            members = close[np.argsort(-row[close], kind="stable")][:rule.max_cluster - 1]
            taken[seed] = True
            taken[members] = True
            clusters.append([int(ids[seed]), *(int(ids[m]) for m in members)])
            if len(clusters) == rule.clusters_per_run:
                return clusters
    return clusters


def _merge_one(services: ConsolidationServices, provider: LLMProvider, cluster: Sequence[int],
               counts: dict[str, int], cancel: CancelToken | None) -> None:
    with services.storage.read() as session:
        originals = list(session.scalars(select(Memory).where(Memory.id.in_(cluster))
                                         .order_by(Memory.created_at, Memory.id)))
    shown = "\n".join(f"- ({memory.created_at:%Y-%m-%d}) {' '.join(memory.content.split())}"
                      for memory in originals)
    messages = [Message("system", load_prompt("merge")),
                Message("user", f"<memories>\n{shown}\n</memories>")]
    answer = ask_or_none(provider, messages, MergeSummary, MERGE_MAX_TOKENS, cancel,
                         "Merging memories")
    if answer is None:
        counts["failed"] += 1
        return
    verdict = quality_gate.check(services.embedder, answer.summary,
                                 [memory.content for memory in originals], share=COVERAGE)
    if not verdict.passed:  # the originals stay as they were, in the recall tier
        quality_gate.rejected("merge summary", sorted(cluster), verdict)
        counts["rejected"] += 1
        return
    summary = _summary_row(answer.summary, originals)
    embedder = services.embedder
    services.storage.search.ensure_dimensions(embedder.dimensions)
    embedded = embed_documents_with_chunks(embedder, [summary.content])
    with services.storage.write() as session:
        current = list(session.scalars(select(Memory).where(
            Memory.id.in_(cluster), Memory.tier == MemoryTier.RECALL.value,
            Memory.is_valid.is_(True), Memory.superseded_by.is_(None))))
        if len(current) != len(cluster):
            counts["failed"] += 1  # changed since it was read: next run re-clusters
            return
        session.add(summary)
        session.flush()
        embedded.store(services.storage.search, session, IndexedKind.MEMORY, [summary.id],
                       embedder.model_id)
        for memory in current:
            memory.tier = MemoryTier.SOURCE.value
            memory.updated_at = utcnow()
            session.add(MemoryEdge(from_id=summary.id, to_id=memory.id, kind=EDGE_KIND,
                                   weight=1.0))
    counts["merged"] += 1
    counts["demoted"] += len(cluster)


def _summary_row(text: str, originals: Sequence[Memory]) -> Memory:
    """The archival memory: namespace shared by all originals (their common path), the
    most common category, the highest importance, the people/places/topics of all."""
    namespaces = [memory.namespace.split("/") for memory in originals]
    common: list[str] = []
    for parts in zip(*namespaces, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    entities: dict[str, list[str]] = {}
    for memory in originals:
        for key, names in (memory.entities or {}).items():
            entities.setdefault(key, [])
            entities[key].extend(name for name in names if name not in entities[key])
    category = Counter(memory.category for memory in originals).most_common(1)[0][0]
    return validated_memory(MemorySpec(
        content=text, namespace="/".join(common) or "user", source=SOURCE,
        tier=MemoryTier.ARCHIVAL.value, category=category, entities=entities,
        importance=max(memory.importance for memory in originals),
        origin={"merged": sorted(memory.id for memory in originals)}))


