"""``hearth daemon``: the consolidation schedule without the desktop app.

For a headless machine or a server: the same ``HearthScheduler`` the tray runs, in the
foreground, logging to stderr and ``<home>/logs/daemon.log``, until SIGINT or SIGTERM
(systemd's stop). ``--once JOB`` runs one job now, in this process, and exits: for cron,
systemd timers and scripts.

Delivery (reminders, task alerts, follow-ups, scheduled prompts; every minute) shows its
notifications with ``notify-send`` where the desktop has it, and logs each one either way
(``cli.notify``).

Stopping, in both modes: the first SIGINT or SIGTERM asks a running job to stop at its next
safe point (a dream between or inside stages, recorded ``cancelled`` and resumed by the
next one; the processor between batches or during a model call, its batch left pending)
and the daemon exits 0 once it has. A job that has not stopped within ``--stop-timeout``
seconds (a model that sends nothing, so there is no point at which to notice) does not
keep the process: it exits 1 saying so, and the next command marks the job's run
``interrupted``. A second signal exits at once (128 + the signal's number).
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer

from cli import notify, output
from cli.context import opened
from core.job_names import DELIVERY, ON_DEMAND_JOBS
from core.log_privacy import LogFormat, announce

if TYPE_CHECKING:
    from core.scheduling import HearthScheduler

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)
STOP_TIMEOUT = 60.0
"""Seconds a running job gets to reach a safe point: under systemd's default stop timeout
(90 s), after which systemd would kill the process without a word in the log."""
EXIT_STUCK = 1

log = logging.getLogger(__name__)


def daemon(once: Annotated[str | None, typer.Option(
               "--once", metavar="JOB",
               help=f"Run one job now and exit ({', '.join(ON_DEMAND_JOBS)}).")] = None,
           stop_timeout: Annotated[float, typer.Option(
               "--stop-timeout", metavar="SECONDS", min=0,
               help="After SIGTERM or Ctrl-C, how long a running job may take to stop at a "
                    "safe point before the daemon exits without it.")] = STOP_TIMEOUT,
           ) -> None:
    """Run the schedule in the foreground (dream cycle nightly at dream_time, decay daily,
    events every 15 minutes, reminders, task alerts, follow-ups and scheduled prompts
    every minute, shown with notify-send where there is one) until Ctrl-C or SIGTERM; a
    running job stops at its next safe point first."""
    from core.operations.models import configured_provider
    from core.scheduling import HearthScheduler

    with opened() as hearth, output.notices_paused(*output.OWN_LOGGERS), \
            _logging_to(hearth.paths.home / "logs" / "daemon.log"):
        scheduler = HearthScheduler(hearth, lambda: configured_provider(hearth.settings),
                                    notify=notify.notify)
        stop = threading.Event()
        with _stopping_on_signals(scheduler, stop, stop_timeout):
            if once is not None:
                output.stdout.print(scheduler.run_job(once, trigger="scheduled"),
                                    highlight=False, markup=False)
                return
            scheduler.start()
            try:
                for job_id in scheduler.triggers():
                    log.info("%s next runs at %s", job_id, scheduler.next_run(job_id))
                while not stop.wait(1.0):
                    pass
            finally:
                scheduler.stop_jobs()
                scheduler.shutdown(wait=True)
        log.info("scheduler stopped")


@contextmanager
def _stopping_on_signals(scheduler: HearthScheduler, stop: threading.Event,
                         timeout: float) -> Iterator[None]:
    """The first SIGINT or SIGTERM sets ``stop``, asks the running job to stop at a safe
    point and starts the clock on it (stopped when this block ends); a second one exits at
    once."""
    left = threading.Event()

    def handle(signum: int, _frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if stop.is_set():
            log.warning("%s received again: exiting now", name)
            os._exit(128 + signum)
        log.info("%s received, stopping: a running job stops at its next safe point "
                 "(waiting up to %g s)", name, timeout)
        stop.set()
        scheduler.stop_jobs()
        threading.Thread(target=_exit_unless, args=(left, timeout),
                         name="hearth-stop-timeout", daemon=True).start()

    previous = {sig: signal.signal(sig, handle) for sig in _STOP_SIGNALS}
    try:
        yield
    finally:
        left.set()
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _exit_unless(stopped: threading.Event, timeout: float) -> None:
    """Runs in a daemon thread: when the jobs have not ``stopped`` within ``timeout``, one
    is stuck (a model that sends nothing), so the process exits without it. Its run stays
    ``running`` until the next command marks it interrupted (``core.storage.liveness``)."""
    if stopped.wait(timeout):
        return
    log.error("The running job did not stop within %g s; exiting without it (its run is "
              "marked interrupted by the next command, and a dream resumes next time).",
              timeout)
    os._exit(EXIT_STUCK)


def quiet_delivery(record: logging.LogRecord) -> bool:
    """False for APScheduler's "Running job" / "executed successfully" lines of the
    every-minute delivery job (the log filter of ``_logging_to``)."""
    return not (record.name.startswith("apscheduler.executors")
                and f'"{DELIVERY} (' in record.getMessage())


@contextmanager
def _logging_to(log_file: Path) -> Iterator[None]:
    """INFO and up from Hearth's own code (``output.OWN_LOGGERS``: ``core``, and ``cli``,
    where this command's own lines come from) and ``apscheduler`` to stderr and the
    daemon's log file, for this command only, without APScheduler's two lines per minute
    for the delivery job (``quiet_delivery``; a pass that delivers something logs what it
    delivered).
    Neither holds the user's words (``core.log_privacy``): stderr is the journal, on
    disk, under systemd."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handlers: list[logging.Handler] = [logging.StreamHandler(),
                                       logging.FileHandler(log_file, encoding="utf-8")]
    loggers = [logging.getLogger(name) for name in (*output.OWN_LOGGERS, "apscheduler")]
    levels = [logger.level for logger in loggers]
    for handler in handlers:
        handler.setFormatter(LogFormat(LOG_FORMAT))
        handler.addFilter(quiet_delivery)
    for logger in loggers:
        logger.setLevel(logging.INFO)
        for handler in handlers:
            logger.addHandler(handler)
    announce(loggers[0])
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)
            for handler in handlers:
                logger.removeHandler(handler)
        for handler in handlers:
            handler.close()
