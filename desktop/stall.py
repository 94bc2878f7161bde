"""How long the event loop goes without running: the measure of a window that never freezes.

A zero-interval-ish timer ticks as often as the loop lets it; the longest gap between two
ticks (less the interval) is the longest time the UI thread was busy with something else.
Used by the tests (a long operation must never stall the loop for more than 100 ms) and by
``make bench``.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, QTimer

TICK_MS = 5


class StallMeter(QObject):
    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(TICK_MS)
        self._timer.timeout.connect(self._tick)
        self._last: float | None = None
        self.longest_ms = 0.0
        self.ticks = 0

    def start(self) -> None:
        self.longest_ms, self.ticks, self._last = 0.0, 0, time.perf_counter()
        self._timer.start()

    def stop(self) -> float:
        """Stop measuring; the longest stall in milliseconds."""
        self._timer.stop()
        self._tick()
        return self.longest_ms

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            gap = (now - self._last) * 1000 - TICK_MS
            self.longest_ms = max(self.longest_ms, gap)
        self._last = now
        self.ticks += 1
