"""The conversation's own costs: assembling a turn, and learning from it.

Turn assembly is everything Hearth does before the model sees a request: read facts,
profile and habits, build the system prompt, embed the query, recall memories and
notes, fit them into the context budget, select the history. It is measured with 1,000
facts, 10k memories and a 20-exchange conversation, query embedding included (Hearth's
target: p95 ≤ 30 ms for injection and retrieval together).

Extraction latency is what the background learning costs per exchange with the embedded
model (the reply never waits for it).
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path
from statistics import median

import numpy as np

from benchmarks.recall import Corpus, _fill, cached_document_vectors, memory_texts, query_texts
from benchmarks.stats import percentiles
from core.config import Settings
from core.conversation import assembly
from core.embedding import OnnxEmbedder
from core.recall import RecallService
from core.storage.orm import ChatSession, Interaction, AboutYouVersion, UserFact
from core.storage.port import StoragePort
from core.storage.sqlite.adapter import SqliteStorage

FACTS = 1_000
MEMORIES = 10_000
EXCHANGES = 20
TURNS = 200
CATEGORIES = ("location", "personal", "preference", "work", "health", "general")
PROFILE = "\n".join(f"## {section}\n" + " ".join(["The user values clear plans."] * 15)
                    for section in ("Personal", "Goals & Values", "Communication Style",
                                    "Patterns & Rhythms", "Preferences", "Notes"))


class PromptOnlyModel:
    """What assembly asks of a provider (window, tools), without a model behind it."""

    name, model, supports_tools, context_window = "bench", "bench", True, 8192


def _seed(storage: SqliteStorage, embedder: OnnxEmbedder) -> str:
    texts = memory_texts(MEMORIES)
    vectors = cached_document_vectors(texts, embedder)
    _fill(storage, Corpus(texts, vectors, np.ones(len(texts), dtype=bool)), MEMORIES,
          embedder.model_id)
    seed_conversation(storage)
    return "bench"


def seed_conversation(storage: StoragePort) -> None:
    """The facts, the profile and the 20-exchange conversation every turn reads."""
    rng = random.Random(11)
    now = datetime.now(timezone.utc)
    with storage.write() as session:
        session.add_all(UserFact(key=f"fact_{i:04d}", value=f"value {rng.randint(0, 10**6)}",
                                 category=rng.choice(CATEGORIES)) for i in range(FACTS))
        session.add(AboutYouVersion(content=PROFILE))
        session.add(ChatSession(id="bench", title="bench"))
        session.add_all(Interaction(
            session_id="bench", user_message=f"Question {i} about my plans for the week?",
            agent_response="Here is a considered answer. " * 8,
            created_at=now - timedelta(minutes=EXCHANGES - i)) for i in range(EXCHANGES))


def _assemble(storage, recall, settings, model, text: str, session_id: str) -> dict[str, int]:
    now = datetime.now().astimezone()
    prepared = assembly.draft(storage, recall, settings, model, text, now)
    prompt = assembly.complete(storage, recall, settings, model, prepared,
                               session_id=session_id, text=text, exclude_id=0)
    return prompt.tokens


def assembly_times(storage: StoragePort, embedder: OnnxEmbedder, settings: Settings,
                   session_id: str) -> tuple[list[float], list[dict[str, int]]]:
    """Milliseconds per assembled turn (after 10 warm-up turns) and its tokens."""
    model = PromptOnlyModel()
    recall = RecallService(storage, embedder, settings)
    questions = query_texts(TURNS + 10)
    for text in questions[:10]:
        _assemble(storage, recall, settings, model, text, session_id)
    times, tokens = [], []
    for text in questions[10:]:
        started = time.perf_counter()
        tokens.append(_assemble(storage, recall, settings, model, text, session_id))
        times.append((time.perf_counter() - started) * 1000)
    return times, tokens


def bench_turn_assembly() -> list[dict]:
    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    model = PromptOnlyModel()
    with tempfile.TemporaryDirectory(prefix="hearth-turns-") as folder:
        storage = SqliteStorage(Path(folder) / "turns.db")
        try:
            session_id = _seed(storage, embedder)
            times, tokens = assembly_times(storage, embedder, settings, session_id)
        finally:
            storage.close()
    p50, p95 = percentiles(times)
    typical = {key: median(t[key] for t in tokens) for key in ("system", "history", "context")}
    return [
        {"benchmark": f"turn assembly p50 / p95 ({FACTS:,} facts, {MEMORIES // 1000}k "
                      f"memories, {EXCHANGES}-exchange history, query embedding included)",
         "value": f"{p50:.1f} / {p95:.1f} ms", "target": "p95 ≤ 30 ms"},
        {"benchmark": "tokens injected per turn (median): system · history · context",
         "value": f"{typical['system']:.0f} · {typical['history']:.0f} · "
                  f"{typical['context']:.0f}",
         "target": f"budgets: system ≤ {model.context_window // 2} · history ≤ "
                   f"{settings.history_token_budget} · context ≤ "
                   f"{settings.context_token_budget}"},
    ]


EXCHANGES_TO_LEARN: Sequence[tuple[str, str]] = (
    ("By the way, I moved to Porto last month and I love it.", "That sounds wonderful!"),
    ("My daughter Lia starts school in September.", "A big step for her!"),
    ("I'm trying to cut down on coffee, maybe two cups a day.", "A sensible goal."),
    ("Work is busy, the Lisbon office wants the report by Friday.", "Good luck with it."),
    ("Can you remind me what a good stretching routine is?", "Here are five stretches..."),
)


def bench_extraction() -> list[dict]:
    """Background fact extraction per exchange with the embedded model."""
    from core.learning.extraction import model_facts
    from core.llm.embedded import EmbeddedProvider

    provider = EmbeddedProvider.from_settings(Settings())
    try:
        started = time.perf_counter()
        model_facts(provider, *EXCHANGES_TO_LEARN[0])  # loads the model
        load_s = time.perf_counter() - started
        times = []
        for user, reply in EXCHANGES_TO_LEARN:
            started = time.perf_counter()
            model_facts(provider, user, reply)
            times.append((time.perf_counter() - started) * 1000)
    finally:
        provider.close()
    p50, p95 = percentiles(times)
    return [{"benchmark": "fact extraction per exchange, embedded SmolLM2-135M (after a "
                          f"{load_s:.1f} s first call that loads it)",
             "value": f"{p50:.0f} / {p95:.0f} ms (p50 / p95)",
             "target": "background; the reply never waits"}]
