"""The window: cold start to the window shown, and the longest event-loop stall while a
dream cycle runs in the background (10k memories, scripted model).

Cold start is measured from outside: the parent notes the time, starts a fresh Python that
builds the window exactly as ``hearth-desktop`` does (on an existing data folder) and
prints the wall-clock time at which the window has been shown and painted once; the
difference includes the interpreter, the imports and opening the database, as a user waits
for them. The stall is measured in-process with ``desktop.stall.StallMeter``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.recall import SEED, Corpus, _fill, cached_document_vectors, memory_texts

COLD_STARTS = 5
TARGET_START_SECONDS = 1.5
TARGET_STALL_MS = 100.0
STALL_SIZE = 10_000

CHILD = """
import sys, time
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
from core.app import Hearth
from desktop.app import DesktopApp, make_application
from desktop.context import AppContext
app = make_application()
desktop = DesktopApp(AppContext(Hearth.open(sys.argv[1])), start_background=False)
desktop.window.show()
def shown():
    print(time.time(), flush=True)
    desktop.ctx.close()
    app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def empty_answers() -> Any:
    """A scripted model answering ``{}`` at once (module-level: the dream's child process
    unpickles it). The stages then take their no-answer paths: engine cost only."""
    from support.scripted_llm import ScriptedLLM

    return ScriptedLLM(lambda *_: "{}")


def bench_desktop() -> list[dict[str, str]]:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="hearth-desktop-") as folder:
        home = Path(folder) / "home"
        _seed(home, STALL_SIZE)
        starts = [_cold_start(home) for _ in range(COLD_STARTS)]
        stall, seconds = _stall_during_dream(home)
    return [
        {"benchmark": f"cold start to window shown (median of {COLD_STARTS}, 10k memories)",
         "value": f"{statistics.median(starts):.2f} s (min {min(starts):.2f}, "
                  f"max {max(starts):.2f})", "target": f"≤ {TARGET_START_SECONDS} s"},
        {"benchmark": "longest event-loop stall during a dream cycle @10k",
         "value": f"{stall:.0f} ms (cycle took {seconds:.1f} s)",
         "target": f"≤ {TARGET_STALL_MS:.0f} ms"},
    ]


def _seed(home: Path, size: int) -> None:
    from core.app import Hearth
    from core.embedding import OnnxEmbedder

    with Hearth.open(home) as hearth:
        embedder = hearth.embedder
        assert isinstance(embedder, OnnxEmbedder)
        texts = memory_texts(size)
        corpus = Corpus(texts, cached_document_vectors(texts, embedder),
                        np.random.default_rng(SEED).random(len(texts)) >= 0.02)
        _fill(hearth.storage, corpus, size, embedder.model_id)  # type: ignore[arg-type]


def _cold_start(home: Path) -> float:
    launched = time.time()
    shown = subprocess.run([sys.executable, "-c", CHILD, str(home)], capture_output=True,
                           text=True, check=True, env={**os.environ}).stdout.split()[-1]
    return float(shown) - launched


def _stall_during_dream(home: Path) -> tuple[float, float]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from core.app import Hearth
    from desktop.app import make_application
    from desktop.context import AppContext
    from desktop.event_loop import wait_until
    from desktop.main_window import MainWindow
    from desktop.stall import StallMeter

    make_application()
    ctx = AppContext(Hearth.open(home), provider_factory=empty_answers)
    try:
        window = MainWindow(ctx)
        window.show()
        meter = StallMeter()
        meter.start()
        started = time.perf_counter()
        task = window.runs.dream_now(show=True)
        wait_until(lambda: not task.running, timeout_s=3600)
        seconds = time.perf_counter() - started
        return meter.stop(), seconds
    finally:
        ctx.close()
