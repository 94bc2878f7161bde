"""Waiting for something while the event loop runs, outside ``app.exec()`` (tools and
benchmarks drive the window by script).

Why not a ``processEvents()`` loop: in PySide6 6.12 every ``QCoreApplication.processEvents()``
call drops one reference to ``None``, and a few thousand calls abort the interpreter
("Fatal Python error: none_dealloc"). A nested ``QEventLoop.exec()`` has no such leak.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QTimer

CHECK_MS = 10


def wait_until(done: Callable[[], bool], timeout_s: float = 60.0) -> bool:
    """Run the event loop until ``done()`` is true or the time is up; True if done."""
    deadline = time.monotonic() + timeout_s
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(CHECK_MS)

    def check() -> None:
        if done() or time.monotonic() > deadline:
            loop.quit()

    timer.timeout.connect(check)
    timer.start()
    if not done():
        loop.exec()
    timer.stop()
    return done()


def spin(seconds: float) -> None:
    """Run the event loop for ``seconds`` (let widgets repaint, timers fire)."""
    loop = QEventLoop()
    QTimer.singleShot(int(seconds * 1000), loop.quit)
    loop.exec()
