"""Import speed (issue 30): how many messages a second a ChatGPT export becomes searchable,
and where the time goes.

A deterministic export of ``GENERATED`` conversations shaped like a heavy user's: 4 to 30
messages each, the user's short (1-3 sentences), the assistant's long (150-700 words in
paragraphs, some with a list or a code block; ``benchmarks.chat_text``), in the node
mapping ChatGPT's export has (``benchmarks.imports.chatgpt_conversation``). Conversation
``i`` depends only on the seed and ``i``, so ``--conversations N`` imports the first N of
the same 2,000. The import is ``import_chat_export`` into a fresh data folder, as
``hearth import chatgpt`` runs it; the rate printed is the measured one, never extrapolated.

The breakdown counts what is embedded per message (``core.embedding.turn_views``: three
views, each one inference of at most 512 tokens; ``core.embedding.chunking``: a sentence
window per sentence of a turn that fits one inference, else 160-token windows), the tokens
each inference runs over, and times each kind of input embedded on its own.

Run: ``python -m benchmarks.import_speed [--conversations N] [--seed S]``; in the table:
``python -m benchmarks --only import_speed`` (``SUITE_CONVERSATIONS`` of them)."""

from __future__ import annotations

import argparse
import cProfile
import json
import random
import resource
import tempfile
import time
import tracemalloc
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import text

from benchmarks.chat_text import TOPICS, assistant_message, user_message
from benchmarks.imports import chatgpt_conversation
from core.app import Hearth
from core.config import Settings
from core.embedding import CancelCheck, Embedder, OnnxEmbedder, ProgressCallback
from core.embedding.reembed import backfill_embeddings
from core.embedding.chunking import sentence_windows, text_windows, window_input
from core.embedding.turn_views import SpokenTurn, turn_views
from core.storage.search_terms import TERMS_FUNCTION
from core.transfer.chat_export import (
    USER_SPEAKER,
    ChatImportReport,
    check_export,
    import_chat_export,
)
from core.storage.port import IndexedKind
from core.transfer.chatgpt import CHATGPT, SPEAKER

GENERATED = 2_000
SEED = 30
SUITE_CONVERSATIONS = 20
TARGET_RATE = 30.0  # messages a second to searchable (issue 30)
ROLES = ("user", "assistant")
KINDS = ("dated view", "3-turn view", "5-turn view", "sentence windows", "160-token windows")
"""What is embedded for an imported turn, in the order ``embed_documents_with_chunks``
sends it: the three views (their mean is the turn's vector), then its further windows."""
STARTED = 1_700_000_000
DAY = 86_400


# --- the export ------------------------------------------------------------------------


def generated_conversation(index: int, seed: int = SEED) -> dict:
    """Conversation ``index`` of the generated export: the same for a seed, however many
    are made."""
    rng = random.Random(f"import-speed:{seed}:{index}")
    topic = rng.choice(TOPICS)
    count = rng.randint(2, 15) * 2
    texts = [user_message(rng, topic) if turn % 2 == 0 else assistant_message(rng, topic)
             for turn in range(count)]
    key = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    return chatgpt_conversation(key, f"{topic.name.capitalize()} help {index}",
                                STARTED + index * DAY // 3, texts, key)


def generated_export(conversations: int, seed: int = SEED) -> list[dict]:
    """The first ``conversations`` of the generated export."""
    return [generated_conversation(index, seed) for index in range(conversations)]


def messages_of(conversation: dict) -> list[tuple[str, str]]:
    """(role, text) of each message, in order (every generated message is kept)."""
    return [(node["message"]["author"]["role"], node["message"]["content"]["parts"][0])
            for node in conversation["mapping"].values() if node["message"] is not None]


# --- the embedder, counted ---------------------------------------------------------------


def default_embedder() -> OnnxEmbedder:
    """The embedder ``hearth import`` runs on (``Hearth.open``'s, from the settings)."""
    settings = Settings()
    return OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads,
                        batch_size=settings.embedding_batch_size)


class CountingEmbedder:
    """The real embedder, with the wall and CPU time spent in it and the inputs it got."""

    def __init__(self, inner: Embedder) -> None:
        self._inner = inner
        self.inputs = 0
        self.wall_s = 0.0
        self.cpu_s = 0.0

    @property
    def model_id(self) -> str:
        return self._inner.model_id

    @property
    def dimensions(self) -> int:
        return self._inner.dimensions

    @property
    def max_tokens(self) -> int:
        return self._inner.max_tokens

    def _timed(self, action: Any) -> Any:
        wall, cpu = time.perf_counter(), time.process_time()
        try:
            return action()
        finally:
            self.wall_s += time.perf_counter() - wall
            self.cpu_s += time.process_time() - cpu

    def token_offsets(self, text: str) -> list[tuple[int, int]]:
        return self._timed(lambda: self._inner.token_offsets(text))

    def embed_documents(self, texts: Sequence[str], *, progress: ProgressCallback | None = None,
                        cancel: CancelCheck | None = None) -> np.ndarray:
        self.inputs += len(texts)
        return self._timed(lambda: self._inner.embed_documents(texts, progress=progress,
                                                               cancel=cancel))

    def embed_query(self, text: str) -> np.ndarray:
        return self._inner.embed_query(text)


# --- what is embedded per message --------------------------------------------------------


@dataclass
class Planned:
    """The inputs the import embeds, by (role, kind), and the messages of each role."""

    inputs: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    messages: Counter[str] = field(default_factory=Counter)
    words: Counter[str] = field(default_factory=Counter)

    def total(self) -> int:
        return sum(len(texts) for texts in self.inputs.values())


def planned_inputs(export: Sequence[dict], embedder: Embedder) -> Planned:
    """What ``write_turns`` embeds for each message of ``export``, rebuilt with the same
    functions (``turn_views``; ``text_windows`` and ``window_input`` of the stored
    ``speaker: text``)."""
    planned = Planned({(role, kind): [] for role in ROLES for kind in KINDS})
    for conversation in export:
        started = datetime.fromtimestamp(conversation["create_time"], timezone.utc)
        messages = messages_of(conversation)
        spoken = [SpokenTurn(USER_SPEAKER if role == "user" else SPEAKER, body, started)
                  for role, body in messages]
        for index, (role, body) in enumerate(messages):
            planned.messages[role] += 1
            planned.words[role] += len(body.split())
            for kind, view in zip(KINDS, turn_views(spoken, index), strict=False):
                planned.inputs[role, kind].append(view)
            content = f"{spoken[index].speaker}: {body}"
            further = text_windows(embedder, content, sentences=True)[1:]
            kind = ("sentence windows" if further == sentence_windows(content)
                    else "160-token windows")
            planned.inputs[role, kind].extend(window_input(content, window)
                                              for window in further)
    return planned


def inference_tokens(embedder: Embedder, texts: Sequence[str]) -> tuple[int, int]:
    """Tokens the model runs over for ``texts`` (special tokens included, at most 512 a
    text), and the tokens cut off the end of the texts longer than one inference."""
    run = cut = 0
    for item in texts:
        tokens = len(embedder.token_offsets(item))
        run += min(tokens, embedder.max_tokens) + 2
        cut += max(0, tokens - embedder.max_tokens)
    return run, cut


# --- the run -----------------------------------------------------------------------------


@dataclass
class ImportRun:
    conversations: int
    messages: int
    export_mb: float
    report: ChatImportReport
    wall_s: float
    cpu_s: float
    embed_wall_s: float
    embed_cpu_s: float
    embedded_inputs: int
    rss_before_mb: float
    rss_peak_mb: float
    traced_peak_mb: float | None
    rows: dict[str, int]
    check_s: float = 0.0
    fts_s: float = 0.0
    later_s: float = 0.0
    later_inputs: int = 0


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def _rows(hearth: Hearth) -> dict[str, int]:
    counts = {"sessions": "SELECT count(*) FROM chat_sessions",
              "interactions": "SELECT count(*) FROM interactions",
              "memories": "SELECT count(*) FROM memories",
              "memory vectors": "SELECT count(*) FROM memories_vec",
              "memory windows": "SELECT count(*) FROM memories_vec_chunks",
              "interactions without a vector":
                  "SELECT count(*) FROM interactions WHERE embedding_model IS NULL"}
    with hearth.storage.read() as session:
        return {name: int(session.execute(text(query)).scalar_one())
                for name, query in counts.items()}


def _fts_rebuild_s(hearth: Hearth) -> float:
    """Rebuilding the full-text indexes of what the import wrote: about what their insert
    triggers did during it, measured apart."""
    tables = {"memories": ("content",), "interactions": ("user_message", "agent_response")}
    started = time.perf_counter()
    with hearth.storage.write() as session:
        for table, columns in tables.items():
            terms = ", ".join(f"{TERMS_FUNCTION}({column})" for column in columns)
            session.execute(text(f"INSERT INTO {table}_fts({table}_fts) VALUES ('delete-all')"))
            session.execute(text(f"INSERT INTO {table}_fts(rowid, {', '.join(columns)}) "
                                 f"SELECT id, {terms} FROM {table}"))
    return time.perf_counter() - started


def run_import(folder: Path, export: Sequence[dict], *, embedder: Embedder | None = None,
               trace_memory: bool = True, profile: Path | None = None) -> ImportRun:
    """Write ``export`` to a file in ``folder`` and import it into a new data folder there,
    timed; then time its checking pass and its full-text indexing apart."""
    path = folder / "conversations.json"
    path.write_text(json.dumps(export), encoding="utf-8")
    messages = sum(len(messages_of(conversation)) for conversation in export)
    counting = CountingEmbedder(embedder or default_embedder())
    with Hearth.open(folder / "home", embedder=counting) as hearth:
        counting.embed_documents(["warm up: load the model"])
        counting.inputs, counting.wall_s, counting.cpu_s = 0, 0.0, 0.0
        rss_before = _rss_mb()
        profiler = cProfile.Profile() if profile is not None else None
        if trace_memory:
            tracemalloc.start()
        wall, cpu = time.perf_counter(), time.process_time()
        if profiler is not None:
            profiler.enable()
        report = import_chat_export(path, CHATGPT, hearth.storage, hearth.memories)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(str(profile))
        wall_s, cpu_s = time.perf_counter() - wall, time.process_time() - cpu
        traced = None
        if trace_memory:
            traced = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
        run = ImportRun(len(export), messages, path.stat().st_size / 1e6, report, wall_s, cpu_s,
                        counting.wall_s, counting.cpu_s, counting.inputs, rss_before, _rss_mb(),
                        traced, _rows(hearth))
        started = time.perf_counter()
        check_export(path, CHATGPT)
        run.check_s = time.perf_counter() - started
        run.fts_s = _fts_rebuild_s(hearth)
        before = counting.inputs
        started = time.perf_counter()
        backfill_embeddings(hearth.storage, counting, kinds=[IndexedKind.INTERACTION])
        run.later_s = time.perf_counter() - started
        run.later_inputs = counting.inputs - before
    return run


@dataclass(frozen=True)
class KindCost:
    role: str
    kind: str
    inputs: int
    tokens: int
    cut_tokens: int
    wall_s: float
    cpu_s: float


def kind_costs(planned: Planned, embedder: Embedder) -> list[KindCost]:
    """Each (role, kind) of input embedded on its own, timed (wall and process CPU)."""
    costs = []
    for (role, kind), texts in planned.inputs.items():
        tokens, cut = inference_tokens(embedder, texts)
        wall, cpu = time.perf_counter(), time.process_time()
        if texts:
            embedder.embed_documents(texts)
        costs.append(KindCost(role, kind, len(texts), tokens, cut, time.perf_counter() - wall,
                              time.process_time() - cpu))
    return costs


# --- the table ---------------------------------------------------------------------------


def _row(benchmark: str, value: str, target: str = "") -> dict[str, str]:
    return {"benchmark": benchmark, "value": value, "target": target}


def run_rows(run: ImportRun, seed: int, generated: int) -> list[dict[str, str]]:
    report, rows = run.report, run.rows
    rate = report.turns / run.wall_s
    rest = run.wall_s - run.embed_wall_s - 2 * run.check_s - run.fts_s
    traced = "" if run.traced_peak_mb is None else (
        f"; tracemalloc peak {run.traced_peak_mb:.0f} MB")
    return [
        _row("generated ChatGPT export",
             f"{run.conversations:,} conversations (of the {generated:,} generated, seed "
             f"{seed}): {run.messages:,} messages, {run.export_mb:.1f} MB"),
        _row("messages kept by the importer",
             f"{report.turns:,} of {run.messages:,} ({report.left_out} left out); "
             f"{report.memories_created:,} memories created"),
        _row("import to searchable, embedding included",
             f"{run.wall_s:.1f} s wall, {run.cpu_s:.1f} s CPU (×{run.cpu_s / run.wall_s:.2f}: "
             f"onnxruntime's worker threads count in process CPU) = "
             f"**{rate:.2f} messages/s**, {1000 * run.cpu_s / report.turns:.0f} ms CPU a "
             "message", f"≥ {TARGET_RATE:.0f} messages/s"),
        _row("peak memory",
             f"RSS peak {run.rss_peak_mb:.0f} MB ({run.rss_before_mb:.0f} MB before the "
             f"import, model loaded){traced}"),
        _row("rows made",
             ", ".join(f"{name} {count:,}" for name, count in rows.items())),
        _row("where the wall time went",
             f"embedder {run.embed_wall_s:.1f} s ({100 * run.embed_wall_s / run.wall_s:.1f}%, "
             f"{run.embedded_inputs:,} inferences = "
             f"{run.embedded_inputs / max(report.turns, 1):.1f} a message); reading and "
             f"checking ≈ 2 × {1000 * run.check_s:.0f} ms ({200 * run.check_s / run.wall_s:.1f}%); "
             f"full text ≈ {1000 * run.fts_s:.0f} ms ({100 * run.fts_s / run.wall_s:.1f}%, "
             f"rebuilt apart); the rest {rest:.1f} s ({100 * rest / run.wall_s:.1f}%: rows, "
             "vectors and windows written, lookups)"),
        _row("left for later: the interactions' vectors",
             f"{rows['interactions without a vector']:,} interactions have none; the next "
             f"backfill (after a chat turn, or hearth reembed) embeds them: "
             f"{run.later_inputs:,} inferences, {run.later_s:.1f} s "
             f"({100 * run.later_s / run.wall_s:.0f}% of the import again)"),
    ]


def kind_rows(planned: Planned, costs: Sequence[KindCost]) -> list[dict[str, str]]:
    total_wall = sum(cost.wall_s for cost in costs) or 1.0
    rows = []
    for role in ROLES:
        count = max(planned.messages[role], 1)
        rows.append(_row(f"{role} messages",
                         f"{planned.messages[role]:,}, mean "
                         f"{planned.words[role] / count:.0f} words"))
        for cost in (cost for cost in costs if cost.role == role):
            cut = (f", {cost.cut_tokens / count:.0f} cut off past 512"
                   if cost.cut_tokens else "")
            rows.append(_row(f"  {role}: {cost.kind}",
                             f"{cost.inputs / count:.1f} vectors and {cost.tokens / count:,.0f} "
                             f"tokens a message{cut}; {cost.wall_s:.1f} s = "
                             f"{100 * cost.wall_s / total_wall:.1f}% of the embedding"))
    every = sum(cost.inputs for cost in costs)
    tokens = sum(cost.tokens for cost in costs)
    messages = max(sum(planned.messages.values()), 1)
    rows.append(_row("embedded per message, all kinds",
                     f"{every / messages:.1f} vectors, {tokens / messages:,.0f} tokens; "
                     f"{total_wall:.1f} s embedded kind by kind = "
                     f"{messages / total_wall:.2f} messages/s, "
                     f"{tokens / total_wall:,.0f} tokens/s"))
    return rows


def bench_import_speed(conversations: int = SUITE_CONVERSATIONS, seed: int = SEED, *,
                       breakdown: bool = True, trace_memory: bool = True,
                       profile: Path | None = None) -> list[dict[str, str]]:
    generated = max(GENERATED, conversations)
    export = generated_export(conversations, seed)
    embedder = default_embedder()  # as ``hearth import`` makes it (the settings' threads)
    with tempfile.TemporaryDirectory() as folder:
        run = run_import(Path(folder), export, embedder=embedder, trace_memory=trace_memory,
                         profile=profile)
    rows = run_rows(run, seed, generated)
    if breakdown:
        planned = planned_inputs(export, embedder)
        if planned.total() != run.embedded_inputs:
            raise AssertionError(f"planned {planned.total()} inputs, the import embedded "
                                 f"{run.embedded_inputs}")
        rows += kind_rows(planned, kind_costs(planned, embedder))
    return rows


def main() -> None:
    from core.home.private_files import restrict_new_files

    restrict_new_files()  # an entry point: the data folder it makes is private
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--conversations", type=int, default=GENERATED,
                        help=f"import the first N of the generated export (all {GENERATED:,} "
                             "by default: hours at today's speed)")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--no-breakdown", action="store_true",
                        help="skip embedding each kind of input again on its own")
    parser.add_argument("--no-tracemalloc", action="store_true",
                        help="do not trace Python's allocations during the import")
    parser.add_argument("--profile", type=Path, default=None, metavar="FILE",
                        help="write cProfile stats of the import to FILE")
    args = parser.parse_args()
    for row in bench_import_speed(args.conversations, args.seed,
                                  breakdown=not args.no_breakdown,
                                  trace_memory=not args.no_tracemalloc, profile=args.profile):
        print(f"{row['benchmark']}: {row['value']}"
              + (f"  (target {row['target']})" if row["target"] else ""))


if __name__ == "__main__":
    main()
