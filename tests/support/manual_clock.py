"""A clock the test moves, and session-quiet timers on it, so a timer test says "half an
hour passes" instead of sleeping and hoping the machine kept up.

``ManualClock.timers`` is a ``core.learning.quiet_timers.MakeTimers``: give it to
``LearningPipeline(timers=...)``. A timer fires, in the test's thread, when ``advance``
moves the clock to or past its expiry; the earliest first.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta

from core import clock


class ManualClock:
    """Starts at the engine's "now" and moves only when told."""

    def __init__(self, start: datetime | None = None) -> None:
        self._now = start or clock.now()
        self._timers: list[ManualTimers] = []

    def now(self) -> datetime:
        return self._now

    def timers(self, fire: Callable[[str], object]) -> ManualTimers:
        """Quiet timers on this clock that call ``fire(session_id)`` when they expire."""
        made = ManualTimers(self, fire)
        self._timers.append(made)
        return made

    def advance(self, delta: timedelta) -> None:
        """Move the clock ``delta`` ahead and fire every timer that expired meanwhile."""
        if delta < timedelta(0):
            raise ValueError("a clock only moves forward")
        self._now += delta
        for timers in self._timers:
            timers.fire_expired()


class ManualTimers:
    """``QuietTimers`` whose expiry is measured on a ``ManualClock``."""

    def __init__(self, clock: ManualClock, fire: Callable[[str], object]) -> None:
        self._clock = clock
        self._fire = fire
        self._expiry: dict[str, datetime] = {}
        self.closed = False

    def restart(self, session_id: str, delay: timedelta) -> None:
        self._expiry[session_id] = self._clock.now() + delay

    def cancel(self, session_id: str) -> None:
        self._expiry.pop(session_id, None)

    def pending(self) -> dict[str, datetime]:
        return dict(self._expiry)

    def close(self) -> None:
        """Closed timers never fire (like a stopped private scheduler)."""
        self.closed = True

    def fire_expired(self) -> None:
        if self.closed:
            return
        expired = sorted((expiry, session_id) for session_id, expiry in self._expiry.items()
                         if expiry <= self._clock.now())
        for _, session_id in expired:
            del self._expiry[session_id]
            self._fire(session_id)
