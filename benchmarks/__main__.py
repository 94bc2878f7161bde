"""Run every benchmark and print one table (medians and percentiles, this machine only)."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from pathlib import Path

from rich.console import Console
from rich.table import Table

from benchmarks.embedding import bench_embedding

RESULTS = Path(__file__).with_name("results")


def suites(quick: bool, realmem_personas: int | None = None,
           import_conversations: int | None = None) -> dict:
    from benchmarks.change_feed import bench_change_feed
    from benchmarks.conversation import bench_extraction, bench_turn_assembly
    from benchmarks.delivery import bench_delivery
    from benchmarks.desktop import bench_desktop
    from benchmarks.dream import bench_dream
    from benchmarks.encryption import bench_encryption
    from benchmarks.graph_view import bench_graph_view
    from benchmarks.import_filter import bench_import_filter
    from benchmarks.import_speed import SUITE_CONVERSATIONS, bench_import_speed
    from benchmarks.imports import bench_imports
    from benchmarks.mcp import bench_mcp
    from benchmarks.postgres import bench_postgres
    from benchmarks.quality import bench_quality
    from benchmarks.recall import bench_recall
    from benchmarks.scale import bench_scale
    from benchmarks.small_model import bench_small_model

    sizes = (10_000,) if quick else (10_000, 100_000)
    return {
        "embedding": bench_embedding,
        "recall": lambda: bench_recall(sizes=sizes),
        "scale": lambda: bench_scale(sizes=(10_000,) if quick else (10_000, 100_000,
                                                                     1_000_000)),
        "quality": lambda: bench_quality(realmem_personas, on_step=_progress),
        "conversation": bench_turn_assembly,
        "postgresql": lambda: bench_postgres(sizes=sizes),
        "learning": bench_extraction,
        "dream": lambda: bench_dream(sizes=sizes),
        "graph": bench_graph_view,
        "desktop": bench_desktop,
        "delivery": bench_delivery,
        "imports": bench_imports,
        "import_speed": lambda: bench_import_speed(import_conversations or SUITE_CONVERSATIONS),
        "import_filter": lambda: bench_import_filter(100_000 if quick else 1_000_000),
        "encryption": bench_encryption,
        "mcp": bench_mcp,
        "change_feed": bench_change_feed,
        "small_model": bench_small_model,
    }


def _progress(step: str) -> None:
    print(step, file=sys.stderr, flush=True)


def main() -> None:
    from core.home.private_files import restrict_new_files

    restrict_new_files()  # an entry point: the data folders it makes and caches are private
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true",
                        help="skip the 100k- and 1M-memory sizes")
    parser.add_argument("--only", action="append", help="run only this suite (repeatable)")
    parser.add_argument("--realmem-personas", type=int, default=None, metavar="N",
                        help="the quality suite's RealMem part on N of its ten personas "
                             "(from both halves in turn; 0 skips it); all by default")
    parser.add_argument("--import-conversations", type=int, default=None, metavar="N",
                        help="the import_speed suite on the first N conversations of its "
                             "generated export (20 by default)")
    args = parser.parse_args()
    rows: list[dict] = []
    console = Console(width=150)
    for name, suite in suites(args.quick, args.realmem_personas,
                              args.import_conversations).items():
        if args.only and name not in args.only:
            continue
        console.print(f"running {name} …", style="dim")
        rows.extend({"suite": name, **row} for row in suite())
    table = Table(title=f"Hearth benchmarks ({platform.processor() or platform.machine()}, "
                        f"{__import__('os').cpu_count()} cores)")
    for column in ("suite", "benchmark", "value", "target"):
        table.add_column(column, overflow="fold")
    for row in rows:
        table.add_row(row["suite"], row["benchmark"], row["value"], row.get("target", ""))
    console.print(table)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "latest.json").write_text(json.dumps(rows, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
