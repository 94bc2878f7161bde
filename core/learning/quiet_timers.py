"""Quiet timers: "this session has been quiet long enough, close it" for each open chat.

The learning pipeline arms one per session at every message; ``core.scheduling`` hands it
persistent ones in its own job store (so a timer survives a restart). They live here, below
both, so that the scheduler depends on the pipeline and never the reverse."""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Protocol

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.base import JobLookupError
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.schedulers.base import BaseScheduler

from core.storage.orm import utcnow

log = logging.getLogger(__name__)

QUIET_PREFIX = "quiet:"
"""Id prefix of the session-quiet timers (``quiet:<session id>``)."""
_VOLATILE = "volatile"


class QuietTimers(Protocol):
    """One pending "this session has been quiet long enough" per session id; when one
    expires, whoever created the timers is told (``LearningPipeline.quiet_time_over``)."""

    def restart(self, session_id: str, delay: timedelta) -> None:
        """Arm (or re-arm) the session's timer to expire ``delay`` from now."""

    def cancel(self, session_id: str) -> None:
        """Disarm the session's timer; nothing happens when it has none."""

    def pending(self) -> dict[str, datetime]:
        """The sessions with an armed timer and when each expires."""

    def close(self) -> None:
        """Release what the timers run on (a private scheduler); shared ones stay."""


MakeTimers = Callable[[Callable[[str], object]], QuietTimers]
"""Makes the timers a pipeline starts with, given what to call with an expired session's
id: ``QuietTimerJobs.in_memory`` in the application; in tests, timers on a clock the test
moves, so that no test waits for real time to pass."""


class QuietTimerJobs:
    """``QuietTimers`` as APScheduler date jobs that call
    ``fire(*fire_args, session_id)``: persistent in a ``HearthScheduler``'s job store, or
    in memory on a private scheduler (``in_memory``). APScheduler locks its own job
    stores, so these may be called from any thread."""

    def __init__(self, scheduler: BaseScheduler, jobstore: str, fire: Callable[..., object],
                 fire_args: tuple[object, ...] = (), *, owned: bool = False) -> None:
        self._scheduler = scheduler
        self._jobstore = jobstore
        self._fire = fire
        self._fire_args = fire_args
        self._owned = owned

    @classmethod
    def in_memory(cls, fire: Callable[[str], object]) -> QuietTimerJobs:
        """Timers that live as long as the process, on a scheduler of their own."""
        scheduler = BackgroundScheduler(
            jobstores={_VOLATILE: MemoryJobStore()},
            executors={"default": ThreadPoolExecutor(max_workers=1)},
            timezone=timezone.utc)
        scheduler.start()
        return cls(scheduler, _VOLATILE, fire, owned=True)

    def restart(self, session_id: str, delay: timedelta) -> None:
        self._scheduler.add_job(
            self._fire, trigger="date", run_date=utcnow() + delay,
            args=(*self._fire_args, session_id), id=QUIET_PREFIX + session_id,
            name=QUIET_PREFIX + session_id, jobstore=self._jobstore, replace_existing=True,
            misfire_grace_time=None)  # however late (a crash, a sleep): close it

    def cancel(self, session_id: str) -> None:
        try:
            self._scheduler.remove_job(QUIET_PREFIX + session_id, self._jobstore)
        except JobLookupError:
            log.debug("no quiet timer to cancel for session %s (already fired)", session_id)

    def pending(self) -> dict[str, datetime]:
        return {job.id.removeprefix(QUIET_PREFIX): job.next_run_time
                for job in self._scheduler.get_jobs(self._jobstore)
                if job.id.startswith(QUIET_PREFIX) and job.next_run_time is not None}

    def close(self) -> None:
        if self._owned and self._scheduler.running:
            self._scheduler.shutdown(wait=False)
