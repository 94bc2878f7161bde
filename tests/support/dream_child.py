"""Run a dream cycle in its own process and stall it mid-stage, for the crash test.

Usage: ``python dream_child.py HOME STAGE``. The link stage writes its edges in batches; here
the first is a few memories, and once the first batch of STAGE is committed the process prints
``MIDSTAGE <stage>`` and sleeps, so the test can SIGKILL it with part of the stage written.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core" / "consolidation"))

from core.app import Hearth
from core.consolidation import link
from core.consolidation.dream import DreamCycle
from test_dream import model_down

link.FIRST_WRITE = 4


def main(home: str, stall_in: str) -> None:
    def progress(stage: str, done: int, total: int) -> None:
        print(f"PROGRESS {stage} {done}/{total}", flush=True)
        if stage == stall_in and done > 0:
            print(f"MIDSTAGE {stage}", flush=True)
            time.sleep(600)

    with Hearth.open(home) as hearth:
        DreamCycle(hearth.consolidation(), model_down()).run(trigger="test", progress=progress)
    print("FINISHED", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
