"""Did a speed change move the ranking? Dump every scale question's results, then compare.

Latency work on recall must leave its results alone: the same ids, in the same order, with
the same scores. This records them for the scale suite's 200 questions on a cached scale
store (``benchmarks/scale.py``), with the clock fixed so recency cannot differ between two
runs made minutes apart, and compares two such records::

    python -m benchmarks.recall_identity dump benchmarks/.cache/scale-100k-*/ before.json
    (change the code)
    python -m benchmarks.recall_identity dump benchmarks/.cache/scale-100k-*/ after.json
    python -m benchmarks.recall_identity compare before.json after.json

Run ``dump`` on a copy of the store if the code under test might write to it.
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

FIXED_NOW = datetime(2026, 11, 25, 8, 0, tzinfo=UTC)
"""The clock of every recorded recall (recency boosts depend on it)."""


def dump(home: Path, out: Path, k: int = 10) -> None:
    """Record ``(kind, id, score)`` of every result of each scale question, in order."""
    import core.recall.service as service
    from benchmarks.recall import query_texts
    from benchmarks.scale import QUERY_COUNT
    from core.app import Hearth
    from core.config import Settings
    from core.recall import RecallQuery

    service.utcnow = lambda: FIXED_NOW  # the one clock recall reads
    with Hearth.open(home, settings=Settings()) as hearth:
        recorded = [[[r.kind.value, r.id, r.score] for r in
                     hearth.recall.recall(RecallQuery(question, k=k))]
                    for question in query_texts(QUERY_COUNT)]
    out.write_text(json.dumps(recorded))


def compare(before: Path, after: Path) -> bool:
    """Print how many questions kept their ids and order, and their scores; True if all."""
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    if len(old) != len(new):
        print(f"different question counts: {len(old)} and {len(new)}")
        return False
    same_order = sum(1 for a, b in zip(old, new, strict=True)
                     if [r[:2] for r in a] == [r[:2] for r in b])
    same = sum(1 for a, b in zip(old, new, strict=True) if a == b)
    print(f"{len(old)} questions: same ids in the same order {same_order}, "
          f"and the same scores too {same}")
    return same == len(old)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump")
    dumping.add_argument("home", type=Path)
    dumping.add_argument("out", type=Path)
    comparing = commands.add_parser("compare")
    comparing.add_argument("before", type=Path)
    comparing.add_argument("after", type=Path)
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.home, args.out)
    elif not compare(args.before, args.after):
        sys.exit(1)


if __name__ == "__main__":
    main()
