"""Imported data folders kept between benchmark runs, keyed by what an import depends on.

Importing a labelled set is the slow part of a quality run (every turn is embedded as
several views and sentences), and what it stores depends only on the data, the embedding
model and the code that stores an import (``SHAPING``), not on recall's weights. So a
folder, once imported, is kept under ``benchmarks/.cache/<group>/`` (git-ignored) with a
key hashed from those three; a run copies it into its own temporary folder, and a change to
any of them imports again (the older copy of that name is removed).
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Callable
from pathlib import Path

from core.app import Hearth
from core.embedding import Embedder

ROOT = Path(__file__).resolve().parents[1]
CACHE_ROOT = ROOT / "benchmarks" / ".cache"
SHAPING = ("core/embedding", "core/transfer", "core/knowledge", "core/storage")
"""The code that decides what an import stores: a change to it imports again."""


def cache_key(payload: bytes, model_id: str) -> str:
    """What an imported folder depends on: its data, the embedding model and ``SHAPING``."""
    digest = hashlib.sha256(model_id.encode())
    digest.update(payload)
    for folder in SHAPING:
        for source in sorted((ROOT / folder).rglob("*.py")):
            digest.update(str(source.relative_to(ROOT)).encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def prepared(name: str, payload: bytes, build: Callable[[Hearth], None], embedder: Embedder,
             home: Path, cache: Path | None) -> float | None:
    """``home`` made a data folder holding ``build``'s import: a copy of the cached one, or
    imported now (and kept in ``cache`` under ``name``). Returns the seconds the import
    took, None when it came from the cache."""
    kept = None if cache is None else cache / f"{name}-{cache_key(payload, embedder.model_id)}"
    if kept is not None and kept.is_dir():
        shutil.copytree(kept, home, dirs_exist_ok=True)
        return None
    started = time.perf_counter()
    with Hearth.open(home, embedder=embedder) as hearth:
        build(hearth)
    seconds = time.perf_counter() - started
    if kept is not None:
        for older in kept.parent.glob(f"{name}-*"):
            shutil.rmtree(older, ignore_errors=True)
        kept.parent.mkdir(parents=True, exist_ok=True)
        staging = kept.with_name(kept.name + ".partial")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(home, staging)
        staging.rename(kept)  # whole or not at all: a killed run leaves only .partial
    return seconds
