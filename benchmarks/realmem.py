"""RealMem in the quality benchmark: session recall on conversations Hearth was not tuned on.

RealMem (Apache-2.0; ``README.md`` beside the data) is ten personas' long conversations
with an assistant, with 1,415 questions asked inside later sessions, each labelled with
the earlier sessions that answer it. It is not copied into the repository (25 MB): it is
read from ``$HEARTH_REALMEM_DIR``, else from ``../shared/datasets/realmem`` beside the
repository, and the table says it was skipped when neither holds it.

For each persona, in a fresh data folder:

* its sessions are imported as one transcript, through the code path of ``hearth import
  transcript`` (``core.transfer.transcript``), in file order, which is the order the labels
  respect (every answering session comes before its question's session). A session starts
  at 00:00 UTC of its date, or one hour after the session before it when that is later:
  a second session of a day, and the sessions some personas date before the one before
  them (Liam O'Connor, Pak Budi and Sarah Miller), keep their order. Turns follow one
  second apart, as the importer times untimed turns;
* each question is asked at its own moment, one second before its session starts
  (``RecallQuery.as_of``, ``core.recall.as_of``): only earlier sessions are visible, and
  recency and the question's dates count from then. An answering session that is the
  question's own (3 labels) cannot be found that way and is left out of its labels; a
  question left with none is left out and counted;
* a question is a hit at k when any of the first k results (turns) belongs to an
  answering session (session recall@k, per question category), for Hearth's hybrid recall
  and for plain BM25 and plain RRF over the same index (``benchmarks.baselines``), asked
  with the same moment.

Importing is the slow part (every turn is embedded as several views and sentences: ~3
turns a second on a busy 2-core machine, over an hour for all ten personas), and it
depends only on the data and on the code that stores it, not on recall's weights. So each
imported persona is kept under ``benchmarks/.cache/realmem/`` (git-ignored), keyed by a
hash of its transcript, the embedding model and the sources of ``core/embedding``,
``core/transfer``, ``core/knowledge`` and ``core/storage``; a run copies it into a
temporary folder and only asks the questions (a few minutes for all ten). A change to that
code imports again, and the older copy of that persona is removed.

The personas are split into two fixed halves, alphabetically: the first five tune, the
last five are held out. Weights are to be chosen on the first half and reported on the
second (issue 28); the table gives both and all.

FTS5 computes BM25's term statistics over the whole table, later sessions included: the
moment hides later rows, not their share of a word's frequency. That is the same for every
method here.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from benchmarks import import_cache
from benchmarks.baselines import origins, plain_bm25, plain_rrf
from core.app import Hearth
from core.config import Settings
from core.embedding import Embedder, OnnxEmbedder
from core.home.private_files import restrict_new_files
from core.recall import RecallQuery
from core.recall.as_of import seen_until
from core.storage.port import SearchFilters
from core.transfer.transcript import import_transcript

DIR_VARIABLE = "HEARTH_REALMEM_DIR"
DEFAULT_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "datasets" / "realmem"
PATTERN = "*_dialogues_*.json"
KS = (5, 10)
SESSION_GAP = timedelta(hours=1)
"""The least time between two sessions' starts (a day's second session, a date that goes
back)."""
ASKED_BEFORE = timedelta(seconds=1)
"""A question is asked this long before its session starts."""
TUNE_HALF = 5
"""The first this many personas (alphabetically) are the half weights may be chosen on."""
CACHE_DIR = import_cache.CACHE_ROOT / "realmem"
README_BM25 = "0.689 / 0.792"
"""The dataset README's plain BM25 over earlier sessions (sessions as documents)."""


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    category: str
    asked_at: datetime
    answers: frozenset[str]
    """The session uuids that answer it, all earlier than its own session."""


@dataclass(frozen=True)
class Persona:
    name: str
    transcript: dict[str, Any]
    """Hearth's transcript import format (``docs/transcript-format.md``)."""
    questions: tuple[Question, ...]
    left_out: int
    """Questions whose only answering sessions are their own."""

    @property
    def turns(self) -> int:
        return sum(len(session["turns"]) for session in self.transcript["sessions"])


def dataset_dir() -> Path | None:
    """Where RealMem is (``$HEARTH_REALMEM_DIR``, else beside the repository), or None."""
    folder = Path(os.environ.get(DIR_VARIABLE) or DEFAULT_DIR)
    return folder if any(folder.glob(PATTERN)) else None


def persona_files(folder: Path) -> list[Path]:
    """The personas' files, alphabetically (the order the halves are cut in)."""
    return sorted(folder.glob(PATTERN))


def load_persona(path: Path) -> Persona:
    """One persona's sessions as a transcript, and its questions with their moments."""
    data = json.loads(path.read_text(encoding="utf-8"))
    name = str((data.get("_metadata") or {}).get("person_name") or path.stem.split("_dialog")[0])
    sessions: list[dict[str, Any]] = []
    questions: list[Question] = []
    seen: set[str] = set()
    left_out = 0
    start: datetime | None = None
    for dialogue in data["dialogues"]:
        uuid = dialogue["session_uuid"]
        day = datetime.strptime(dialogue["current_time"][:10], "%Y-%m-%d").replace(
            tzinfo=timezone.utc)
        start = day if start is None else max(day, start + SESSION_GAP)
        turns = dialogue["dialogue_turns"]
        for position, turn in enumerate(turns):
            if not turn.get("is_query"):
                continue
            reply = turns[position + 1] if position + 1 < len(turns) else {}
            answers = frozenset(reply.get("memory_session_uuids") or ()) & seen
            if not answers:
                left_out += 1
                continue
            questions.append(Question(str(turn.get("query_id") or f"{uuid}-{position}"),
                                      turn["content"].strip(),
                                      str(turn.get("category_name") or "unlabelled"),
                                      start - ASKED_BEFORE, answers))
        sessions.append({"session_id": uuid, "started_at": start.isoformat(), "turns": [
            {"turn_id": f"{uuid}-{position}", "speaker": turn["speaker"],
             "text": turn["content"]}
            for position, turn in enumerate(turns) if turn["content"].strip()]})
        seen.add(uuid)
    transcript = {"conversation_id": f"realmem-{name.lower()}"[:40],
                  "participants": ["User", "Assistant"], "sessions": sessions}
    return Persona(name, transcript, tuple(questions), left_out)


# --- asking and scoring ------------------------------------------------------------------

Ranker = Callable[[Hearth, Question, int], list[str | None]]
"""A method: (folder, question, k) -> the session uuid of each result, best first."""


def _sessions_of(hearth: Hearth, ids: Sequence[int]) -> list[str | None]:
    found = origins(hearth, ids)
    return [found.get(row_id, {}).get("session_id") for row_id in ids]


def _before(question: Question) -> SearchFilters:
    """What a plain baseline may see: rows created up to the question's moment."""
    return SearchFilters(until=seen_until(question.asked_at))


def hearth_hybrid(hearth: Hearth, question: Question, k: int) -> list[str | None]:
    results = hearth.recall.recall(RecallQuery(text=question.text, k=k, graph=0,
                                               as_of=question.asked_at))[:k]
    return [(r.provenance.get("origin") or {}).get("session_id") for r in results]


def bm25_only(hearth: Hearth, question: Question, k: int) -> list[str | None]:
    return _sessions_of(hearth, plain_bm25(hearth, question.text, _before(question), k))


def rrf_only(hearth: Hearth, question: Question, k: int) -> list[str | None]:
    return _sessions_of(hearth, plain_rrf(hearth, question.text, _before(question), k))


METHODS: dict[str, Ranker] = {"Hearth hybrid": hearth_hybrid, "plain BM25": bm25_only,
                              "plain RRF (BM25 + cosine)": rrf_only}


def hits(found: Sequence[str | None], answers: Iterable[str]) -> tuple[int, ...]:
    """1 at each k of ``KS`` when one of the first k results is in an answering session."""
    wanted = set(answers)
    return tuple(int(bool(wanted & set(found[:k]))) for k in KS)


@dataclass
class Tally:
    """Hits per method, category and persona: ``rows[method][category][persona]`` is a
    list of ``hits`` tuples."""

    rows: dict[str, dict[str, dict[str, list[tuple[int, ...]]]]]

    def scores(self, method: str, personas: Iterable[str]
               ) -> dict[str, tuple[tuple[float, ...], int]]:
        """Session recall at each k and the question count, per category and "all"."""
        wanted = set(personas)
        per_category: dict[str, list[tuple[int, ...]]] = defaultdict(list)
        for category, by_persona in self.rows.get(method, {}).items():
            for persona, found in by_persona.items():
                if persona in wanted:
                    per_category[category].extend(found)
                    per_category["all"].extend(found)
        return {category: (tuple(sum(h[i] for h in found) / len(found)
                                 for i in range(len(KS))), len(found))
                for category, found in per_category.items() if found}


def ask(hearth: Hearth, persona: Persona, tally: Tally,
        methods: dict[str, Ranker] = METHODS) -> None:
    """Every question of ``persona`` by every method, into ``tally``."""
    for question in persona.questions:
        for method, ranker in methods.items():
            found = ranker(hearth, question, max(KS))
            tally.rows.setdefault(method, {}).setdefault(question.category, {}).setdefault(
                persona.name, []).append(hits(found, question.answers))


# --- the benchmark -----------------------------------------------------------------------


def halves(names: Sequence[str]) -> dict[str, list[str]]:
    """all, tune (the first ``TUNE_HALF`` alphabetically) and held-out (the rest)."""
    ordered = sorted(names)
    return {"all": ordered, "tune": ordered[:TUNE_HALF], "held-out": ordered[TUNE_HALF:]}


def chosen(files: Sequence[Path], count: int | None) -> list[Path]:
    """``count`` personas (all when None), taken from both halves in turn so that a
    shorter run still measures tune and held-out."""
    if count is None or count >= len(files):
        return list(files)
    tune, held = list(files[:TUNE_HALF]), list(files[TUNE_HALF:])
    return tune[:math.ceil(count / 2)] + held[:count // 2]


@dataclass
class Timing:
    importing: float = 0.0
    """Seconds spent importing the personas that were not in the cache."""
    imported: int = 0
    cached: int = 0
    asking: float = 0.0
    turns: int = 0
    """Turns of the personas imported now (not of those copied from the cache)."""
    questions: int = 0


def prepared(persona: Persona, embedder: Embedder, home: Path,
             cache: Path | None) -> float | None:
    """``home`` made a data folder holding ``persona`` imported (``benchmarks.import_cache``):
    the seconds the import took, None when it came from the cache."""
    def build(hearth: Hearth) -> None:
        import_transcript(persona.transcript, hearth.storage, hearth.memories)

    payload = json.dumps(persona.transcript, sort_keys=True).encode()
    return import_cache.prepared(persona.name, payload, build, embedder, home, cache)


def default_embedder() -> Embedder:
    settings = Settings()
    return OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads,
                        batch_size=settings.embedding_batch_size)


def bench_personas(files: Sequence[Path], *, methods: dict[str, Ranker] = METHODS,
                   on_step: Callable[[str], None] | None = None,
                   embedder: Embedder | None = None,
                   cache: Path | None = CACHE_DIR) -> tuple[Tally, list[Persona], Timing]:
    """Import each persona into a fresh folder (or copy it from ``cache``) and ask its
    questions by every method."""
    embedder = embedder or default_embedder()
    tally, personas, timing = Tally({}), [], Timing()
    for path in files:
        persona = load_persona(path)
        personas.append(persona)
        with tempfile.TemporaryDirectory(prefix="hearth-realmem-") as tmp:
            home = Path(tmp)  # private from the start, as Hearth keeps its folder
            seconds = prepared(persona, embedder, home, cache)
            started = time.perf_counter()
            with Hearth.open(home, embedder=embedder) as hearth:
                ask(hearth, persona, tally, methods)
            asked = time.perf_counter() - started
        if seconds is None:
            timing.cached += 1
            how = "copied from the cache"
        else:
            timing.imported += 1
            timing.importing += seconds
            timing.turns += persona.turns
            how = f"imported in {seconds:.0f} s"
        timing.asking += asked
        timing.questions += len(persona.questions)
        if on_step is not None:
            on_step(f"RealMem {persona.name}: {persona.turns:,} turns {how}, "
                    f"{len(persona.questions)} questions asked in {asked:.0f} s")
    return tally, personas, timing


def rows(tally: Tally, personas: Sequence[Persona], timing: Timing) -> list[dict[str, str]]:
    """The table's rows: per half and method, session R@5 / R@10 and each category's."""
    table = []
    left_out = sum(persona.left_out for persona in personas)
    for half, names in halves([persona.name for persona in personas]).items():
        if not names:
            continue
        for method in tally.rows:
            scores = tally.scores(method, names)
            if not scores:
                continue
            (overall, count) = scores["all"]
            by_category = ", ".join(
                f"{category} {values[0]:.3f} / {values[1]:.3f} ({n})"
                for category, (values, n) in sorted(scores.items()) if category != "all")
            reference = (f"README's BM25 over sessions, all: {README_BM25}; "
                         if half == "all" and method == "plain BM25" else "")
            table.append({
                "benchmark": f"RealMem {half} ({len(names)} personas, {count} questions): "
                             f"session recall@5 / @10, {method}",
                "value": " / ".join(f"{value:.3f}" for value in overall),
                "target": f"{reference}by category @5 / @10: {by_category}"})
    imports = (f"{timing.imported} imported in {timing.importing:.0f} s ({timing.turns:,} "
               f"turns, {timing.turns / max(timing.importing, 1e-9):.1f} turns/s)"
               if timing.imported else "none imported")
    table.append({
        "benchmark": f"RealMem: {len(personas)} personas imported and asked",
        "value": f"{timing.importing + timing.asking:.0f} s",
        "target": f"personas: {imports}, {timing.cached} from the cache; questions "
                  f"{timing.asking:.0f} s ({timing.questions:,} questions x "
                  f"{len(tally.rows)} methods); {left_out} questions left out (answered "
                  f"only by their own session)"})
    return table


def skipped(reason: str) -> list[dict[str, str]]:
    return [{"benchmark": "RealMem: session recall", "value": "skipped", "target": reason}]


def bench_realmem(personas: int | None = None, *,
                  on_step: Callable[[str], None] | None = None) -> list[dict[str, str]]:
    """The RealMem rows of the quality table (``personas``: how many; all by default, 0
    to skip)."""
    if personas == 0:
        return skipped("not asked for (--realmem-personas 0)")
    folder = dataset_dir()
    if folder is None:
        where = os.environ.get(DIR_VARIABLE) or DEFAULT_DIR
        return skipped(f"no RealMem at {where} (set {DIR_VARIABLE} to its folder)")
    tally, loaded, timing = bench_personas(chosen(persona_files(folder), personas),
                                           on_step=on_step)
    return rows(tally, loaded, timing)


def main() -> None:
    import argparse

    restrict_new_files()  # an entry point: the folders it makes and caches are private
    parser = argparse.ArgumentParser(description="RealMem session recall (see the module).")
    parser.add_argument("--personas", type=int, default=None,
                        help="how many personas (from both halves in turn); all by default")
    args = parser.parse_args()
    for row in bench_realmem(args.personas, on_step=print):
        print(json.dumps(row, ensure_ascii=False))


if __name__ == "__main__":
    main()
