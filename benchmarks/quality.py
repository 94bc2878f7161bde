"""Retrieval quality on Hearth's own labelled set (benchmarks/data).

The four hand-written conversations are imported like any transcript; each question is
asked within its conversation's namespace, and recall@k is the share of the labelled answer
turns found in the top k (averaged over questions). Hybrid is compared with each signal
alone, so the table shows what fusion buys.
"""

from __future__ import annotations

import json
import tempfile
from collections import defaultdict
from pathlib import Path

from core.app import Hearth
from core.recall import RecallQuery
from core.storage.port import SearchFilters
from core.transfer.transcript import import_transcript

DATA = Path(__file__).with_name("data")
MODES = {"hybrid": frozenset({"text", "vector"}), "full text only": frozenset({"text"}),
         "vector only": frozenset({"vector"})}


def load_questions() -> list[dict]:
    lines = (DATA / "questions.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def recall_at(found: list[str], answers: list[str], k: int) -> float:
    return len(set(found[:k]) & set(answers)) / len(answers)


def evaluate(hearth: Hearth, questions: list[dict], signals: frozenset[str]) -> dict:
    """Mean recall@5 and @10, overall and per question kind."""
    scores: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for question in questions:
        scope = SearchFilters(namespaces=(f"import/{question['conversation_id']}",))
        results = hearth.recall.recall(RecallQuery(text=question["question"], k=10,
                                                   filters=scope, signals=signals))
        found = [r.provenance.get("turn_id") for r in results]
        pair = (recall_at(found, question["answer_turn_ids"], 5),
                recall_at(found, question["answer_turn_ids"], 10))
        scores["all"].append(pair)
        scores[question["kind"]].append(pair)
    return {kind: (sum(p[0] for p in pairs) / len(pairs), sum(p[1] for p in pairs) / len(pairs),
                   len(pairs)) for kind, pairs in scores.items()}


def bench_quality() -> list[dict]:
    questions = load_questions()
    with tempfile.TemporaryDirectory(prefix="hearth-quality-") as tmp, Hearth.open(tmp) as hearth:
        for conversation in sorted((DATA / "conversations").glob("*.json")):
            import_transcript(conversation, hearth.storage, hearth.memories)
        rows = []
        for mode, signals in MODES.items():
            result = evaluate(hearth, questions, signals)
            r5, r10, n = result["all"]
            detail = ", ".join(f"{kind} {v[1]:.2f}" for kind, v in sorted(result.items())
                               if kind != "all")
            rows.append({"benchmark": f"retrieval recall@5 / @10, {mode} ({n} questions)",
                         "value": f"{r5:.3f} / {r10:.3f}",
                         "target": f"@10 by kind: {detail}"})
    return rows
