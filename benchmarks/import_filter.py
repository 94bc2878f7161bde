"""The Memories view filtered to one import run at a million memories: the first page,
the count above the list, and ``hearth imports`` (each run's memories counted), with the
expression index on ``origin.import_batch`` (migration 0018) against the same store
without it (the baseline: a full scan of every memory's JSON).

The store holds memory rows only (no vectors: the filter never reads them), dated one
minute apart; every tenth memory belongs to one of ten import runs, the oldest run's
memories the oldest (its page is the furthest back in the ``created_at`` order the list
walks). Run alone: ``python -m benchmarks.import_filter [SIZE]``; in the table: ``--only
import_filter``."""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

from sqlalchemy import text

from benchmarks.stats import percentiles, timed_ms
from core.app import Hearth
from core.storage.sql import IMPORT_BATCH_INDEX
from core.transfer import batches
from core.views.memory_browse import MemoryFilter, browse, count

SIZE = 1_000_000
RUNS = 10
REPEATS = 9
T0 = datetime(2020, 1, 1, tzinfo=timezone.utc)


def _fill(hearth: Hearth, size: int) -> None:
    """``size`` memories; memory ``i`` with ``i % 10 == 0`` belongs to run ``i * RUNS //
    size + 1`` (so run 1 holds the oldest tenth's imported memories)."""
    engine = hearth.storage.write_engine()
    with engine.begin() as connection:
        for run in range(1, RUNS + 1):
            connection.execute(text(
                "INSERT INTO import_runs (id, source, started_at, added) "
                "VALUES (:id, 'chatgpt', :t, 0)"), {"id": run, "t": T0})
        step = 20_000
        for start in range(0, size, step):
            rows = []
            for i in range(start, min(size, start + step)):
                origin = ({"service": "chatgpt", "import_batch": i * RUNS // size + 1}
                          if i % 10 == 0 else {"channel": "chat"})
                stamp = (T0 + timedelta(minutes=i)).strftime("%Y-%m-%d %H:%M:%S.%f")
                rows.append({"content": f"memory {i} about the garden", "origin":
                             json.dumps(origin), "t": stamp})
            connection.execute(text(
                "INSERT INTO memories (content, memory_type, namespace, priority, source, "
                "tier, category, tags, entities, importance, strength, freshness, "
                "access_count, search_hit_count, is_valid, origin, created_at, updated_at) "
                "VALUES (:content, 'episodic', 'user', 'medium', 'import', 'recall', "
                "'general', '[]', '{}', 0.5, 1.0, 1.0, 0, 0, 1, :origin, :t, :t)"), rows)


def _measure(hearth: Hearth, label: str) -> list[dict]:
    storage = hearth.storage
    oldest, newest = MemoryFilter(import_batch=1), MemoryFilter(import_batch=RUNS)
    cases = {
        "first page, oldest run": lambda: browse(storage, oldest),
        "first page, newest run": lambda: browse(storage, newest),
        "count of a run": lambda: count(storage, oldest),
        "hearth imports (every run counted)": lambda: batches.runs(storage),
    }
    rows = []
    for name, action in cases.items():
        action()  # warm the page cache
        p50, p95 = percentiles([timed_ms(action) for _ in range(REPEATS)])
        rows.append({"benchmark": f"{name}, {label}", "p50": p50,
                     "value": f"p50 {p50:.1f} ms, p95 {p95:.1f} ms"})
    return rows


def bench_import_filter(size: int = SIZE) -> list[dict]:
    with tempfile.TemporaryDirectory(prefix="hearth-import-filter-") as folder:
        with Hearth.open(Path(folder)) as hearth:
            _fill(hearth, size)
            with hearth.storage.write_engine().begin() as connection:
                connection.execute(text("ANALYZE"))
            indexed = _measure(hearth, "indexed")
            with hearth.storage.write_engine().begin() as connection:
                connection.execute(text(f"DROP INDEX {IMPORT_BATCH_INDEX}"))
            scanned = _measure(hearth, "full scan")
    rows = []
    for fast, slow in zip(indexed, scanned, strict=True):
        rows += [fast, slow]
        rows.append({"benchmark": fast["benchmark"].replace(", indexed", ", speed-up"),
                     "value": f"{slow['p50'] / fast['p50']:.0f}x (p50 ratio)"})
    return [{"benchmark": f"{size:,} memories: {row['benchmark']}", "value": row["value"]}
            for row in rows]


if __name__ == "__main__":
    for row in bench_import_filter(int(sys.argv[1]) if len(sys.argv) > 1 else SIZE):
        print(f"{row['benchmark']:<70} {row['value']}")
