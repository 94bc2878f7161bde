"""Dream-cycle engine cost: every stage at 10k and 100k memories, with peak memory.

The store is the recall benchmark's generated corpus with its cached vectors
(``benchmarks/recall.py``). On it lies one night's work, the same at every size, so the
figures show what the *store's* size costs each stage: ``EVENTS`` unprocessed context
events, ``DRAFTS`` machine-written drafts to triage, ``UNENRICHED`` memories without
entities (every other memory is imported and enriched already) and ``SESSIONS`` closed
chats of ``EXCHANGES`` answered exchanges from the last day (for distil and reflect).

The LLM stages (process, triage, distil, enrich, merge, reflect) talk to the scripted
model of the tests (``tests/support/scripted_llm.py``), which answers at once with a valid
output for the schema it is asked for, so their figures are Hearth's own cost: queries,
prompts, validation, writes, and the real bge-small embeddings of what they store
(processor facts, distilled memories, merge summaries). A real model adds its own seconds
per call on top (the ``calls`` count says how many).

Stages run in the cycle's order, except that link and REM come before decay: the
generated store has two years of never-accessed memories, and decay invalidates most of
them. Each stage is timed on the store, then run again under ``tracemalloc`` on a copy
taken just before (numpy reports its buffers to tracemalloc), because a stage is
idempotent and a rerun on the same rows would find nothing to do.

Also reported: the share of true (exact) nearest neighbours the link stage finds, on a
sample of memories, which is below 1 only above ``link.EXACT_MAX_ROWS`` (clustered search).
"""

from __future__ import annotations

import json
import re
import shutil
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from datetime import timedelta
from itertools import count
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import select, update

from benchmarks.recall import SEED, Corpus, _fill, cached_document_vectors, memory_texts
from core.app import Hearth
from core.config import Settings
from core.consolidation.services import ConsolidationServices
from core.consolidation import distil, enrich, link, merge, triage
from core.consolidation.decay import run_decay
from core.consolidation.processor import MemoryProcessor
from core.consolidation.reflection import ReflectionEngine
from core.consolidation.rem import run_rem
from core.embedding import OnnxEmbedder
from core.learning.events import add_event
from core.llm import LLMProvider, Message
from core.storage.orm import ChatSession, Interaction, Memory, MemoryEdge, utcnow
from core.storage.port import IndexedKind
from core.storage.sqlite.adapter import SqliteStorage

TARGETS_SECONDS = {("link", 100_000): 60.0, ("decay", 100_000): 2.0}
QUALITY_SAMPLE = 500
EVENTS, DRAFTS, UNENRICHED, SESSIONS, EXCHANGES = 200, 400, 400, 20, 3
ENRICHED = {"people": [], "places": [], "topics": ["imported"]}

Stage = Callable[[ConsolidationServices, LLMProvider], dict[str, Any]]


def bench_dream(sizes: Sequence[int] = (10_000, 100_000)) -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}`` per stage and size."""
    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    texts = memory_texts(max(sizes))
    corpus = Corpus(texts, cached_document_vectors(texts, embedder),
                    np.random.default_rng(SEED).random(len(texts)) >= 0.02)
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="hearth-dream-") as folder:
        for size in sizes:
            home = Path(folder) / f"dream-{size}"
            storage = SqliteStorage(home / "hearth.db")
            try:
                _fill(storage, corpus, size, embedder.model_id)
            finally:
                storage.close()
            with Hearth.open(home, settings=settings, embedder=embedder) as hearth:
                _night_of_work(hearth)
                rows.extend(_stage_rows(hearth, size, Path(folder)))
            shutil.rmtree(home)
    return rows


def _night_of_work(hearth: Hearth) -> None:
    """Mark the bulk imported and enriched, the newest ``DRAFTS`` drafts (of which the
    first ``UNENRICHED`` lack entities), and add the events and closed sessions."""
    with hearth.storage.write() as session:
        newest = session.scalars(select(Memory.id).order_by(Memory.id.desc())
                                 .limit(max(DRAFTS, UNENRICHED))).all()
        session.execute(update(Memory).values(source="import", entities=ENRICHED))
        session.execute(update(Memory).where(Memory.id.in_(newest[:DRAFTS]))
                        .values(source="processor"))
        session.execute(update(Memory).where(Memory.id.in_(newest[:UNENRICHED]))
                        .values(entities={}))
        now = utcnow()
        for number in range(SESSIONS):
            session_id = f"bench-{number}"
            session.add(ChatSession(id=session_id, title=f"Evening chat {number}",
                                    closed_at=now - timedelta(hours=2)))
            for turn in range(EXCHANGES):
                session.add(Interaction(
                    session_id=session_id, status="completed",
                    created_at=now - timedelta(hours=3, minutes=turn),
                    user_message=f"Chat {number}, turn {turn}: the allotment needs "
                                 f"watering and the beans are up.",
                    agent_response="Good to hear. Water them in the evening."))
    for number in range(EVENTS):
        add_event(hearth.storage, "fact", f"allotment_plot_{number}: bed {number} has "
                                          f"runner beans", {"source": "bench"})


def _stage_rows(hearth: Hearth, size: int, folder: Path) -> list[dict[str, str]]:
    label = f"@{size // 1000}k"
    settings = hearth.settings
    stages: list[tuple[str, Stage]] = [
        ("process", lambda h, p: MemoryProcessor(h, p).run(trigger="bench").counts()),
        ("triage", lambda h, p: triage.run(h, p)),
        ("distil", lambda h, p: distil.run(h, p)),
        ("enrich", lambda h, p: enrich.run(h, p)),
        ("link", lambda h, _: link.run_link(h.storage, settings)),
        ("rem", lambda h, _: run_rem(h.storage, settings, rng_seed=SEED)),
        ("decay", lambda h, _: run_decay(h.storage, settings)),
        ("merge", lambda h, p: merge.run(h, p)),
        ("reflect", lambda h, p: ReflectionEngine(h, p).run(trigger="bench").counts()),
    ]
    rows = []
    for name, stage in stages:
        rows.append(_measured(name, stage, hearth, size, label, folder))
        if name == "link":
            rows.append({"benchmark": f"link: true neighbours found {label}",
                         "value": f"{_neighbour_recall(hearth.storage, settings):.3f}",
                         "target": "1.000 up to 12k (exact)"})
    return rows


def _measured(name: str, stage: Stage, hearth: Hearth, size: int, label: str,
              folder: Path) -> dict[str, str]:
    """Time ``stage`` on ``hearth``; measure its peak memory on a copy of the store."""
    twin_home = folder / f"twin-{size}-{name}"
    hearth.storage.backup_to(twin_home / "hearth.db")
    model = scripted_model()
    started = time.perf_counter()
    counts = stage(hearth.consolidation(), model)
    seconds = time.perf_counter() - started
    with Hearth.open(twin_home, settings=hearth.settings, embedder=hearth.embedder) as twin:
        tracemalloc.start()
        try:
            stage(twin.consolidation(), scripted_model())
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    shutil.rmtree(twin_home)
    if model.requests:
        counts = {**counts, "calls": len(model.requests)}
    return _row(name, size, label, seconds, peak, counts)


def scripted_model(merge_summary: Callable[[Sequence[Message]], str] | None = None
                   ) -> LLMProvider:
    """The tests' scripted model with a responder that answers every dream stage's
    request validly, by the schema it is asked for (reflection: the marker format).
    ``merge_summary`` writes the merge stage's answers instead of a numbered stub."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from support.scripted_llm import ScriptedLLM

    serial = count(1)

    def respond(kind: str, messages: Sequence[Message], extra: dict[str, Any]) -> str:
        title = (extra.get("schema") or {}).get("title", "")
        numbered = len(re.findall(r"^\d+\. ", messages[-1].content, re.MULTILINE))
        n = next(serial)
        if kind == "chat":
            return _REFLECTION
        if title == "TriageAnswer":
            verdicts = ("promote", "review", "forget")
            return json.dumps({"verdicts": [{"number": i, "verdict": verdicts[i % 3]}
                                            for i in range(1, numbered + 1)]})
        if title == "EnrichAnswer":
            return json.dumps({"memories": [{"number": i, "people": [], "places": ["garden"],
                                             "topics": ["allotment"]}
                                            for i in range(1, numbered + 1)]})
        if title == "Distilled":
            return json.dumps({"content": f"The user grows runner beans in allotment bed "
                                          f"{n} and waters them in the evening.",
                               "category": "general"})
        if title == "MergeSummary" and merge_summary is not None:
            return merge_summary(messages)
        if title == "MergeSummary":
            return json.dumps({"summary": f"Summary {n} of several similar older memories."})
        if title == "ProcessorOutput":
            return json.dumps({"updated_scaffold": {"Allotment": {"beds": n}},
                               "updated_working_memory": f"Busy with allotment bed {n}.",
                               "facts_to_embed": [f"Allotment bed {n} has runner beans.",
                                                  f"Bed {n} is watered every evening."]})
        if title.startswith("DedupeVerdict"):
            return json.dumps({"action": "ADD", "target": 0, "reason": "a new detail"})
        raise AssertionError(f"the benchmark's model was asked an unknown {kind}: {title!r}")

    return ScriptedLLM(respond)


_REFLECTION = (
    "---PROFILE---\n## Personal\nKeeps an allotment.\n## Goals & Values\nGrow food.\n"
    "## Communication Style\nShort messages.\n## Patterns & Rhythms\nWaters in the evening.\n"
    "## Preferences\nRunner beans.\n## Notes\nBeans are up.\n\n"
    "---FACTS---\n" + json.dumps([{"key": "grows", "value": "runner beans",
                                   "category": "preference"}]) + "\n\n"
    "---INTENTIONS---\n" + json.dumps([{"text": "water the beans", "follow_up_days": 1,
                                        "context": "dry week"}]) + "\n\n"
    "---LEARNINGS---\n" + json.dumps([{"rule": "Keep gardening tips short",
                                       "category": "communication"}]) + "\n")


def _row(name: str, size: int, label: str, seconds: float, peak: int,
         counts: dict[str, Any]) -> dict[str, str]:
    target = TARGETS_SECONDS.get((name, size))
    shown = ", ".join(f"{key} {value:,}" for key, value in counts.items()
                      if isinstance(value, int) and not isinstance(value, bool) and value
                      and key != "run_id")
    return {"benchmark": f"{name} stage {label}",
            "value": f"{seconds:.2f} s · peak {peak / 1e6:.1f} MB · {shown}",
            "target": f"≤ {target:.0f} s" if target else ""}


def _neighbour_recall(storage: Any, settings: Settings) -> float:
    """Share of each sampled memory's exact top-k (above the floor) that has a knn edge."""
    with storage.read() as session:
        ids, matrix = storage.search.vectors(session, IndexedKind.MEMORY)
        stored: dict[int, list[int]] = {}
        for a, b in session.execute(select(MemoryEdge.from_id, MemoryEdge.to_id)
                                    .where(MemoryEdge.kind == link.KIND)):
            stored.setdefault(a, []).append(b)
    matrix = link.normalised(matrix)
    sample = np.random.default_rng(SEED).choice(ids.size, min(QUALITY_SAMPLE, ids.size),
                                                replace=False)
    scores = matrix[sample] @ matrix.T
    scores[np.arange(sample.size), sample] = -np.inf
    k = settings.link_max_edges
    found = wanted = 0
    for row, index in enumerate(sample):
        top = np.argpartition(scores[row], -k)[-k:]
        # a neighbour tied with the k-th is as good as it: count by score, not identity
        kth = np.min(scores[row, top])
        truth = [j for j in top if scores[row, j] >= settings.link_similarity_floor]
        linked = stored.get(int(ids[index]), [])
        wanted += len(truth)
        position = np.searchsorted(ids, linked)
        found += min(len(truth), int(np.sum(scores[row, position] >= kth - 1e-6)))
    return found / wanted if wanted else 1.0
