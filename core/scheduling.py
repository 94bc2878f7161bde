"""The in-process schedule: consolidation runs while the user is away, without a cron.

``HearthScheduler`` wraps an APScheduler 3 ``BackgroundScheduler`` whose job store is a
table (``apscheduler_jobs``) on the open database's own engine (``storage.write_engine()``,
never a second engine or a plain ``sqlite:///`` URL: either corrupts a live WAL database),
so the schedule survives restarts. Jobs (``dream``, ``decay``, ``event_processor``,
``delivery``, ``daily_briefing``, the session-quiet timers ``quiet:<session id>``) are
stored as references to ``run_registered`` / ``quiet_time_over``, which find the scheduler
registered for the data folder in this process. One scheduler per data folder: a second in
this process is refused, and ``<home>/scheduler.lock`` refuses a second process. Missed
runs run once (``coalesce``, ``MISFIRE_GRACE``); ``stop_jobs`` asks running jobs to stop at
their next safe point.

See docs/consolidation.md, "Scheduling" (every job, catch-up, stopping, the quiet timers).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, tzinfo
from typing import Any

from apscheduler.executors.pool import ThreadPoolExecutor
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from tzlocal import get_localzone

from core.app import Hearth
from core.errors import HearthError, InvalidInputError
from core.home.instance_lock import FolderLock
from core.job_names import (  # re-exported: the scheduler's callers name its jobs from here
    DAILY_BRIEFING as DAILY_BRIEFING,
    DECAY as DECAY,
    DELIVERY as DELIVERY,
    DREAM as DREAM,
    EVENT_PROCESSOR as EVENT_PROCESSOR,
    ON_DEMAND_JOBS as ON_DEMAND_JOBS,
    PURGE_DELETED as PURGE_DELETED,
    REFLECT as REFLECT,
    SCHEDULED_JOBS as SCHEDULED_JOBS,
)
from core.daily import delivery
from core.routines import briefing
from core.daily.delivery import Notification
from core.routines.prompt_runs import run_prompt
from core.learning.pipeline import LearningPipeline, close_session
from core.learning.quiet_timers import QuietTimerJobs
from core.llm.protocol import CancelToken, LLMCancelled, LLMProvider
from core.storage.changes import Changes, Domain
from core.storage.orm import utcnow

log = logging.getLogger(__name__)

NOTHING_DUE = "nothing due"
"""A delivery pass that found nothing (most minutes): logged at DEBUG only."""
RETIRED_JOBS = ("intention_followups",)
"""Ids of jobs an earlier version stored; removed at start (delivery does their work)."""
DECAY_TIME = (14, 0)
"""Daily decay at 14:00, twelve hours from the default dream time: memory used during the
day fades on the same day's clock even on machines that are off every night."""
EVENT_PROCESSOR_MINUTES = 15
PURGE_MINUTES = 5
"""How often deleted entries whose undo has ended are purged while Hearth runs."""
MISFIRE_GRACE = timedelta(hours=23)
JOBSTORE_TABLE = "apscheduler_jobs"
_PERSISTENT = "default"

Notify = Callable[[Notification], None]
Runner = Callable[[str, str, CancelToken], Any]
"""``(kind, trigger, cancel) -> report`` for "dream" and "reflect" (see
``HearthScheduler``)."""
Clock = Callable[[], datetime]


def job_store_table() -> Any:
    """The job store's table as APScheduler defines it (``hearth migrate`` copies it with
    the rest of the database); building the store connects nowhere."""
    return SQLAlchemyJobStore(url="sqlite://", tablename=JOBSTORE_TABLE).jobs_t


class SchedulerBusyError(HearthError):
    """Another scheduler already serves this data folder."""


@dataclass(frozen=True)
class JobResult:
    """The last thing a job did, for the tray tooltip and ``hearth daemon``'s log."""

    job_id: str
    finished_at: datetime
    ok: bool
    summary: str


_registry: dict[str, HearthScheduler] = {}
_registry_lock = threading.Lock()


def _key(hearth: Hearth) -> str:
    return str(hearth.paths.home.resolve())


def _registered(home: str) -> HearthScheduler:
    with _registry_lock:
        scheduler = _registry.get(home)
    if scheduler is None:
        raise SchedulerBusyError(f"No scheduler is running for {home} in this process.",
                                 "Start it with HearthScheduler.start() or `hearth daemon`.")
    return scheduler


def run_registered(home: str, job_id: str, trigger: str = "scheduled") -> str:
    """The function every stored job points at (docs/consolidation.md, "Scheduling")."""
    return _registered(home).run_job(job_id, trigger=trigger)


def quiet_time_over(home: str, session_id: str) -> None:
    """The function every stored session-quiet timer points at."""
    _registered(home).quiet_time_over(session_id)


class HearthScheduler:
    """Runs consolidation on a schedule for one open ``Hearth``.

    ``provider_factory`` is called once per job that needs a model, and the provider is
    closed afterwards: a nightly job should not hold a model connection all day.
    ``notify(notification)`` shows what delivery hands over (the tray's notification with
    its buttons, ``notify-send`` in ``hearth daemon``); without it they are logged.
    ``clock`` returns the aware "now" that delivery is measured against (``core.clock``'s
    by default; tests pin it); APScheduler keeps its own clock for firing. ``runner(kind,
    trigger)``, when given, runs the dream cycle and reflection ("dream" / "reflect")
    elsewhere and returns their report: the desktop runs them in a child process, so a
    nightly dream never competes with the window for the interpreter lock. It raises
    ``DreamAlreadyRunning`` like the cycle does, and stops when ``cancel`` is set.
    """

    def __init__(self, hearth: Hearth, provider_factory: Callable[[], LLMProvider], *,
                 notify: Notify | None = None, clock: Clock | None = None,
                 runner: Runner | None = None) -> None:
        self._hearth = hearth
        self._runner = runner
        self._provider_factory = provider_factory
        self._notify = notify or _log_notification
        self._clock = clock or utcnow
        self._home = _key(hearth)
        self._timezone: tzinfo = get_localzone()
        self._lock: FolderLock | None = None
        self._learning: LearningPipeline | None = None
        self._learning_lock = threading.Lock()
        self.last_result: JobResult | None = None
        self._stopping = CancelToken()
        self._scheduler = BackgroundScheduler(
            jobstores={
                _PERSISTENT: SQLAlchemyJobStore(engine=hearth.storage.write_engine(),
                                                tablename=JOBSTORE_TABLE)},
            executors={"default": ThreadPoolExecutor(max_workers=2)},
            job_defaults={"coalesce": True, "max_instances": 1,
                          "misfire_grace_time": int(MISFIRE_GRACE.total_seconds())},
            timezone=self._timezone)
        self.quiet_timers = QuietTimerJobs(self._scheduler, _PERSISTENT, quiet_time_over,
                                           (self._home,))
        """Persistent session-quiet timers, for ``attach_learning``."""

    # --- lifetime -------------------------------------------------------------------------

    def start(self) -> None:
        """Take the folder's scheduler lock, load the stored jobs, bring their triggers in
        line with the settings, then start firing (missed runs fire once, now)."""
        self._claim()
        try:
            self._scheduler.start(paused=True)
            self.reschedule()
            self._scheduler.resume()
        except BaseException:
            if self._scheduler.running:
                self._scheduler.shutdown(wait=False)
            self._release()
            raise
        log.info("scheduler started for %s (%s)", self._home, self._timezone)

    def stop_jobs(self) -> None:
        """Ask running (and any later) jobs to stop at their next safe point ("Stopping
        soon" in docs/consolidation.md). Call before ``shutdown(wait=True)`` to stop soon."""
        self._stopping.cancel()

    def shutdown(self, wait: bool = True) -> None:
        """Stop firing; with ``wait`` the running jobs finish first (soon, after
        ``stop_jobs``). Idempotent."""
        if self._scheduler.running:
            self._scheduler.shutdown(wait=wait)
        self._release()

    @property
    def running(self) -> bool:
        return bool(self._scheduler.running)

    # --- session-quiet timers ---------------------------------------------------------------

    def attach_learning(self, pipeline: LearningPipeline) -> None:
        """Give the assistant's learning pipeline the persistent quiet timers and let it
        close the sessions whose timers expire (in its queue, with its model). Attach the
        newest pipeline whenever the assistant is rebuilt; call after ``start``."""
        with self._learning_lock:
            self._learning = pipeline
        pipeline.use_timers(self.quiet_timers)

    def quiet_time_over(self, session_id: str) -> None:
        """A stored quiet timer expired: the attached pipeline closes the session, or, with
        none attached or it shut down, this thread does with a model of its own."""
        with self._learning_lock:
            pipeline = self._learning
        if pipeline is not None and pipeline.quiet_time_over(session_id):
            return
        providers: list[LLMProvider] = []

        def provider() -> LLMProvider:
            providers.append(self._provider_factory())
            return providers[-1]

        try:
            counts = close_session(self._hearth.learning(), session_id, provider)
        finally:
            for made in providers:
                made.close()
        log.info("quiet session %s closed here: %s", session_id, counts)

    # --- what the tray asks ---------------------------------------------------------------

    def triggers(self) -> dict[str, BaseTrigger]:
        """The trigger each scheduled job should have under the current settings."""
        settings = self._hearth.settings
        hour, minute = (int(part) for part in settings.dream_time.split(":"))
        tz = self._timezone
        triggers: dict[str, BaseTrigger] = {
            DREAM: CronTrigger(hour=hour, minute=minute, timezone=tz),
            DECAY: CronTrigger(hour=DECAY_TIME[0], minute=DECAY_TIME[1], timezone=tz),
            EVENT_PROCESSOR: IntervalTrigger(minutes=EVENT_PROCESSOR_MINUTES, timezone=tz),
            DELIVERY: CronTrigger(minute="*", timezone=tz),
            PURGE_DELETED: IntervalTrigger(minutes=PURGE_MINUTES, timezone=tz),
        }
        if settings.daily_briefing:
            hour, minute = (int(part) for part in settings.daily_briefing_time.split(":"))
            triggers[DAILY_BRIEFING] = CronTrigger(hour=hour, minute=minute, timezone=tz)
        return triggers

    def reschedule(self) -> None:
        """Bring the stored jobs in line with the settings (a new dream time, the briefing
        turned on or off) and remove the jobs of earlier versions."""
        wanted = self.triggers()
        for job_id, trigger in wanted.items():
            self._ensure(job_id, trigger)
        for job_id in (*RETIRED_JOBS, DAILY_BRIEFING):
            if job_id not in wanted and self._scheduler.get_job(job_id, _PERSISTENT):
                self._scheduler.remove_job(job_id, _PERSISTENT)
        self._hearth.storage.changes.publish(Changes.of(Domain.SCHEDULE))  # its own store

    def next_dream(self) -> datetime | None:
        """When the nightly dream cycle fires next (the tray and status bar show it)."""
        return self.next_run(DREAM)

    def next_run(self, job_id: str) -> datetime | None:
        """When the job fires next (local time), or None when it is not scheduled."""
        job = self._scheduler.get_job(job_id, _PERSISTENT)
        return None if job is None else job.next_run_time

    def run_job(self, job_id: str, *, trigger: str = "manual") -> str:
        """Run a job in the calling thread and return its one-line summary (what
        ``hearth daemon --once`` does; scheduled firings come through here too)."""
        self._check(job_id)
        if self._stopping.cancelled:
            log.info("%s not started: Hearth is stopping", job_id)
            return f"{job_id} skipped: Hearth is stopping"
        body: dict[str, Callable[[str], str]] = {
            DREAM: self._dream, DECAY: self._decay, EVENT_PROCESSOR: self._process_events,
            DELIVERY: self._deliver, DAILY_BRIEFING: self._brief, REFLECT: self._reflect,
            PURGE_DELETED: self._purge_deleted}
        try:
            summary = body[job_id](trigger)
        except BaseException as exc:
            self.last_result = JobResult(job_id, utcnow(), False, f"{type(exc).__name__}: {exc}")
            raise
        self.last_result = JobResult(job_id, utcnow(), True, summary)
        # an empty delivery pass, every minute, would bury everything else in the log
        log.log(logging.DEBUG if summary == NOTHING_DUE else logging.INFO, "%s: %s",
                job_id, summary)
        return summary

    # --- the jobs -------------------------------------------------------------------------

    def _dream(self, trigger: str) -> str:
        from core.consolidation.dream import DreamAlreadyRunning, DreamCycle

        def here() -> Any:
            provider = self._provider_factory()
            try:
                cycle = DreamCycle(self._hearth.consolidation(), provider)
                return cycle.run(trigger=trigger, cancel=self._stopping)
            finally:
                provider.close()

        try:
            report = (self._runner("dream", trigger, self._stopping) if self._runner
                      else here())
        except DreamAlreadyRunning as exc:
            log.info("dream cycle skipped: %s", exc)
            return f"skipped: {exc}"
        return f"dream run {report.run_id}: {report.status}"

    def _decay(self, trigger: str) -> str:
        from core.consolidation.decay import run_decay
        from core.consolidation.runs import RunRecorder

        recorder = RunRecorder(self._hearth.storage, "decay", trigger)
        try:
            with recorder.stage("decay") as counts:
                counts.update(run_decay(self._hearth.storage, self._hearth.settings))
        except BaseException as exc:
            recorder.fail(f"{type(exc).__name__}: {exc}", counts)
            raise
        recorder.finish(counts)
        return (f"decay run {recorder.run_id}: {counts['updated']} updated, "
                f"{counts['faded']} faded (lower in ranking, still found)")

    def _process_events(self, trigger: str) -> str:
        from core.consolidation.processor import MemoryProcessor
        from core.llm.capability import Job, profile_of

        provider = self._provider_factory()
        try:
            profile = profile_of(provider, self._hearth.settings.model_jobs)
            if not profile.may(Job.CONSOLIDATION):  # no run recorded every 15 minutes
                return f"processor: {profile.waits_because(Job.CONSOLIDATION)}"
            processor = MemoryProcessor(self._hearth.consolidation(), provider)
            report = processor.run(trigger=trigger, cancel=self._stopping)
        finally:
            provider.close()
        waiting = f" ({report.unavailable})" if report.unavailable else ""
        return (f"processor run {report.run_id}: {report.status}{waiting}, "
                f"{report.processed} of {report.events_seen} events, {report.failed} failed")

    def _reflect(self, trigger: str) -> str:
        from core.consolidation.dream import DreamAlreadyRunning, dream_lock
        from core.consolidation.reflection import ReflectionEngine

        def here() -> Any:
            provider = self._provider_factory()
            try:  # the dream cycle reflects too: never both at once (a learning counts once)
                with dream_lock(self._hearth.storage):
                    return ReflectionEngine(self._hearth.consolidation(), provider).run(
                        trigger=trigger, cancel=self._stopping)
            finally:
                provider.close()

        try:
            report = (self._runner("reflect", trigger, self._stopping) if self._runner
                      else here())
        except DreamAlreadyRunning:
            return "reflection skipped: the dream cycle is running and reflects itself"
        except LLMCancelled:
            return "reflection cancelled: Hearth is stopping (nothing was written)"
        if report.skipped:
            return f"reflection run {report.run_id}: skipped ({report.reason})"
        return (f"reflection run {report.run_id}: facts +{report.facts_added}, "
                f"follow_ups +{report.follow_ups_added}, habits +{report.habits_added}")

    def _purge_deleted(self, _trigger: str) -> str:
        """Deleted entries whose undo has ended go for good, also while the window stays
        open for days (``core.forgetting.recently_deleted``)."""
        purged = self._hearth.deleted.purge_expired()
        return f"purged {purged} deleted entr{'y' if purged == 1 else 'ies'}" if purged \
            else NOTHING_DUE

    def _deliver(self, _trigger: str) -> str:
        """One delivery pass: claim (marked delivered), show, then run the claimed prompts
        and show how each went."""
        due = delivery.claim_due(self._hearth.due_sources(), self._clock())
        if due.empty:
            return NOTHING_DUE
        for notification in due.notifications:
            self._show(notification)
        for prompt in due.prompts:
            self._show(run_prompt(
                prompt, self._provider_factory, storage=self._hearth.storage,
                conversation=lambda model: self._hearth.conversation(model,
                                                                    channel="scheduled")))
        kinds = [notification.kind for notification in due.notifications]
        return (f"{kinds.count(delivery.REMINDER)} reminder(s), "
                f"{kinds.count(delivery.TASK)} task alert(s), "
                f"{kinds.count(delivery.FOLLOW_UP)} follow-up(s), "
                f"{len(due.prompts)} scheduled prompt(s)")

    def _brief(self, _trigger: str) -> str:
        hearth = self._hearth
        notification = briefing.compose(self._clock(), tasks=hearth.tasks,
                                        reminders=hearth.reminders, follow_ups=hearth.follow_ups)
        briefing.post(hearth.storage, notification)
        self._show(notification)
        return notification.title

    def _show(self, notification: Notification) -> None:
        """Hand one notification over; a failing front end is logged, and the pass goes on
        (the item is already marked delivered: it is not shown twice, nor lost silently)."""
        try:
            self._notify(notification)
        except Exception:
            log.exception("could not show %s", notification.key)

    # --- internals ------------------------------------------------------------------------

    def _ensure(self, job_id: str, trigger: BaseTrigger) -> None:
        """Keep a stored job whose trigger is unchanged (its next run time, possibly in
        the past, is the catch-up); otherwise (new, or settings changed) replace it."""
        stored = self._scheduler.get_job(job_id, _PERSISTENT)
        if stored is not None and stored.args == (self._home, job_id) \
                and _same_schedule(stored.trigger, trigger):
            return
        self._scheduler.add_job(run_registered, trigger=trigger, args=(self._home, job_id),
                                id=job_id, name=job_id, jobstore=_PERSISTENT,
                                replace_existing=True)

    def _check(self, job_id: str) -> None:
        if job_id not in ON_DEMAND_JOBS:
            raise InvalidInputError(f"{job_id!r} is not a Hearth job.",
                                    f"Use one of: {', '.join(ON_DEMAND_JOBS)}.")

    def _claim(self) -> None:
        with _registry_lock:
            if self._home in _registry:
                raise SchedulerBusyError(f"A scheduler is already running for {self._home}.",
                                         "Use the running one; shut it down first to restart.")
            busy = SchedulerBusyError(
                f"Another Hearth process already runs the schedule for {self._home}.",
                "Quit the other Hearth window or `hearth daemon`; one is enough.")
            self._lock = FolderLock(self._hearth.paths.home, exclusive=True,
                                    name="scheduler.lock", busy=busy)
            _registry[self._home] = self

    def _release(self) -> None:
        with _registry_lock:
            if _registry.get(self._home) is self:
                del _registry[self._home]
            if self._lock is not None:
                self._lock.release()
                self._lock = None


def _same_schedule(stored: BaseTrigger, wanted: BaseTrigger) -> bool:
    """Same fields and zone; ``str`` leaves out the zone, ``repr`` adds an interval's start
    (which differs on every start and would reset the interval's catch-up)."""
    return (type(stored) is type(wanted) and str(stored) == str(wanted)
            and str(getattr(stored, "timezone", "")) == str(getattr(wanted, "timezone", "")))


def _log_notification(notification: Notification) -> None:
    log.info("notification %s", notification.key)
