"""Which of recall's signals earn their place: each one taken away or changed, on three sets.

Every variant is Hearth's recall with one thing different (a ``recall_*`` setting, the
sentence windows left out of vector search, BM25 with another length normalisation ``b``,
or text scores min-max normalised), asked on:

* the hand-labelled set ("first") and the hard set (``benchmarks.quality``), turn
  recall@10, asked twice: today (months after the conversations, as the quality benchmark
  asks) and at each conversation's end (``as_of`` the day after its last session, where
  recency and "now" questions matter);
* RealMem (``benchmarks.realmem``), session recall@5 / @10, each question at its own
  moment, on the tune half and on the held-out half.

Each set is imported once (``benchmarks.import_cache`` keeps the folders), so a variant
costs only its questions (~1 minute for all sets on a 2-core machine). Dream-dependent
signals (strength, tier, summary lifting) do nothing before a dream; graph additions never
enter a top k (``core.recall.search``). ``python -m benchmarks.ablation`` prints the table
(``--only`` some variants); ``docs/recall-tuning.md`` reports it and the choices it led to.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

from benchmarks import import_cache, realmem
from benchmarks.bm25_length import LengthNormalisedBm25
from benchmarks.quality import SETS, LabelledSet, recall_at
from core.app import Hearth
from core.embedding import Embedder
from core.home.private_files import restrict_new_files
from core.recall import RecallQuery, fusion
from core.recall import service as recall_service
from core.recall.service import RecallService
from core.storage.port import IndexedKind, IndexHit, SearchFilters
from core.transfer.transcript import import_transcript

RESULTS = Path(__file__).with_name("results") / "ablation.json"
K = 10


@dataclass(frozen=True)
class Variant:
    """Hearth's recall with one thing changed (nothing, for the first)."""

    name: str
    settings: Mapping[str, Any] = field(default_factory=dict)
    windows: bool = True
    """Whether vector search also matches the sentence and stretch windows."""
    bm25_b: float | None = None
    """BM25's length normalisation (None: FTS5's own ``bm25()``, b = 0.75)."""
    text_min_max: bool = False
    """Text scores min-max normalised over the candidates instead of divided by the best."""
    same_session: float = 1.0
    """Each result's score times this for every better result of its session (1: off)."""
    candidates_per_result: int | None = None
    """Candidates each signal fetches per result wanted (None: recall's own)."""


VARIANTS = (
    Variant("Hearth as it is"),
    Variant("before issue 28 (gate 0.55, no diversity)",
            {"recall_min_similarity": 0.55, "recall_diversity": 1.0}),
    Variant("no diversity", {"recall_diversity": 1.0}),
    Variant("diversity 0.5", {"recall_diversity": 0.5}),
    Variant("diversity 0.6", {"recall_diversity": 0.6}),
    Variant("diversity 0.7", {"recall_diversity": 0.7}),
    Variant("diversity 0.85", {"recall_diversity": 0.85}),
    Variant("no diversity; candidates of 3k", {"recall_diversity": 1.0},
            candidates_per_result=3 * recall_service.CANDIDATES_PER_RESULT),
    Variant("similarity gate 0.55", {"recall_min_similarity": 0.55}),
    Variant("similarity gate 0.45", {"recall_min_similarity": 0.45}),
    Variant("no recency boost", {"recall_recency_boost": 0.0}),
    Variant("recency 0.15 over 30 days", {"recall_recency_boost": 0.15,
                                          "recall_recency_days": 30}),
    Variant("no speaker boost", {"recall_speaker_boost": 0.0}),
    Variant("no date boost", {"recall_date_boost": 0.0}),
    Variant("no time-word boost", {"recall_time_word_boost": 0.0}),
    Variant("no neighbour smoothing", {"recall_neighbour_share": 0.0}),
    Variant("neighbour share 0.5", {"recall_neighbour_share": 0.5}),
    Variant("no sentence windows", windows=False),
    Variant("BM25 b=0.75 in Python (as FTS5)", bm25_b=0.75),
    Variant("BM25 b=0.5", bm25_b=0.5),
    Variant("BM25 b=0.3", bm25_b=0.3),
    Variant("text min-max", text_min_max=True),
    Variant("vector weight 0.6", {"recall_vector_weight": 0.6, "recall_text_weight": 0.4}),
    Variant("vector weight 0.8", {"recall_vector_weight": 0.8, "recall_text_weight": 0.2}),
    Variant("no relevance floor", {"recall_min_relevance": 0.0}),
    Variant("one turn per session first (factor 0.8)", {"recall_diversity": 1.0},
            same_session=0.8),
)


def diversified(results: Sequence[Any], factor: float) -> list[Any]:
    """``results`` re-ordered greedily: each one's score times ``factor`` for every result of
    its session already placed."""
    if factor >= 1.0:
        return list(results)
    left, order = list(results), []
    placed: defaultdict[Any, int] = defaultdict(int)
    while left:
        best = max(left, key=lambda r: r.score * factor ** placed[r.provenance.get(
            "session_id")])
        left.remove(best)
        placed[best.provenance.get("session_id")] += 1
        order.append(best)
    return order


@dataclass
class Folder:
    """One imported data folder, open, with the questions asked of it."""

    name: str
    hearth: Hearth
    database: Path
    ask: Callable[[RecallService, Folder], dict[str, list[float]]]
    """Runs every question; returns the per-question scores of each measure."""
    questions: int
    _bm25: LengthNormalisedBm25 | None = None

    @property
    def bm25(self) -> LengthNormalisedBm25:
        if self._bm25 is None:
            self._bm25 = LengthNormalisedBm25(self.database)
        return self._bm25


# --- the questions of each set -----------------------------------------------------------


def _ends(labelled: LabelledSet) -> dict[str, datetime]:
    """The moment after each conversation of a labelled set: a day after its last session."""
    ends = {}
    for path in labelled.conversation_files():
        data = json.loads(path.read_text(encoding="utf-8"))
        last = max(datetime.fromisoformat(s["started_at"]) for s in data["sessions"])
        ends[data["conversation_id"]] = last + timedelta(days=1)
    return ends


def own_set_asker(labelled: LabelledSet) -> Callable[[RecallService, Folder],
                                                     dict[str, list[float]]]:
    """Turn recall@10 of a labelled set, asked today and at each conversation's end, per
    question kind too."""
    questions, ends = labelled.load_questions(), _ends(labelled)

    def ask(recall: RecallService, folder: Folder) -> dict[str, list[float]]:
        measures: dict[str, list[float]] = defaultdict(list)
        for question in questions:
            scope = SearchFilters(namespaces=(f"import/{question['conversation_id']}",))
            for when, moment in (("today", None), ("end", ends[question["conversation_id"]])):
                results = recall.recall(RecallQuery(text=question["question"], k=K,
                                                    filters=scope, graph=0, as_of=moment))
                turns = [r.provenance.get("turn_id") for r in results[:K]]
                score = recall_at(turns, question["answer_turn_ids"], K)
                measures[when].append(score)
                measures[f"{when}:{question['kind']}"].append(score)
        return measures

    return ask


def realmem_asker(persona: realmem.Persona) -> Callable[[RecallService, Folder],
                                                       dict[str, list[float]]]:
    """Session hit@5 and @10 of one RealMem persona, each question at its own moment."""
    def ask(recall: RecallService, folder: Folder) -> dict[str, list[float]]:
        measures: dict[str, list[float]] = defaultdict(list)
        for question in persona.questions:
            results = recall.recall(RecallQuery(text=question.text, k=K, graph=0,
                                                as_of=question.asked_at))
            found = [(r.provenance.get("origin") or {}).get("session_id")
                     for r in results[:K]]
            for k, hit in zip(realmem.KS, realmem.hits(found, question.answers), strict=True):
                measures[f"@{k}"].append(float(hit))
                measures[f"@{k}:{question.category}"].append(float(hit))
        return measures

    return ask


@contextmanager
def opened_folders(embedder: Embedder, personas: int | None) -> Iterator[list[Folder]]:
    """Every set imported (or copied from the cache) into temporary folders, all open."""
    with tempfile.TemporaryDirectory(prefix="hearth-ablation-") as tmp, ExitStack() as stack:
        folders = []

        def add(name: str, payload: bytes, build: Callable[[Hearth], None],
                ask: Callable[[RecallService, Folder], dict[str, list[float]]],
                questions: int, cache: Path) -> None:
            home = Path(tmp) / name
            seconds = import_cache.prepared(name, payload, build, embedder, home, cache)
            print(f"{name}: {'from the cache' if seconds is None else f'{seconds:.0f} s'}",
                  file=sys.stderr, flush=True)
            hearth = stack.enter_context(Hearth.open(home, embedder=embedder))
            folders.append(Folder(name, hearth, home / "hearth.db", ask, questions))

        for labelled in SETS:
            files = labelled.conversation_files()

            def build(hearth: Hearth, files: Sequence[Path] = files) -> None:
                for path in files:
                    import_transcript(path, hearth.storage, hearth.memories)

            add(f"set-{labelled.name}", b"".join(path.read_bytes() for path in files), build,
                own_set_asker(labelled), len(labelled.load_questions()),
                import_cache.CACHE_ROOT / "sets")
        located = realmem.dataset_dir()
        chosen = realmem.chosen(realmem.persona_files(located), personas) if located else []
        for path in chosen:
            persona = realmem.load_persona(path)
            def build_persona(hearth: Hearth, p: realmem.Persona = persona) -> None:
                import_transcript(p.transcript, hearth.storage, hearth.memories)

            add(persona.name, json.dumps(persona.transcript, sort_keys=True).encode(),
                build_persona, realmem_asker(persona), len(persona.questions),
                realmem.CACHE_DIR)
        yield folders


class _Diversifying:
    """A recall whose head is re-ordered from a deeper list."""

    def __init__(self, recall: RecallService, reorder: Callable[[list[Any]], list[Any]]
                 ) -> None:
        self._recall, self._reorder = recall, reorder

    def recall(self, query: RecallQuery) -> list[Any]:
        deeper = self._recall.recall(replace(query, k=3 * query.k))
        return self._reorder(deeper)[:query.k]


# --- one variant -------------------------------------------------------------------------


def _min_max_text(original: Callable[..., dict[int, float]]) -> Callable[..., dict[int, float]]:
    def normalised(signal: str, hits: Sequence[IndexHit], vector_floor: float = 0.0,
                   *, alone: bool = False, **more: Any) -> dict[int, float]:
        if signal != "text" or len(hits) < 2:
            return original(signal, hits, vector_floor, alone=alone, **more)
        scores = [hit.score for hit in hits]
        low, spread = min(scores), max(scores) - min(scores)
        if spread <= 1e-9:
            return {hit.id: 1.0 for hit in hits}
        return {hit.id: (hit.score - low) / spread for hit in hits}
    return normalised


@contextmanager
def applied(variant: Variant, folder: Folder) -> Iterator[RecallService]:
    """A recall service over ``folder`` that behaves as ``variant`` says."""
    hearth = folder.hearth
    index: Any = hearth.storage.search  # a measurement reaches inside on purpose
    settings = hearth.settings.model_copy(update=dict(variant.settings))
    overrides: dict[str, Any] = {}
    if not variant.windows:
        nearest = index._nearest  # noqa: SLF001 - the measurement leaves windows out

        def whole_texts_only(*args: Any, windows: bool, **kwargs: Any) -> list[IndexHit]:
            return [] if windows else nearest(*args, windows=windows, **kwargs)
        overrides["_nearest"] = whole_texts_only
    if variant.bm25_b is not None:
        b, bm25, text_search = variant.bm25_b, folder.bm25, index.text_search

        def length_normalised(session: Any, kind: IndexedKind, text: str,
                              filters: SearchFilters, limit: int) -> list[IndexHit]:
            if kind is not IndexedKind.MEMORY:
                return text_search(session, kind, text, filters, limit)
            scored = bm25.scores(text, b)
            allowed = index.matching_ids(session, kind, scored, filters)
            best = sorted(allowed, key=lambda row_id: (-scored[row_id], row_id))[:limit]
            return [IndexHit(row_id, scored[row_id], rank)
                    for rank, row_id in enumerate(best, 1)]
        overrides["text_search"] = length_normalised
    with ExitStack() as stack:
        if variant.candidates_per_result is not None:
            stack.enter_context(mock.patch.object(
                recall_service, "CANDIDATES_PER_RESULT", variant.candidates_per_result))
        if variant.text_min_max:
            stack.enter_context(mock.patch.object(
                fusion, "normalised_scores", _min_max_text(fusion.normalised_scores)))
        index.__dict__.update(overrides)
        recall = RecallService(hearth.storage, hearth.embedder, settings)
        try:
            if variant.same_session < 1.0:
                yield _Diversifying(recall, lambda found: diversified(  # type: ignore[misc]
                    found, variant.same_session))
            else:
                yield recall
        finally:
            for name in overrides:
                del index.__dict__[name]


def measured(variant: Variant, folders: Sequence[Folder]) -> dict[str, dict[str, float]]:
    """Each folder's mean of each measure under ``variant``."""
    found: dict[str, dict[str, float]] = {}
    for folder in folders:
        with applied(variant, folder) as recall:
            found[folder.name] = {measure: sum(values) / len(values) for measure, values
                                  in folder.ask(recall, folder).items()}
    return found


# --- the table ---------------------------------------------------------------------------


def _pooled(found: Mapping[str, Mapping[str, float]], names: Sequence[str],
            weights: Mapping[str, int], measure: str) -> float | None:
    """A question-weighted mean of ``measure`` over the folders ``names``."""
    total = sum(weights[name] for name in names if measure in found.get(name, {}))
    if not total:
        return None
    return sum(found[name][measure] * weights[name] for name in names
               if measure in found.get(name, {})) / total


def columns(found: Mapping[str, Mapping[str, float]], personas: Sequence[str],
            sizes: Mapping[str, int]) -> dict[str, float | None]:
    """The table's columns for one variant."""
    every = realmem.halves([path.name.split("_dialogues")[0] for path in
                            realmem.persona_files(realmem.dataset_dir() or Path("."))])
    halves = {half: [name for name in every[half] if name in personas]
              for half in ("tune", "held-out")}
    row: dict[str, float | None] = {}
    for labelled in SETS:
        for when in ("today", "end"):
            row[f"{labelled.name} @10 {when}"] = found.get(f"set-{labelled.name}", {}).get(when)
    for half in ("tune", "held-out"):
        for measure in ("@5", "@10"):
            row[f"RealMem {half} {measure}"] = _pooled(found, halves[half], sizes, measure)
    return row


def main() -> None:
    restrict_new_files()  # an entry point: the folders it makes and caches are private
    parser = argparse.ArgumentParser(description="Recall's signals one at a time (see the "
                                                 "module).")
    parser.add_argument("--only", default="", help="comma-separated variant names "
                                                   "(the first is always run)")
    parser.add_argument("--personas", type=int, default=None,
                        help="RealMem personas (from both halves in turn); all by default")
    args = parser.parse_args()
    wanted = {name.strip() for name in args.only.split(",") if name.strip()}
    variants = [v for i, v in enumerate(VARIANTS) if not wanted or i == 0 or v.name in wanted]
    embedder = realmem.default_embedder()
    table: dict[str, dict[str, float | None]] = {}
    detail: dict[str, dict[str, dict[str, float]]] = {}
    with opened_folders(embedder, args.personas) as folders:
        personas = [f.name for f in folders if not f.name.startswith("set-")]
        sizes = {f.name: f.questions for f in folders}
        for variant in variants:
            detail[variant.name] = measured(variant, folders)
            table[variant.name] = columns(detail[variant.name], personas, sizes)
            print(f"{variant.name}: " + ", ".join(
                f"{key} {value:.3f}" for key, value in table[variant.name].items()
                if value is not None), file=sys.stderr, flush=True)
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps({"table": table, "detail": detail}, indent=1))
    print(markdown(table))


def markdown(table: Mapping[str, Mapping[str, float | None]]) -> str:
    """The table with each cell's difference from the first row."""
    names = list(table)
    heads = list(table[names[0]])
    lines = ["| variant | " + " | ".join(heads) + " |", "|---" * (len(heads) + 1) + "|"]
    base = table[names[0]]
    for name in names:
        cells = []
        for head in heads:
            value, reference = table[name][head], base[head]
            if value is None:
                cells.append("–")
            elif name == names[0] or reference is None:
                cells.append(f"{value:.3f}")
            else:
                cells.append(f"{value:.3f} ({value - reference:+.3f})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
