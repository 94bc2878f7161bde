"""One Hearth "device" for the several-devices tests
(``tests/core/storage/test_devices.py``): a process with a data folder of its own, on the
database ``HEARTH_DATABASE_URL`` names, talking to the scripted Ollama server
``HEARTH_OLLAMA_HOST`` names.

Usage: ``python device_child.py HOME ACTION [GO_FILE]``

- ``process``: print ``READY`` once the folder is open, wait for ``GO_FILE`` to exist (so
  two devices start consolidating at the same moment), run the memory processor and print
  its report as JSON.
- ``dream``: take the dream lock as a dream cycle does (``DreamCycle.run`` takes it
  first), print ``DREAMING`` and sleep, so the test can start another dream meanwhile,
  then kill this one. (A whole cycle would stop at its backup on this branch's PostgreSQL
  adapter, which has no ``copies`` yet.)
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the project

from core.app import Hearth
from core.consolidation.dream import dream_lock
from core.consolidation.processor import MemoryProcessor
from core.llm.selection import build_provider


def process(home: str, go_file: str) -> None:
    with Hearth.open(home) as hearth:
        provider = build_provider(hearth.settings)
        print("READY", flush=True)
        while not Path(go_file).exists():
            time.sleep(0.02)
        report = MemoryProcessor(hearth.consolidation(), provider).run(trigger="test")
        provider.close()
    print(json.dumps({"status": report.status, "processed": report.processed,
                      "events_seen": report.events_seen, "failed": report.failed}),
          flush=True)


def dream(home: str) -> None:
    with Hearth.open(home) as hearth, dream_lock(hearth.storage):
        print("DREAMING", flush=True)
        time.sleep(600)


if __name__ == "__main__":
    if sys.argv[2] == "process":
        process(sys.argv[1], sys.argv[3])
    else:
        dream(sys.argv[1])
