"""``hearth daemon``: the consolidation schedule without the desktop app.

For a headless machine or a server: the same ``HearthScheduler`` the tray runs, in the
foreground, logging to stderr and ``<home>/logs/daemon.log``, until SIGINT or SIGTERM
(systemd's stop), when it lets a running job finish and exits cleanly. ``--once JOB`` runs
one job now, in this process, and exits: for cron, systemd timers and scripts.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Annotated, Optional

import typer

from core.cli import output
from core.cli.context import opened
from core.llm.selection import build_provider
from core.scheduling import ON_DEMAND_JOBS, HearthScheduler

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
_STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def daemon(once: Annotated[Optional[str], typer.Option(
        "--once", metavar="JOB",
        help=f"Run one job now and exit ({', '.join(ON_DEMAND_JOBS)}).")] = None) -> None:
    """Run the consolidation schedule in the foreground (dream cycle nightly at dream_time,
    decay daily, events every 15 minutes, intention follow-ups hourly) until Ctrl-C."""
    with opened() as hearth, _logging_to(hearth.paths.home / "logs" / "daemon.log"):
        scheduler = HearthScheduler(hearth, lambda: build_provider(hearth.settings))
        if once is not None:
            output.stdout.print(scheduler.run_job(once, trigger="scheduled"),
                                highlight=False, markup=False)
            return
        stop = threading.Event()
        with _stopping_on_signals(stop):
            scheduler.start()
            try:
                for job_id in scheduler.triggers():
                    logging.getLogger(__name__).info("%s next runs at %s", job_id,
                                                     scheduler.next_run(job_id))
                while not stop.wait(1.0):
                    pass
            finally:
                scheduler.shutdown(wait=True)
        logging.getLogger(__name__).info("scheduler stopped")


@contextmanager
def _stopping_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGINT and SIGTERM set ``stop`` instead of killing the process mid-job."""
    def handle(signum: int, _frame: FrameType | None) -> None:
        logging.getLogger(__name__).info("%s received, stopping",
                                         signal.Signals(signum).name)
        stop.set()

    previous = {sig: signal.signal(sig, handle) for sig in _STOP_SIGNALS}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


@contextmanager
def _logging_to(log_file: Path) -> Iterator[None]:
    """INFO and up from ``core`` and ``apscheduler`` to stderr and the daemon's log file,
    for this command only."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    handlers: list[logging.Handler] = [logging.StreamHandler(),
                                       logging.FileHandler(log_file, encoding="utf-8")]
    loggers = [logging.getLogger(name) for name in ("core", "apscheduler")]
    levels = [logger.level for logger in loggers]
    for handler in handlers:
        handler.setFormatter(logging.Formatter(LOG_FORMAT))
    for logger in loggers:
        logger.setLevel(logging.INFO)
        for handler in handlers:
            logger.addHandler(handler)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels):
            logger.setLevel(level)
            for handler in handlers:
                logger.removeHandler(handler)
        for handler in handlers:
            handler.close()
