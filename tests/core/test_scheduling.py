"""The schedule: jobs and triggers, the job store in the app's database, catch-up after a
missed run, rationed follow-ups, and ``hearth daemon`` (``--once`` and a clean SIGTERM)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace

import pytest
import typer
from apscheduler.events import EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import func, select, text
from support.scripted_llm import ScriptedLLM
from typer.testing import CliRunner

from core.app import Hearth
from cli.daemon_cmd import daemon
from core.config import Settings
from core.errors import InvalidInputError
from core.daily.delivery import Notification
from core.knowledge.follow_ups import FollowUpService
from core.llm import CancelToken
from core import clock
from core.scheduling import (
    DECAY, DELIVERY, DREAM, EVENT_PROCESSOR, JOBSTORE_TABLE, PURGE_DELETED, SCHEDULED_JOBS,
    HearthScheduler, SchedulerBusyError,
)
from core.storage.orm import Memory, Run
from core.storage.sqlite.engine import open_engine

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 3, 10, 9, 30, tzinfo=timezone.utc)


@pytest.fixture
def hearth(migrated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(migrated_home, settings=Settings(dream_time="03:15",
                                                      follow_ups_per_day=2),
                     embedder=embedder) as opened:
        yield opened


@pytest.fixture
def scheduler(hearth: Hearth) -> Iterator[HearthScheduler]:
    made = HearthScheduler(hearth, ScriptedLLM)
    yield made
    made.shutdown(wait=True)


def stored_job_ids(hearth: Hearth) -> list[str]:
    with hearth.storage.read() as session:
        return sorted(session.execute(text(f"SELECT id FROM {JOBSTORE_TABLE}")).scalars())


def test_jobs_are_registered_with_their_triggers(hearth, scheduler) -> None:
    scheduler.start()
    assert stored_job_ids(hearth) == sorted(SCHEDULED_JOBS)
    local = datetime.now().astimezone()
    dream = scheduler.next_run(DREAM)
    assert (dream.hour, dream.minute) == (3, 15)
    assert timedelta(0) < dream - local <= timedelta(days=1)
    assert (scheduler.next_run(DECAY).hour, scheduler.next_run(DECAY).minute) == (14, 0)
    assert timedelta(0) < scheduler.next_run(EVENT_PROCESSOR) - local <= timedelta(minutes=15)
    deliver = scheduler.next_run(DELIVERY)
    assert deliver.second == 0 and timedelta(0) < deliver - local <= timedelta(minutes=1)
    triggers = scheduler.triggers()
    assert isinstance(triggers[DREAM], CronTrigger)
    assert isinstance(triggers[EVENT_PROCESSOR], IntervalTrigger)
    assert scheduler.next_run("no-such-job") is None


def test_the_store_survives_a_restart_without_duplicates(hearth, embedder) -> None:
    first = HearthScheduler(hearth, ScriptedLLM)
    first.start()
    planned = {job_id: first.next_run(job_id) for job_id in SCHEDULED_JOBS}
    first.shutdown()
    second = HearthScheduler(hearth, ScriptedLLM)
    second.start()
    try:
        assert stored_job_ids(hearth) == sorted(SCHEDULED_JOBS)
        restarted = {job_id: second.next_run(job_id) for job_id in SCHEDULED_JOBS}
        moved = {job_id for job_id in SCHEDULED_JOBS if restarted[job_id] != planned[job_id]}
        # the every-minute delivery may come round once while the scheduler restarts (a
        # minute boundary between the two starts); nothing else moves
        assert moved <= {DELIVERY}
        assert all(restarted[job] - planned[job] == timedelta(minutes=1) for job in moved)
    finally:
        second.shutdown()


def test_a_changed_dream_time_replaces_the_stored_trigger(hearth) -> None:
    first = HearthScheduler(hearth, ScriptedLLM)
    first.start()
    first.shutdown()
    hearth.settings = hearth.settings.model_copy(update={"dream_time": "23:45"})
    second = HearthScheduler(hearth, ScriptedLLM)
    second.start()
    try:
        assert (second.next_run(DREAM).hour, second.next_run(DREAM).minute) == (23, 45)
        assert stored_job_ids(hearth) == sorted(SCHEDULED_JOBS)
    finally:
        second.shutdown()


def test_a_missed_run_is_caught_up_exactly_once(hearth) -> None:
    """The machine slept through several 15-minute slots and a daily decay: each job runs
    once when the scheduler comes back, not once per missed slot."""
    first = HearthScheduler(hearth, ScriptedLLM)
    first.start()
    first.shutdown()
    # While the app is off, the stored jobs fall behind: written straight into the table,
    # with no scheduler running that could fire them here.
    store = SQLAlchemyJobStore(engine=open_engine(hearth.paths.database),
                               tablename=JOBSTORE_TABLE)
    store.start(BackgroundScheduler(), "default")
    past = datetime.now().astimezone() - timedelta(hours=5)
    for job_id in (DECAY, EVENT_PROCESSOR):
        job = store.lookup_job(job_id)
        job.next_run_time = past
        store.update_job(job)
    store.shutdown()

    ran: list[str] = []
    done = threading.Event()
    second = HearthScheduler(hearth, ScriptedLLM)

    def executed(event: JobExecutionEvent) -> None:
        ran.append(event.job_id)
        if {DECAY, EVENT_PROCESSOR} <= set(ran):
            done.set()

    second._scheduler.add_listener(executed, EVENT_JOB_EXECUTED)
    second.start()
    try:
        assert done.wait(15)
        assert second.next_run(EVENT_PROCESSOR) > datetime.now().astimezone()
    finally:
        second.shutdown(wait=True)  # an uncoalesced firing would be in the same submission
    assert sorted(ran) == [DECAY, EVENT_PROCESSOR]
    with hearth.storage.read() as session:
        kinds = sorted(session.scalars(select(Run.kind)))
    assert kinds == ["decay", "processor"]


def test_follow_ups_notify_at_most_the_daily_ration(hearth) -> None:
    follow_ups = FollowUpService(hearth.storage, hearth.settings)
    for item in ("call the dentist", "renew the passport", "water the plants"):
        follow_ups.add(item, follow_up_at=NOW - timedelta(hours=2))
    shown: list[Notification] = []
    scheduler = HearthScheduler(hearth, ScriptedLLM, notify=shown.append, clock=lambda: NOW)
    assert scheduler.run_job(DELIVERY) == (
        "0 reminder(s), 0 task alert(s), 2 follow-up(s), 0 scheduled prompt(s)")
    assert scheduler.run_job(DELIVERY) == "nothing due"
    assert [(n.title, n.body) for n in shown] == [("You meant to…", "call the dentist"),
                                                   ("You meant to…", "renew the passport")]
    assert scheduler.last_result.ok and scheduler.last_result.job_id == DELIVERY


def test_unknown_jobs_and_a_second_scheduler_are_refused(hearth, scheduler) -> None:
    with pytest.raises(InvalidInputError):
        scheduler.run_job("sleep")
    scheduler.start()
    with pytest.raises(SchedulerBusyError):
        HearthScheduler(hearth, ScriptedLLM).start()


def test_a_failing_job_is_reported_in_last_result(hearth) -> None:
    def no_model() -> ScriptedLLM:
        raise RuntimeError("no model configured")

    scheduler = HearthScheduler(hearth, no_model)
    with pytest.raises(RuntimeError):
        scheduler.run_job(EVENT_PROCESSOR)
    assert not scheduler.last_result.ok
    assert "no model configured" in scheduler.last_result.summary


@pytest.mark.filterwarnings(  # SQLite's reflection skips it; include_object leaves it out
    "ignore:Skipped unsupported reflection of expression-based index ix_memories_import_batch")
def test_the_job_table_does_not_upset_the_migration_check(hearth, scheduler) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    from core.storage import migrate, orm

    scheduler.start()
    assert stored_job_ids(hearth)
    with hearth.storage.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={
            "include_object": migrate.include_object, "compare_type": True})
        assert compare_metadata(context, orm.Base.metadata) == []


def test_daemon_once_runs_decay_and_records_it(isolated_home: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    with Hearth.open(isolated_home) as hearth, hearth.storage.write() as session:
        old = datetime.now(timezone.utc) - timedelta(days=400)
        session.add(Memory(content="a parking spot from last year", created_at=old,
                           learned_at=old, updated_at=old))
    app = typer.Typer()
    app.command()(daemon)
    result = CliRunner().invoke(app, ["--once", "decay"])
    assert result.exit_code == 0, result.output
    assert "1 faded (lower in ranking, still found)" in result.output
    with Hearth.open(isolated_home) as hearth, hearth.storage.read() as session:
        assert session.scalar(select(func.count()).select_from(Run).where(
            Run.kind == "decay", Run.status == "done")) == 1
        faded = session.execute(select(Memory.is_valid, Memory.strength)).one()
        assert faded.is_valid and faded.strength < 0.05  # weaker, never out of reach
    assert "decay run" in (isolated_home / "logs" / "daemon.log").read_text()


def test_daemon_runs_until_sigterm_then_stops_cleanly(isolated_home: Path) -> None:
    code = "import typer; from cli.daemon_cmd import daemon; typer.run(daemon)"
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stderr=subprocess.PIPE,
                            text=True, env={**os.environ, "HEARTH_HOME": str(isolated_home)})
    try:
        lines: list[str] = []
        for line in proc.stderr:
            lines.append(line)
            if "scheduler started" in line:
                break
        proc.send_signal(signal.SIGTERM)
        _, rest = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, "".join(lines) + rest
    assert "SIGTERM received, stopping" in rest and "scheduler stopped" in rest


def test_the_dream_job_runs_the_cycle_and_skips_while_another_holds_the_lock(hearth) -> None:
    from core.consolidation.dream import dream_lock

    scheduler = HearthScheduler(hearth, ScriptedLLM)
    with dream_lock(hearth.storage):
        assert scheduler.run_job(DREAM).startswith("skipped: ")
    with hearth.storage.read() as session:
        assert session.scalar(select(func.count()).select_from(Run)) == 0
    summary = scheduler.run_job(DREAM)
    assert re.fullmatch(r"dream run \d+: (done|partial)", summary), summary


def test_stop_jobs_reaches_a_running_job_and_later_ones_do_not_start(hearth) -> None:
    """What `hearth daemon` and quitting the window do on the way out."""
    seen: list[CancelToken] = []

    def runner(kind: str, _trigger: str, cancel: CancelToken) -> SimpleNamespace:
        scheduler.stop_jobs()  # the stop comes while the dream runs
        seen.append(cancel)
        return SimpleNamespace(run_id=7, status="cancelled" if cancel.cancelled else "done")

    scheduler = HearthScheduler(hearth, ScriptedLLM, runner=runner)
    assert scheduler.run_job(DREAM) == "dream run 7: cancelled"
    assert seen[0].cancelled
    assert scheduler.run_job(DECAY) == "decay skipped: Hearth is stopping"
    with hearth.storage.read() as session:
        assert session.scalar(select(func.count()).select_from(Run)) == 0


def test_the_schedule_purges_deleted_entries_whose_undo_has_ended(hearth, scheduler) -> None:
    """Also while the window stays open for days: every 5 minutes, not only at open."""
    hearth.facts.remember("locker_code", "4471")
    hearth.deleted.delete_fact("locker_code")
    assert scheduler.run_job(PURGE_DELETED) == "nothing due"  # its undo has not ended
    assert len(hearth.deleted.listed()) == 1
    with clock.shifted(timedelta(minutes=31)):
        assert scheduler.run_job(PURGE_DELETED) == "purged 1 deleted entry"
    assert hearth.deleted.listed() == []
    assert isinstance(scheduler.triggers()[PURGE_DELETED], IntervalTrigger)
