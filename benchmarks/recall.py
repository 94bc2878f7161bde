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
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

from core.embedding import Embedder

CACHE_DIR = Path(__file__).resolve().parent / ".cache"
SEED = 20261122

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
    for text in texts:
        digest.update(b"\0" + text.encode())
    path = CACHE_DIR / f"memories-{len(texts)}-{digest.hexdigest()[:16]}.npy"
    if path.exists():
        return np.load(path)
    vectors = embedder.embed_documents(texts)
    CACHE_DIR.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.stem + ".partial.npy")
    np.save(partial, vectors)
    partial.replace(path)
    return vectors
