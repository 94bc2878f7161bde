"""Small helpers shared by the benchmarks: percentiles and timing."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

import numpy as np


def percentiles(samples_ms: Sequence[float]) -> tuple[float, float]:
    """(p50, p95) of a list of milliseconds."""
    values = np.asarray(samples_ms, dtype=np.float64)
    return float(np.percentile(values, 50)), float(np.percentile(values, 95))


def timed_ms(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000
