"""Retrieval quality on Hearth's own labelled sets, before and after a year of dreams.

Two sets (``benchmarks/data``): the hand-labelled user/assistant conversations, and the
hard set (``benchmarks/data/hard``: long conversations of 300+ turns over a year, between
named people and with an assistant, questions of five kinds). Each set is imported like any
transcript into a fresh data folder; each question is asked within its conversation's
namespace, and recall@k is the share of the labelled answer turns found in the top k
(averaged over questions). Hybrid is compared with each signal alone and with a plain
BM25 + cosine reciprocal-rank fusion of the same candidates, so the table shows what
Hearth's ranking buys.

A third set, RealMem (``benchmarks.realmem``), is read from outside the repository and
scored by session: each of its questions is asked at its own moment with only the earlier
sessions visible.

Then the clock is moved ahead (``core.clock.shifted``: no sleeping) 30, 180 and 365 days
after the import, the whole dream cycle runs at each step with a scripted model (merge
summaries are the originals' first sentences, as a model's summary would restate them), and
the hybrid questions are asked again: recall@10 after a dream must never be below recall@10
before it. That is the test of forgetting that loses nothing.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

from benchmarks.baselines import origins, plain_rrf
from core import clock
from core.app import Hearth
from core.llm import LLMProvider, Message
from core.recall import RecallQuery
from core.storage.port import SearchFilters
from core.transfer.transcript import import_transcript

DATA = Path(__file__).with_name("data")
MODES = {"hybrid": frozenset({"text", "vector"}), "full text only": frozenset({"text"}),
         "vector only": frozenset({"vector"})}
KS = (5, 10, 20)
DREAM_DAYS = (30, 180, 365)
"""Days after the import at which a dream runs and the questions are asked again."""


@dataclass(frozen=True)
class LabelledSet:
    name: str
    conversations: Path
    questions: tuple[Path, ...]

    def load_questions(self) -> list[dict[str, Any]]:
        lines = [line for path in self.questions
                 for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        return [json.loads(line) for line in lines]

    def conversation_files(self) -> list[Path]:
        return sorted(self.conversations.glob("*.json"))


SETS = (
    LabelledSet("hand-labelled", DATA / "conversations", (DATA / "questions.jsonl",)),
    LabelledSet("hard", DATA / "hard" / "conversations",
                tuple(sorted((DATA / "hard" / "questions").glob("*.jsonl")))),
)


def load_questions() -> list[dict[str, Any]]:
    """The hand-labelled set's questions (kept for the tests that use them)."""
    return SETS[0].load_questions()


def recall_at(found: Sequence[str | None], answers: Sequence[str], k: int) -> float:
    return len(set(found[:k]) & set(answers)) / len(answers)


Scores = dict[str, tuple[tuple[float, ...], int]]
"""kind (and "all") -> (mean recall at each of ``KS``, question count)."""


def _scored(questions: Iterable[dict[str, Any]],
            found: Callable[[dict[str, Any], SearchFilters], list[str | None]]) -> Scores:
    """Mean recall@k for each k in ``KS``, overall and per question kind, of ``found``
    (a question and its conversation's scope -> the turn ids it ranks, best first)."""
    per_kind: dict[str, list[tuple[float, ...]]] = defaultdict(list)
    for question in questions:
        scope = SearchFilters(namespaces=(f"import/{question['conversation_id']}",))
        turns = found(question, scope)
        scores = tuple(recall_at(turns, question["answer_turn_ids"], k) for k in KS)
        per_kind["all"].append(scores)
        per_kind[question["kind"]].append(scores)
    return {kind: (tuple(sum(s[i] for s in rows) / len(rows) for i in range(len(KS))),
                   len(rows)) for kind, rows in per_kind.items()}


def evaluate(hearth: Hearth, questions: Iterable[dict[str, Any]],
             signals: frozenset[str]) -> Scores:
    """Hearth's recall with these signals."""
    def found(question: dict[str, Any], scope: SearchFilters) -> list[str | None]:
        results = hearth.recall.recall(RecallQuery(text=question["question"], k=max(KS),
                                                   filters=scope, signals=signals, graph=0))
        return [r.provenance.get("turn_id") for r in results]

    return _scored(questions, found)


def rrf_baseline(hearth: Hearth, questions: Iterable[dict[str, Any]]) -> Scores:
    """The plain hybrid search Hearth is measured against: the same BM25 and cosine
    candidates (50 each), fused by reciprocal rank (k = 60), nothing else."""
    def found(question: dict[str, Any], scope: SearchFilters) -> list[str | None]:
        best = plain_rrf(hearth, question["question"], scope, max(KS))
        turns = origins(hearth, best)
        return [turns.get(row_id, {}).get("turn_id") for row_id in best]

    return _scored(questions, found)


def summary_model() -> LLMProvider:
    """The benchmark's stand-in for a model in the dream: every stage answered validly;
    a merge summary restates the first sentence of each original."""
    from benchmarks.dream import scripted_model

    def summarise(messages: Sequence[Message]) -> str:
        lines = re.findall(r"^- \(\d{4}-\d\d-\d\d\) (.*)$", messages[-1].content, re.MULTILINE)
        firsts = [re.split(r"(?<=[.!?])\s", line, maxsplit=1)[0] for line in lines]
        summary = " ".join(firsts).replace('"', "'")[:580]  # plain text, as the schema asks
        return json.dumps({"summary": summary or "Several older memories."})

    return scripted_model(merge_summary=summarise)


def _row(set_name: str, label: str, scores: Scores, target: str = "") -> dict[str, str]:
    overall, count = scores["all"]
    by_kind = ", ".join(f"{kind} {values[0][1]:.2f}" for kind, values in sorted(scores.items())
                        if kind != "all")
    return {"benchmark": f"{set_name}: recall@5 / @10 / @20, {label} ({count} questions)",
            "value": " / ".join(f"{value:.3f}" for value in overall),
            "target": f"{target}@10 by kind: {by_kind}".strip()}


def bench_set(labelled: LabelledSet, *, dreams: Sequence[int] = DREAM_DAYS,
              on_step: Callable[[str], None] | None = None) -> list[dict[str, str]]:
    """Rows for one labelled set: each mode before any dream, then hybrid after dreams."""
    from core.consolidation.dream import DreamCycle

    questions = labelled.load_questions()
    rows = []
    with tempfile.TemporaryDirectory(prefix="hearth-quality-") as tmp, \
            Hearth.open(tmp) as hearth:
        for conversation in labelled.conversation_files():
            import_transcript(conversation, hearth.storage, hearth.memories)
        before = {}
        for mode, signals in MODES.items():
            before[mode] = evaluate(hearth, questions, signals)
            rows.append(_row(labelled.name, mode, before[mode]))
        rows.append(_row(labelled.name, "baseline: plain BM25 + cosine RRF",
                         rrf_baseline(hearth, questions)))
        baseline = before["hybrid"]["all"][0][1]
        model = summary_model()
        for days in dreams:
            with clock.shifted(timedelta(days=days)):
                if on_step is not None:
                    on_step(f"{labelled.name}: dream at +{days} days")
                DreamCycle(hearth.consolidation(), model).run(trigger="benchmark")
                after = evaluate(hearth, questions, MODES["hybrid"])
            verdict = "ok" if after["all"][0][1] >= baseline - 1e-9 else "DROP"
            rows.append(_row(labelled.name, f"hybrid after a dream at +{days} days", after,
                             f"{verdict}: before {baseline:.3f}; "))
    return rows


def bench_quality(realmem_personas: int | None = None, *,
                  on_step: Callable[[str], None] | None = None) -> list[dict[str, str]]:
    """The labelled sets, then RealMem (``benchmarks.realmem``: ``realmem_personas`` of its
    ten personas, all by default, 0 to skip; a line saying it was skipped when absent)."""
    from benchmarks.realmem import bench_realmem

    return [*(row for labelled in SETS if labelled.questions
              for row in bench_set(labelled, on_step=on_step)),
            *bench_realmem(realmem_personas, on_step=on_step)]
