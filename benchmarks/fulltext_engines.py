"""Top-k full text at a million memories: FTS5 as today against tantivy and bm25s (issue 30).

``python -m benchmarks.fulltext_engines [--sizes 10000,100000,1000000] [--questions N]
[--tantivy-threads T] [--rebuild]`` indexes the generated memories
(``benchmarks.recall.memory_texts(size)``) with each engine, asks every engine the same
questions at each size, prints two markdown tables and writes
``benchmarks/results/fulltext_engines.json``.

**The same terms everywhere.** Every engine indexes the terms Hearth makes of each text
(``core.storage.search_terms.index_terms``: Porter stems, Latin accents folded, names whose
stem is a function word kept whole) and asks the question's ``query_terms`` (the list
FTS5's ``text_search`` searches: stop words dropped, at most 32, each term once), ORed, so
the engines differ in how they rank and how fast, not in what a word is. BM25 is k1 = 1.2,
b = 0.75 in every engine.

- ``fts5``: Hearth's own store (``SqliteStorage``: ``memories`` and its contentless
  ``memories_fts`` with the ``ascii`` tokenizer), indexed from the rows' terms in one
  statement; searched by the plain BM25 statement of ``_bm25_search`` on the FTS table
  alone (``-bm25()`` as a column, ties to the lower id). Its ranking is the reference.
- ``fts5 shipped``: the same store through ``SqliteSearchIndex.text_search`` (joined to the
  rows, valid ones only, frequent words bounded above 20,000 rows: ``docs/data-model.md``).
- ``tantivy`` (tantivy-py): one text field of the terms, indexed with frequencies, no
  positions (Hearth never asks phrases), split by the ``whitespace`` tokenizer alone, and a
  fast ``id``. The query is a ``BooleanQuery`` of ``TermQuery`` (``Occur.Should``, freqs)
  of each term: ``parse_query`` with the terms quoted builds the identical query (same
  repr) but parses user text as syntax. One searcher (tantivy's single-thread executor),
  ``search(count=False)``, ids read from the fast field. BM25 is Lucene's: IDF
  ``ln(1 + (N - n + 0.5) / (n + 0.5))`` and one-byte field norms; neither can be changed.
  **No top-k pruning from Python**: ``Searcher.search`` always puts ``TopDocs`` inside a
  ``MultiCollector``, whose segment loop scores every match; block-max WAND runs only for
  a bare ``TopDocs``. ``pruning_probe`` shows it (a frequent word ORed to a rare one costs
  the frequent word's whole posting list).
- ``bm25s``: numpy backend, ``method="robertson"`` (FTS5's IDF ``ln((N - n + 0.5) / (n +
  0.5))``, floored at 0 where FTS5 floors at 1e-6; its term part lacks the constant factor
  k1 + 1), the terms split at spaces, no stemmer or stop words of its own. Queries:
  ``retrieve`` on the terms' ids, ``n_threads=0``; it scores every match (a dense array
  of N scores) and ``argpartition``s it.

**Measured.** Latency: ``time.perf_counter`` around the search call alone (query built
before; tantivy's includes reading the ids of its hits from the fast field), p50 / p95 over
the generated questions after ``WARM_UP``, the engines taking turns on each question; also
words-to-ids p50 (query building included). Build: from the texts to a searchable index on
disk, in a child process per engine whose peak RSS is read there, with its RSS before the
build (imports and the texts); kept under ``CACHE`` with its figures (``<index>.made.json``
beside it) and reused. Size: the index files; FTS5's tables' pages (``dbstat``). Agreement
with ``fts5``: the share of its top k ids an engine also returns, and the same counting a
returned row whose FTS5 score ties FTS5's k-th (the generated corpus has many ties), over
the generated questions and the labelled sets' questions (``benchmarks/data``, as
``benchmarks.quality`` loads them) asked of the same generated memories.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.recall import memory_texts, query_texts
from benchmarks.stats import percentiles
from core.storage.search_terms import TERMS_FUNCTION, index_terms, query_terms

VERSION = "fulltext-2"
"""Part of the cached indexes' key: change it when a build changes."""
CACHE = Path(__file__).resolve().parent / ".cache" / "fulltext"
RESULTS = Path(__file__).resolve().parent / "results" / "fulltext_engines.json"
SIZES = (10_000, 100_000, 1_000_000)
QUESTIONS = 200
WARM_UP = 5
KS = (10, 50)
ENGINES = ("fts5", "tantivy", "bm25s")
"""The indexes built; ``fts5 shipped`` searches the ``fts5`` one."""
SEARCHERS = ("fts5", "fts5 shipped", "tantivy", "bm25s")
TANTIVY_HEAP = 256_000_000
"""The tantivy writer's memory budget (bytes, shared by its threads)."""
TANTIVY_THREADS = 1
K1, B = 1.2, 0.75
PLAIN_BM25 = ("SELECT rowid, -bm25(memories_fts) AS score FROM memories_fts "
              "WHERE memories_fts MATCH ? ORDER BY score DESC, rowid LIMIT ?")
TERM = r"\S+"
"""How bm25s splits the terms: at the spaces ``index_terms`` puts between them."""


# --- building ---------------------------------------------------------------------------


def build(engine: str, texts: Sequence[str], folder: Path, *, threads: int = TANTIVY_THREADS,
          template: Path | None = None) -> dict[str, Any]:
    """Index ``texts`` (ids 1..n in order) with ``engine`` into ``folder`` (made anew);
    returns the build's figures: seconds, bytes on disk, threads, a detail. ``template`` is
    a migrated empty Hearth database to copy instead of migrating one (tests)."""
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    builders: dict[str, Callable[[], dict[str, Any]]] = {
        "fts5": lambda: _build_fts5(texts, folder, template),
        "tantivy": lambda: _build_tantivy(texts, folder, threads),
        "bm25s": lambda: _build_bm25s(texts, folder),
    }
    return builders[engine]()


def _build_fts5(texts: Sequence[str], folder: Path, template: Path | None) -> dict[str, Any]:
    """Rows into ``memories`` with the insert trigger off, then their terms into FTS5 in
    one statement (timed): the index built from the texts as one bulk step, the store as
    Hearth's after."""
    from sqlalchemy import insert
    from sqlalchemy import text as sql

    from core.storage.orm import Memory
    from core.storage.sqlite.adapter import SqliteStorage

    database = folder / "hearth.db"
    if template is not None:
        shutil.copyfile(template, database)
    storage = SqliteStorage(database)
    try:
        with storage.write() as session:
            trigger = session.execute(sql(
                "SELECT sql FROM sqlite_master WHERE name = 'memories_fts_ai'")).scalar_one()
            session.execute(sql("DROP TRIGGER memories_fts_ai"))
        for start in range(0, len(texts), 10_000):
            with storage.write() as session:
                session.execute(insert(Memory), [{"content": line}
                                                 for line in texts[start:start + 10_000]])
        started = time.perf_counter()
        with storage.write() as session:
            session.execute(sql(f"INSERT INTO memories_fts(rowid, content) "
                                f"SELECT id, {TERMS_FUNCTION}(content) FROM memories"))
        seconds = time.perf_counter() - started
        with storage.write() as session:
            session.execute(sql(trigger))
        storage.checkpoint()
        with storage.read() as session:
            size = session.execute(sql("SELECT sum(pgsize) FROM dbstat "
                                       "WHERE name LIKE 'memories\\_fts%' ESCAPE '\\'"))
            total = int(size.scalar_one() or 0)
    finally:
        storage.close()
    return {"seconds": seconds, "bytes": total, "threads": 1,
            "detail": "FTS5 fed the rows' terms (rows inserted first, not timed)"}


def tantivy_analyzer() -> Any:
    """Terms as they come: split at the spaces, nothing else."""
    import tantivy

    return tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()


def _tantivy_schema() -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", tokenizer_name="hearth", index_option="freq")
    builder.add_integer_field("id", fast=True)
    return builder.build()


def _build_tantivy(texts: Sequence[str], folder: Path, threads: int) -> dict[str, Any]:
    import tantivy

    started = time.perf_counter()
    index = tantivy.Index(_tantivy_schema(), path=str(folder))
    index.register_tokenizer("hearth", tantivy_analyzer())
    writer = index.writer(heap_size=TANTIVY_HEAP, num_threads=threads)
    for row, line in enumerate(texts, start=1):
        document = tantivy.Document()
        document.add_text("text", index_terms(line))
        document.add_integer("id", row)
        writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    seconds = time.perf_counter() - started
    index.reload()
    segments = index.searcher().num_segments
    return {"seconds": seconds, "bytes": _folder_bytes(folder), "threads": threads,
            "detail": f"{segments} segment(s), writer heap {TANTIVY_HEAP // 1_000_000} MB"}


def _build_bm25s(texts: Sequence[str], folder: Path) -> dict[str, Any]:
    import bm25s

    started = time.perf_counter()
    tokens = bm25s.tokenize([index_terms(line) or "" for line in texts], lower=False,
                            token_pattern=TERM, stopwords=None, stemmer=None,
                            show_progress=False)
    retriever = bm25s.BM25(k1=K1, b=B, method="robertson")
    retriever.index(tokens, show_progress=False)
    retriever.save(str(folder), show_progress=False)
    seconds = time.perf_counter() - started
    return {"seconds": seconds, "bytes": _folder_bytes(folder), "threads": 1,
            "detail": f"{len(tokens.vocab):,} terms, robertson IDF"}


def _folder_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*")
               if path.is_file() and not path.name.startswith(".") and path.name != "made.json")


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _child_build(engine: str, size: int, folder: Path, threads: int) -> None:
    """The child process of ``cached_build``: texts, then the build; one JSON line."""
    texts = memory_texts(size)
    if engine == "bm25s":
        import bm25s  # noqa: F401  # imports counted before the build, as for the others
    elif engine == "tantivy":
        import tantivy  # noqa: F401
    else:
        import core.storage.sqlite.adapter  # noqa: F401
    before = _rss_mb()
    figures = build(engine, texts, folder, threads=threads)
    print(json.dumps({**figures, "peak_rss_mb": _rss_mb(), "rss_before_mb": before}))


def _label(size: int) -> str:
    return f"{size // 1_000_000}M" if size >= 1_000_000 else f"{size // 1000}k"


def _key(engine: str, size: int, threads: int) -> str:
    import bm25s
    import tantivy

    from core.storage.sqlite.engine import dbapi_module

    versions = {"fts5": dbapi_module().sqlite_version, "tantivy": tantivy.__version__,
                "bm25s": bm25s.__version__}
    digest = hashlib.sha256(f"{VERSION}|{engine}|{size}|{versions[engine]}|"
                            f"{threads if engine == 'tantivy' else 1}".encode())
    for line in memory_texts(1_000):  # the generator's own output stands for its version
        digest.update(line.encode() + b"\0")
    return digest.hexdigest()[:12]


def cached_build(engine: str, size: int, *, cache: Path = CACHE,
                 threads: int = TANTIVY_THREADS, rebuild: bool = False) -> tuple[Path, dict]:
    """The engine's index of ``memory_texts(size)`` under ``cache``, built in a child process
    unless a build with the same key is there; returns its folder and the figures measured
    when it was built (``made.json`` beside it). Older keys' folders are removed."""
    folder = cache / f"{engine}-{_label(size)}-{_key(engine, size, threads)}"
    made = folder.with_name(folder.name + ".made.json")
    if made.exists() and not rebuild:
        return folder, json.loads(made.read_text())
    for stale in cache.glob(f"{engine}-{_label(size)}-*"):
        if stale.is_dir():
            shutil.rmtree(stale)
        else:
            stale.unlink()
    cache.mkdir(parents=True, exist_ok=True)
    result = subprocess.run([sys.executable, "-m", "benchmarks.fulltext_engines", "--build",
                             engine, "--size", str(size), "--into", str(folder),
                             "--tantivy-threads", str(threads)],
                            capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"building {engine} at {size:,} failed:\n{result.stderr[-3000:]}")
    figures = dict(json.loads(result.stdout.strip().splitlines()[-1]))
    figures["built_at"] = datetime.now(timezone.utc).isoformat(timespec="seconds")
    made.write_text(json.dumps(figures, indent=2))
    return folder, figures


# --- searching --------------------------------------------------------------------------


class Fts5:
    """The plain BM25 statement on FTS5's table, through the store's own connection."""

    name = "fts5"

    def __init__(self, folder: Path) -> None:
        from core.storage.sqlite.adapter import SqliteStorage

        self.storage = SqliteStorage(folder / "hearth.db")
        self._raw = self.storage.engine.raw_connection()
        self._connection = self._raw.driver_connection

    def prepare(self, question: str) -> str:
        from core.storage.sqlite.search import fts_query

        return fts_query(question)

    def run(self, prepared: str, k: int) -> list[int]:
        if not prepared:
            return []
        return [row for row, _ in self._connection.execute(PLAIN_BM25, (prepared, k))]

    def scores(self, question: str, ids: Iterable[int]) -> dict[int, float]:
        """FTS5's BM25 of ``ids`` for the question (the rows it matches)."""
        listed = sorted(set(ids))
        if not listed:
            return {}
        marks = ", ".join("?" * len(listed))
        return dict(self._connection.execute(
            f"SELECT rowid, -bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ? "
            f"AND rowid IN ({marks})", (self.prepare(question), *listed)))

    def close(self) -> None:
        self._raw.close()
        self.storage.close()


class Fts5Shipped:
    """``text_search`` as recall calls it (default filters), in one read session."""

    name = "fts5 shipped"

    def __init__(self, fts5: Fts5) -> None:
        self._storage = fts5.storage
        self._reading = self._storage.read()
        self._session = self._reading.__enter__()

    def prepare(self, question: str) -> str:
        return question

    def run(self, prepared: str, k: int) -> list[int]:
        from core.storage.port import IndexedKind, SearchFilters

        hits = self._storage.search.text_search(self._session, IndexedKind.MEMORY, prepared,
                                                SearchFilters(), k)
        return [hit.id for hit in hits]

    def close(self) -> None:
        self._reading.__exit__(None, None, None)


class Tantivy:
    name = "tantivy"

    def __init__(self, folder: Path) -> None:
        import tantivy

        self._tantivy = tantivy
        self.index = tantivy.Index.open(str(folder))
        self.index.register_tokenizer("hearth", tantivy_analyzer())
        self._schema = self.index.schema
        self.searcher = self.index.searcher()

    def prepare(self, question: str) -> Any:
        query, occur = self._tantivy.Query, self._tantivy.Occur
        terms = query_terms(question)
        if not terms:
            return None
        return query.boolean_query([(occur.Should, query.term_query(
            self._schema, "text", term, index_option="freq")) for term in terms])

    def run(self, prepared: Any, k: int) -> list[int]:
        if prepared is None:
            return []
        hits = self.searcher.search(prepared, k, count=False).hits
        return list(self.searcher.fast_field_values("id", [address for _, address in hits]))

    def close(self) -> None:
        pass


class Bm25s:
    name = "bm25s"

    def __init__(self, folder: Path) -> None:
        import bm25s

        self.retriever = bm25s.BM25.load(str(folder), show_progress=False)
        self._rows = int(self.retriever.scores["num_docs"])

    def prepare(self, question: str) -> list[int]:
        vocabulary = self.retriever.vocab_dict
        return [int(vocabulary[term]) for term in query_terms(question) if term in vocabulary]

    def run(self, prepared: list[int], k: int) -> list[int]:
        if not prepared:
            return []
        found = self.retriever.retrieve([prepared], k=min(k, self._rows), show_progress=False,
                                        n_threads=0, backend_selection="numpy")
        return [int(row) + 1 for row, score in zip(found.documents[0], found.scores[0],
                                                   strict=True) if score > 0]

    def close(self) -> None:
        pass


def open_searchers(folders: dict[str, Path]) -> list[Any]:
    fts5 = Fts5(folders["fts5"])
    return [fts5, Fts5Shipped(fts5), Tantivy(folders["tantivy"]), Bm25s(folders["bm25s"])]


def _close(searchers: Sequence[Any]) -> None:
    for searcher in reversed(searchers):
        searcher.close()


# --- measuring --------------------------------------------------------------------------


def natural_questions() -> list[str]:
    """The labelled sets' question texts (``benchmarks.quality.SETS``), in file order."""
    from benchmarks.quality import SETS

    return [question["question"] for labelled in SETS for question in labelled.load_questions()]


def measure(searchers: Sequence[Any], generated: Sequence[str],
            natural: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Latency over ``generated`` (after ``WARM_UP``), agreement with the first searcher
    (``fts5``) over both question sets; one dict of figures per searcher name."""
    for question in generated[:WARM_UP]:
        for searcher in searchers:
            for k in KS:
                searcher.run(searcher.prepare(question), k)
    timings: dict[str, dict[str, list[float]]] = {
        searcher.name: {**{f"k{k}": [] for k in KS}, "words_to_ids": []}
        for searcher in searchers}
    found: dict[str, dict[int, list[list[int]]]] = {
        searcher.name: {k: [] for k in KS} for searcher in searchers}
    for question in generated:
        for k in KS:
            for searcher in searchers:
                started = time.perf_counter()
                prepared = searcher.prepare(question)
                built = time.perf_counter()
                ids = searcher.run(prepared, k)
                done = time.perf_counter()
                timings[searcher.name][f"k{k}"].append((done - built) * 1000)
                if k == max(KS):
                    timings[searcher.name]["words_to_ids"].append((done - started) * 1000)
                found[searcher.name][k].append(ids)
    reference = searchers[0]
    natural_found = {searcher.name: {k: [searcher.run(searcher.prepare(question), k)
                                         for question in natural] for k in KS}
                     for searcher in searchers}
    sets = {"generated": (generated, found), "natural": (natural, natural_found)}
    scored = {label: [reference.scores(question, {row for by_k in answers.values()
                                                  for ids in by_k.values() for row in ids[i]})
                      for i, question in enumerate(questions)]
              for label, (questions, answers) in sets.items()}
    figures: dict[str, dict[str, Any]] = {}
    for searcher in searchers:
        latency = {name: dict(zip(("p50_ms", "p95_ms"), percentiles(samples), strict=True))
                   for name, samples in timings[searcher.name].items()}
        latency["words_to_ids"] = {"p50_ms": latency["words_to_ids"]["p50_ms"]}
        agreement = {f"{label}@{k}": overlap(answers[reference.name][k],
                                             answers[searcher.name][k], scored[label], k)
                     for label, (_, answers) in sets.items() for k in KS}
        figures[searcher.name] = {"latency": latency, "agreement": agreement}
    return figures


def overlap(expected: Sequence[list[int]], got: Sequence[list[int]],
            scores: Sequence[dict[int, float]], k: int) -> dict[str, float | int]:
    """Mean over the questions FTS5 finds anything for: ``ids``, the share of FTS5's top k
    (``expected``) the engine also returns (``got``); ``ties``, the same counting any
    returned row whose FTS5 score (``scores``, by question) reaches FTS5's k-th (a tie
    FTS5 broke by id)."""
    exact, tied = [], []
    for theirs, ours, score in zip(expected, got, scores, strict=True):
        if not theirs:
            continue
        exact.append(len(set(theirs) & set(ours[:k])) / len(theirs))
        floor = score[theirs[-1]]
        floor -= 1e-9 * max(1.0, abs(floor))
        tied.append(min(1.0, sum(score.get(row, -np.inf) >= floor for row in set(ours[:k]))
                        / len(theirs)))
    if not exact:
        return {"ids": float("nan"), "ties": float("nan"), "questions": 0}
    return {"ids": float(np.mean(exact)), "ties": float(np.mean(tied)), "questions": len(exact)}


def pruning_probe(rows: int = 200_000, repeats: int = 30) -> dict[str, float]:
    """Whether tantivy-py prunes: ``rows`` tiny documents in memory, all with the word
    ``common`` (IDF near 0) and 1 in 20 with ``rare``; p50 of top 10 for ``rare`` alone and
    for ``common OR rare``. With block-max WAND the second costs about the first (no
    ``common``-only document can enter the top 10); scoring every match, it costs
    ``common``'s whole posting list in addition."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("text", index_option="freq")
    schema = builder.build()
    index = tantivy.Index(schema)
    writer = index.writer(heap_size=64_000_000, num_threads=1)
    for row in range(rows):
        document = tantivy.Document()
        document.add_text("text", "common filler" + (" rare" if row % 20 == 0 else ""))
        writer.add_document(document)
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()

    def term(word: str) -> Any:
        return tantivy.Query.term_query(schema, "text", word, index_option="freq")

    queries = {"rare": term("rare"), "common OR rare": tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, term("common")), (tantivy.Occur.Should, term("rare"))])}
    probe: dict[str, float] = {}
    for name, query in queries.items():
        samples = []
        for _ in range(repeats):
            started = time.perf_counter()
            searcher.search(query, 10, count=False)
            samples.append((time.perf_counter() - started) * 1000)
        probe[f"{name} p50_ms"] = float(np.median(samples))
    probe["ratio"] = probe["common OR rare p50_ms"] / probe["rare p50_ms"]
    probe["rows"] = rows
    return probe


def run(sizes: Sequence[int], question_count: int = QUESTIONS, *, cache: Path = CACHE,
        threads: int = TANTIVY_THREADS, rebuild: bool = False,
        progress: Callable[[str], None] = print) -> dict[str, Any]:
    """Every size: the three indexes (cached), then every searcher's figures."""
    generated = query_texts(question_count)
    natural = natural_questions()
    rows = []
    for size in sizes:
        folders, made = {}, {}
        for engine in ENGINES:
            progress(f"{_label(size)}: {engine} index …")
            folders[engine], made[engine] = cached_build(engine, size, cache=cache,
                                                         threads=threads, rebuild=rebuild)
        progress(f"{_label(size)}: searching …")
        searchers = open_searchers(folders)
        try:
            figures = measure(searchers, generated, natural)
        finally:
            _close(searchers)
        for name, measured in figures.items():
            rows.append({"engine": name, "size": size,
                         "build": made["fts5" if name == "fts5 shipped" else name],
                         **measured})
    return {"measured_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores",
            "load_average": os.getloadavg(), "questions": {
                "generated": len(generated), "natural": len(natural)},
            "ks": list(KS), "tantivy_threads": threads, "rows": rows,
            "tantivy_pruning_probe": pruning_probe()}


# --- the tables ---------------------------------------------------------------------------


def tables(results: dict[str, Any]) -> str:
    """Two markdown tables: speed and build; agreement with ``fts5``."""
    speed = ["| engine | size | k 10 p50 / p95 | k 50 p50 / p95 | k 50 words→ids p50 | "
             "build (threads) | on disk | build peak RSS (before) |",
             "|---|---|---|---|---|---|---|---|"]
    agree = ["| engine | size | generated @10 | generated @50 | natural @10 | natural @50 |",
             "|---|---|---|---|---|---|"]
    for row in results["rows"]:
        latency, build_figures = row["latency"], row["build"]
        shared = row["engine"] == "fts5 shipped"
        seconds = build_figures["seconds"]
        built = ("(the fts5 index)" if shared else
                 f"{seconds:.{1 if seconds >= 10 else 2}f} s ({build_figures['threads']})")
        disk = "" if shared else f"{build_figures['bytes'] / 1e6:,.1f} MB"
        peak = "" if shared or build_figures.get("peak_rss_mb") is None else (
            f"{build_figures['peak_rss_mb']:,.0f} MB ({build_figures['rss_before_mb']:,.0f})")
        speed.append(
            f"| {row['engine']} | {_label(row['size'])} | "
            f"{latency['k10']['p50_ms']:.2f} / {latency['k10']['p95_ms']:.2f} ms | "
            f"{latency['k50']['p50_ms']:.2f} / {latency['k50']['p95_ms']:.2f} ms | "
            f"{latency['words_to_ids']['p50_ms']:.2f} ms | {built} | {disk} | {peak} |")
        cells = [f"{row['agreement'][name]['ids']:.3f} ({row['agreement'][name]['ties']:.3f})"
                 for name in ("generated@10", "generated@50", "natural@10", "natural@50")]
        agree.append(f"| {row['engine']} | {_label(row['size'])} | " + " | ".join(cells) + " |")
    probe = results["tantivy_pruning_probe"]
    return "\n".join([
        *speed, "",
        "Agreement with fts5's top k: share of its ids returned (counting FTS5 score ties "
        "with its k-th).", "",
        *agree, "",
        f"tantivy pruning probe ({probe['rows']:,} rows): top 10 of `rare` "
        f"{probe['rare p50_ms']:.3f} ms, of `common OR rare` "
        f"{probe['common OR rare p50_ms']:.3f} ms (×{probe['ratio']:.1f}; about ×1 "
        "would mean block-max WAND skips `common`).",
        f"Load average {', '.join(f'{value:.1f}' for value in results['load_average'])}; "
        f"{results['questions']['generated']} generated and "
        f"{results['questions']['natural']} labelled questions."])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default=",".join(str(size) for size in SIZES),
                        help="comma-separated corpus sizes (default: %(default)s)")
    parser.add_argument("--questions", type=int, default=QUESTIONS,
                        help="generated questions timed (default: %(default)s)")
    parser.add_argument("--tantivy-threads", type=int, default=TANTIVY_THREADS,
                        help="threads of tantivy's index writer (default: %(default)s)")
    parser.add_argument("--rebuild", action="store_true", help="ignore the cached indexes")
    parser.add_argument("--build", choices=ENGINES, help=argparse.SUPPRESS)
    parser.add_argument("--size", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--into", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.build:
        _child_build(args.build, args.size, args.into, args.tantivy_threads)
        return
    from core.home.private_files import restrict_new_files

    restrict_new_files()  # an entry point: the caches it makes are private
    sizes = [int(size) for size in args.sizes.split(",") if size.strip()]
    results = run(sizes, args.questions, threads=args.tantivy_threads, rebuild=args.rebuild,
                  progress=lambda step: print(step, file=sys.stderr, flush=True))
    print(tables(results))
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
