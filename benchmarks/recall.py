"""Recall benchmark: latency, quantisation quality, insert throughput and size at scale.

``bench_recall()`` builds a throw-away database of N synthetic-but-realistic memories
(sentences about people, places, devices, plans and errands, filled from templates by a
seeded RNG, with created_at spread over two years and varied strength), then measures:

* recall latency p50/p95 over 200 generated queries, end to end and split into
  embed / text / vector / fusion (the keys of ``RecallService.recall_with_timings``);
* recall@10 of the quantised vector search against an exact float32 scan;
* insert throughput, both given vectors (storage only) and end to end (with embedding);
* database size per 10k memories.

Embedding 100k texts takes ~3 minutes, so the document vectors are cached in
``benchmarks/.cache/`` under a hash of the generated texts and the model id: a change to
the generator or the model invalidates the cache by itself. Nothing is printed here; the
caller formats the returned rows.
"""

from __future__ import annotations

import hashlib
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np
from sqlalchemy import insert, text

from benchmarks.stats import percentiles
from core.config import Settings
from core.embedding import Embedder, OnnxEmbedder
from core.knowledge.memories import MemoryService, MemorySpec
from core.recall import RecallQuery, RecallService
from core.storage.orm import Memory, utcnow
from core.storage.port import IndexedKind, SearchFilters
from core.storage.sqlite.adapter import SqliteStorage

CACHE_DIR = Path(__file__).resolve().parent / ".cache"
SEED = 20261122
QUERIES = 200
WARM_UP = 5
INSERT_BATCH = 1_000
END_TO_END_SAMPLE = 1_000
LATENCY_TARGETS_MS = {10_000: 25.0, 100_000: 50.0}
"""p95 targets by size; other sizes are reported without one."""

_PEOPLE = ["Anna", "Ben", "Chloe", "Dmitri", "Elena", "Farid", "Grace", "Hiro", "Ines", "Jonas",
           "Kemi", "Liam", "Maya", "Noah", "Olga", "Priya", "Quentin", "Rosa", "Sam", "Tariq",
           "Uma", "Victor", "Wen", "Yusuf", "Zoe", "Aisha", "Bruno", "Carmen", "Dev", "Emil"]
_RELATIONS = ["sister", "brother", "mother", "father", "aunt", "uncle", "cousin", "grandmother",
              "neighbour", "colleague", "manager", "best friend", "son", "daughter", "landlord"]
_CITIES = ["Lisbon", "Berlin", "Osaka", "Toronto", "Nairobi", "Lyon", "Krakow", "Austin",
           "Melbourne", "Bergen", "Porto", "Seoul", "Edinburgh", "Valencia", "Dublin", "Quito",
           "Hanoi", "Tbilisi", "Oaxaca", "Reykjavik"]
_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December"]
_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
_FOODS = ["oat milk", "dark chocolate", "green tea", "sourdough bread", "espresso", "miso soup",
          "blueberries", "spicy ramen", "greek yoghurt", "lentil curry", "almond butter",
          "sparkling water", "mango lassi", "pickled ginger", "goat cheese", "peanuts",
          "shellfish", "rye crackers", "kimchi", "halloumi"]
_DEVICES = ["laptop", "router", "printer", "phone", "e-reader", "smartwatch", "dishwasher",
            "washing machine", "car stereo", "electric bike", "thermostat", "headphones",
            "coffee grinder", "projector", "baby monitor"]
_PROBLEMS = ["dropping the wifi connection", "overheating", "freezing on startup",
             "draining the battery overnight", "making a clicking noise", "losing its settings",
             "refusing to pair over bluetooth", "showing error code {code}",
             "rebooting at random", "running very slowly"]
_PROJECTS = ["garden shed", "tax return", "thesis chapter", "kitchen renovation",
             "website redesign", "quarterly report", "wedding speech", "photo album",
             "grant application", "podcast episode", "mobile app", "family tree",
             "conference talk", "bathroom tiles", "novel draft", "charity run"]
_TOPICS = ["budget", "deadline", "design review", "next steps", "risks", "timeline",
           "hiring plan", "launch date", "feedback", "open questions", "scope", "contract"]
_HOBBIES = ["climbing", "pottery", "chess", "sourdough baking", "birdwatching", "salsa dancing",
            "watercolour painting", "trail running", "woodworking", "learning Portuguese",
            "playing the cello", "knitting", "sea swimming", "bouldering", "board games"]
_BODY = ["knee", "lower back", "shoulder", "wrist", "ankle", "neck", "hip", "elbow"]
_TREATMENTS = ["physiotherapy twice a week", "stretching every morning",
               "ibuprofen after meals", "a brace at night", "rest and ice",
               "swimming instead of running", "a standing desk", "fewer hours at the laptop"]
_BOOKS = [("The Left Hand of Darkness", "Ursula K. Le Guin"), ("Piranesi", "Susanna Clarke"),
          ("Thinking, Fast and Slow", "Daniel Kahneman"), ("The Overstory", "Richard Powers"),
          ("Braiding Sweetgrass", "Robin Wall Kimmerer"), ("Project Hail Mary", "Andy Weir"),
          ("Middlemarch", "George Eliot"), ("The Dispossessed", "Ursula K. Le Guin"),
          ("Educated", "Tara Westover"), ("Klara and the Sun", "Kazuo Ishiguro")]
_STORES = ["the farmers market", "the corner shop", "the hardware store", "the pharmacy",
           "the bakery on Elm Street", "the supermarket", "the garden centre"]
_ITEMS = ["batteries", "light bulbs", "coffee filters", "bin bags", "printer paper", "sunscreen",
          "dish soap", "rice", "olive oil", "birthday candles", "a phone charger", "plasters",
          "seed potatoes", "wood glue", "cat food"]
_TOOLS = ["docker compose", "git rebase", "the VPN client", "the backup script", "nginx",
          "the spreadsheet macro", "postgres", "the password manager", "the home NAS",
          "the photo sync", "the calendar integration"]
_FIXES = ["restarting it with the cache cleared", "pinning the older version",
          "setting the timeout to sixty seconds", "running it as administrator",
          "deleting the lock file first", "updating the firmware", "reinstalling the driver",
          "rotating the expired certificate"]
_FEELINGS = ["stressed", "excited", "tired", "relieved", "anxious", "proud", "frustrated",
             "hopeful"]
_JOBS = ["nurse", "architect", "teacher", "software developer", "chef", "pilot", "lawyer",
         "carpenter", "translator", "vet", "pharmacist", "journalist"]
_BILLS = ["electricity", "water", "internet", "phone", "gas", "insurance", "council tax"]
_PLACES = ["cabin", "office", "studio", "guest house", "library", "workshop"]
_PREFIXES = ["", "", "", "Yesterday ", "Last week ", "This morning ", "On {weekday} ",
             "Note to self: ", "Apparently ", "Reminder: "]
_SUFFIXES = ["", "", "", " Need to follow up.", " That surprised me.",
             " {person2} mentioned it too.", " Worth remembering.", " Check again in {month2}."]

_TEMPLATES = [
    "{person} told me she is moving to {city} in {month}.",
    "my {relation}'s birthday is on {month} {day}; {pronoun} loves {food}.",
    "I prefer {food} over {food2} in the morning.",
    "the {device} keeps {problem} since the last update.",
    "meeting with {person} about the {project} {topic} on {weekday}.",
    "remember to buy {item} and {item2} at {store}.",
    "{person} recommended the book {book} by {author}.",
    "the doctor said my {body} pain should improve with {treatment}.",
    "fixed {tool} by {fix}.",
    "I started {hobby} with {person} every {weekday} evening.",
    "felt {feeling} about the {project} because the {topic} slipped again.",
    "my {relation} {person} lives in {city} and works as a {job}.",
    "ordered replacement part {code} for the {device}.",
    "flight to {city} on {month} {day}, seat {seat}, booking reference {code}.",
    "{person} is allergic to {food}, so avoid it when cooking for {pronoun2}.",
    "spent the weekend in {city} with {person}; we went {hobby} twice.",
    "need to call {person} back about the {project} before {weekday}.",
    "paid the {bill} bill of {amount} euros on {month} {day}.",
    "the wifi password for the {place} is in the password manager.",
    "goal for {month}: finish the {project} and keep up {hobby}.",
    "{person} got a new job as a {job} in {city}.",
    "the {device} warranty runs out in {month}; the receipt is in the {place}.",
    "{person} and I disagreed about the {project} {topic}.",
    "I want to try {hobby} once my {body} is better.",
    "dinner at {person}'s place on {weekday}; bring {food}.",
]

_QUERIES = [
    "when is my {relation}'s birthday",
    "what did {person} say about moving",
    "what is wrong with the {device}",
    "book recommendations from {person}",
    "how did I fix {tool}",
    "what should I buy at {store}",
    "what helps my {body} pain",
    "when is my flight to {city}",
    "who is allergic to {food}",
    "what do I like to drink in the morning",
    "meetings about the {project}",
    "which bills did I pay in {month}",
    "which hobbies do I share with {person}",
    "where does my {relation} live",
    "what job does {person} have",
    "replacement part for the {device}",
]


def _code(rng: random.Random) -> str:
    letters = "ABCDEFGHJKLMNPQRSTUVWXYZ"
    return f"{rng.choice(letters)}{rng.choice(letters)}-{rng.randint(1000, 9999)}"


def _slots(rng: random.Random) -> dict[str, object]:
    """One random value for every slot any template uses."""
    book, author = rng.choice(_BOOKS)
    food, food2 = rng.sample(_FOODS, 2)
    item, item2 = rng.sample(_ITEMS, 2)
    person, person2 = rng.sample(_PEOPLE, 2)
    she = rng.random() < 0.5
    return {
        "person": person, "person2": person2, "relation": rng.choice(_RELATIONS),
        "city": rng.choice(_CITIES), "month": rng.choice(_MONTHS),
        "month2": rng.choice(_MONTHS), "day": rng.randint(1, 28),
        "weekday": rng.choice(_WEEKDAYS), "food": food, "food2": food2,
        "device": rng.choice(_DEVICES),
        "problem": rng.choice(_PROBLEMS).replace("{code}", _code(rng)),
        "project": rng.choice(_PROJECTS), "topic": rng.choice(_TOPICS),
        "item": item, "item2": item2, "store": rng.choice(_STORES), "book": book,
        "author": author, "body": rng.choice(_BODY), "treatment": rng.choice(_TREATMENTS),
        "tool": rng.choice(_TOOLS), "fix": rng.choice(_FIXES), "hobby": rng.choice(_HOBBIES),
        "feeling": rng.choice(_FEELINGS), "job": rng.choice(_JOBS), "code": _code(rng),
        "seat": f"{rng.randint(1, 40)}{rng.choice('ABCDEF')}",
        "pronoun": "she" if she else "he", "pronoun2": "her" if she else "him",
        "bill": rng.choice(_BILLS), "amount": rng.randint(20, 400),
        "place": rng.choice(_PLACES),
    }


def memory_texts(count: int, seed: int = SEED) -> list[str]:
    """``count`` varied memory sentences; the same seed always gives the same list."""
    rng = random.Random(seed)
    texts = []
    for _ in range(count):
        slots = _slots(rng)
        body = rng.choice(_TEMPLATES).format(**slots)
        prefix = rng.choice(_PREFIXES).format(**slots)
        sentence = (prefix + body) if prefix else body
        texts.append(sentence[0].upper() + sentence[1:] + rng.choice(_SUFFIXES).format(**slots))
    return texts


def query_texts(count: int, seed: int = SEED + 1) -> list[str]:
    """Questions a user might ask of such memories."""
    rng = random.Random(seed)
    return [rng.choice(_QUERIES).format(**_slots(rng)) for _ in range(count)]


def cached_document_vectors(texts: Sequence[str], embedder: Embedder) -> np.ndarray:
    """The embeddings of ``texts``, from ``benchmarks/.cache`` when this exact list and model
    were embedded before (the key hashes both, so stale vectors are never reused)."""
    digest = hashlib.sha256()
    digest.update(embedder.model_id.encode())
    for line in texts:
        digest.update(b"\0" + line.encode())
    path = CACHE_DIR / f"memories-{len(texts)}-{digest.hexdigest()[:16]}.npy"
    if path.exists():
        return np.load(path)
    vectors = embedder.embed_documents(texts)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.stem + ".partial.npy")
    np.save(partial, vectors)
    partial.replace(path)
    return vectors


# --- the benchmark ---------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    """Generated memories with their cached vectors, and which of them are still valid."""

    texts: list[str]
    vectors: np.ndarray
    valid: np.ndarray


def bench_recall(sizes: Sequence[int] = (10_000, 100_000)) -> list[dict[str, str]]:
    """Rows of ``{"benchmark", "value", "target"}`` for the recall path at each size."""
    settings = Settings()
    embedder = OnnxEmbedder(settings.embedding_model_dir, threads=settings.embedding_threads)
    texts = memory_texts(max(sizes))
    corpus = Corpus(texts, cached_document_vectors(texts, embedder),
                    np.random.default_rng(SEED).random(len(texts)) >= 0.02)
    questions = query_texts(QUERIES)
    rows: list[dict[str, str]] = []
    with tempfile.TemporaryDirectory(prefix="hearth-bench-") as folder:
        for size in sizes:
            storage = SqliteStorage(Path(folder) / f"recall-{size}.db")
            try:
                seconds = _fill(storage, corpus, size, embedder.model_id)
                label = f"@{size // 1000}k"
                rows.append(_row(f"insert given vectors {label}",
                                 f"{size / seconds:,.0f} rows/s"))
                rows.extend(_latency_rows(storage, embedder, settings, questions, size, label))
                rows.append(_quantisation_row(storage, embedder, corpus, questions, size, label))
                rows.append(_row(f"database size per 10k memories {label}",
                                 f"{_file_mb(storage) * 10_000 / size:.1f} MB"))
            finally:
                storage.close()
        rows.append(_end_to_end_insert_row(Path(folder) / "insert.db", embedder, texts))
    return rows


def _row(benchmark: str, value: str, target: str = "") -> dict[str, str]:
    return {"benchmark": benchmark, "value": value, "target": target}


def _fill(storage: SqliteStorage, corpus: Corpus, size: int, model_id: str) -> float:
    """Insert the first ``size`` memories with their vectors; returns the seconds taken.

    Metadata is varied like a lived-in store: two years of creation times, decayed
    strengths, a few namespaces, categories and types, and 2% invalidated memories.
    """
    rng = random.Random(SEED)
    now = utcnow()
    storage.search.ensure_dimensions(corpus.vectors.shape[1])
    started = time.perf_counter()
    for start in range(0, size, INSERT_BATCH):
        stop = min(size, start + INSERT_BATCH)
        values = [{
            "content": corpus.texts[i], "created_at": now - timedelta(days=rng.uniform(0, 730)),
            "updated_at": now, "strength": rng.uniform(0.2, 1.0),
            "is_valid": bool(corpus.valid[i]),
            "namespace": rng.choice(["user", "user/health", "user/work", "user/family"]),
            "category": rng.choice(["general", "health", "work", "people", "errands"]),
            "memory_type": rng.choice(["semantic", "semantic", "episodic", "procedural"]),
        } for i in range(start, stop)]
        with storage.write() as session:
            ids = session.scalars(insert(Memory).returning(Memory.id,
                                                           sort_by_parameter_order=True),
                                  values).all()
            storage.search.store_embeddings(session, IndexedKind.MEMORY, ids,
                                            corpus.vectors[start:stop], model_id)
    return time.perf_counter() - started


def _latency_rows(storage: SqliteStorage, embedder: Embedder, settings: Settings,
                  questions: Sequence[str], size: int, label: str) -> list[dict[str, str]]:
    """End-to-end recall latency (k=10, hybrid, default filters) and its split."""
    service = RecallService(storage, embedder, settings)
    for question in questions[:WARM_UP]:
        service.recall(RecallQuery(question))
    totals, parts = [], []
    for question in questions:
        started = time.perf_counter()
        _, timings = service.recall_with_timings(RecallQuery(question))
        totals.append((time.perf_counter() - started) * 1000)
        parts.append(timings)
    target = LATENCY_TARGETS_MS.get(size)
    split = " · ".join(f"{key} {percentiles([p[key] for p in parts])[0]:.1f}"
                       for key in ("embed", "text", "vector", "fusion"))
    p50, p95 = percentiles(totals)
    return [
        _row(f"recall p50/p95 {label}", f"{p50:.1f} / {p95:.1f} ms",
             f"p95 ≤ {target:.0f} ms" if target else ""),
        _row(f"recall split p50 {label}", f"{split} ms"),
    ]


def _quantisation_row(storage: SqliteStorage, embedder: Embedder, corpus: Corpus,
                      questions: Sequence[str], size: int, label: str) -> dict[str, str]:
    """recall@10 of the index's vector search against an exact scan in numpy.

    A hit counts if its exact similarity reaches the 10th best exact similarity (the
    generated corpus has duplicates, so the exact top 10 is not unique).
    """
    vectors, valid = corpus.vectors[:size], corpus.valid[:size]
    scores = []
    with storage.read() as session:
        for question in questions:
            query = embedder.embed_query(question)
            exact = np.where(valid, vectors @ query, -np.inf)
            tenth = np.partition(exact, -10)[-10] - 1e-6
            hits = storage.search.vector_search(session, IndexedKind.MEMORY, query,
                                                SearchFilters(), 10)
            scores.append(sum(exact[hit.id - 1] >= tenth for hit in hits) / 10)
    return _row(f"vector recall@10 quantised vs exact {label}", f"{np.mean(scores):.4f}",
                "≥ 0.95")


def _file_mb(storage: SqliteStorage) -> float:
    with storage.engine.connect() as connection:
        connection.execute(text("PRAGMA wal_checkpoint(TRUNCATE)"))
    assert storage.path is not None
    return storage.path.stat().st_size / 1e6


def _end_to_end_insert_row(path: Path, embedder: Embedder,
                           texts: Sequence[str]) -> dict[str, str]:
    """``MemoryService.add_many`` on fresh text: embedding, rows, FTS and vectors."""
    sample = [f"{line} (sample {i})" for i, line in enumerate(texts[:END_TO_END_SAMPLE])]
    storage = SqliteStorage(path)
    try:
        service = MemoryService(storage, embedder)
        service.add_many([MemorySpec(sample[0])])
        started = time.perf_counter()
        service.add_many([MemorySpec(line) for line in sample[1:]])
        seconds = time.perf_counter() - started
    finally:
        storage.close()
    return _row("insert end to end (with embedding)",
                f"{(len(sample) - 1) / seconds:,.0f} memories/s")
