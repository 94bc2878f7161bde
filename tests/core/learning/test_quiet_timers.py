"""Session-quiet timers on APScheduler: in memory for the CLI, persistent in the app's job
store under a ``HearthScheduler``, so a session left open by a crash is still summarised
after the next start.

The model is scripted; storage, embeddings and APScheduler are real. The crash is a real
one: a subprocess killed with SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy import text
from support.scripted_llm import ScriptedLLM

from core.app import Hearth
from core.learning.pipeline import LearningPipeline
from core.learning.quiet_timers import QUIET_PREFIX, QuietTimerJobs
from core.scheduling import JOBSTORE_TABLE, HearthScheduler
from core.storage.orm import ChatSession, Interaction, utcnow

ROOT = Path(__file__).resolve().parents[3]
NOTHING = json.dumps({"facts": []})
DIGEST = json.dumps({"summaries": [{"topic": "Garden", "summary": "Planting tomatoes in May."}],
                     "candidates": []})


def exchange(hearth: Hearth, session_id: str, user: str) -> int:
    with hearth.storage.write() as session:
        if session.get(ChatSession, session_id) is None:
            session.add(ChatSession(id=session_id, title="test"))
        row = Interaction(session_id=session_id, user_message=user, agent_response="Noted.")
        session.add(row)
        session.flush()
        return row.id


def wait_until(condition: Callable[[], bool], timeout: float = 20.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def closed(hearth: Hearth, session_id: str) -> bool:
    with hearth.storage.read() as session:
        return session.get(ChatSession, session_id).closed_at is not None


def stored_quiet_timers(hearth: Hearth) -> list[str]:
    with hearth.storage.read() as session:
        return sorted(session.execute(text(
            f"SELECT id FROM {JOBSTORE_TABLE} WHERE id LIKE '{QUIET_PREFIX}%'")).scalars())


def overdue_while_down(hearth: Hearth, job_id: str) -> None:
    """The hour passed while no process ran: the stored job's next run moves to the past
    (no scheduler is running that could fire it meanwhile)."""
    store = SQLAlchemyJobStore(engine=hearth.storage.write_engine(), tablename=JOBSTORE_TABLE)
    store.start(BackgroundScheduler(), "default")
    job = store.lookup_job(job_id)
    job.next_run_time = utcnow() - timedelta(minutes=1)
    store.update_job(job)


def summaries(hearth: Hearth) -> list[str]:
    return [note.title for note in hearth.notes.list(summaries_only=True)]


def test_in_memory_timers_fire_restart_and_cancel() -> None:
    """Expiry is read back, never waited for: timers an hour away cannot fire during the
    test, and the one that must fire is due at once."""
    fired: list[str] = []
    done = threading.Event()

    def fire(session_id: str) -> None:
        fired.append(session_id)
        done.set()

    timers = QuietTimerJobs.in_memory(fire)
    try:
        armed = utcnow()
        timers.restart("a", timedelta(hours=1))
        timers.restart("b", timedelta(hours=1))
        timers.cancel("b")
        timers.cancel("never-armed")  # nothing to cancel is not an error
        assert set(timers.pending()) == {"a"}
        first = timers.pending()["a"]
        assert armed + timedelta(hours=1) <= first <= utcnow() + timedelta(hours=1)
        timers.restart("a", timedelta(hours=2))  # new activity pushes it back, not a second
        assert set(timers.pending()) == {"a"}
        assert timers.pending()["a"] >= first + timedelta(hours=1)
        timers.restart("c", timedelta(0))  # quiet long enough: fires now
        assert done.wait(20)
        assert wait_until(lambda: set(timers.pending()) == {"a"})
        assert fired == ["c"]
    finally:
        timers.close()


def test_the_pipeline_alone_closes_a_quiet_session(hearth) -> None:
    """On its own in-memory timers; the quiet time passing is the timer re-armed to now."""
    made: list[QuietTimerJobs] = []

    def in_memory(fire: Callable[[str], object]) -> QuietTimerJobs:
        made.append(QuietTimerJobs.in_memory(fire))
        return made[-1]

    pipeline = LearningPipeline(hearth.learning(), ScriptedLLM([NOTHING, NOTHING, DIGEST]),
                                quiet_seconds=3600, timers=in_memory)
    for message in ("Tomatoes this year?", "Planting them in May."):
        pipeline.exchange_completed(exchange(hearth, "s1", message), "s1")
    assert set(made[0].pending()) == {"s1"}
    made[0].restart("s1", timedelta(0))  # as if the hour had passed
    assert wait_until(lambda: pipeline.stats.sessions_closed == 1)
    assert pipeline.drain(timeout=60)
    assert summaries(hearth) == ["Summary: Garden"]
    assert pipeline.shutdown(timeout=60)
    assert pipeline.stats.sessions_closed == 1  # quitting does not close it twice


def test_attached_to_the_scheduler_timers_are_stored_and_fire(hearth) -> None:
    pipeline = LearningPipeline(hearth.learning(), ScriptedLLM([NOTHING, NOTHING, DIGEST]),
                                quiet_seconds=3600)
    scheduler = HearthScheduler(hearth, ScriptedLLM)
    try:
        # the assistant was quicker than the schedule: its first timer moves over
        pipeline.exchange_completed(exchange(hearth, "s1", "Tomatoes this year?"), "s1")
        scheduler.start()
        scheduler.attach_learning(pipeline)
        assert stored_quiet_timers(hearth) == ["quiet:s1"]
        pipeline.exchange_completed(exchange(hearth, "s1", "Planting them in May."), "s1")
        assert stored_quiet_timers(hearth) == ["quiet:s1"]  # re-armed, not duplicated
        scheduler.quiet_timers.restart("s1", timedelta(0))  # as if the hour had passed
        assert wait_until(lambda: closed(hearth, "s1"))
        assert pipeline.drain(timeout=60)
        assert pipeline.stats.sessions_closed == 1
        assert summaries(hearth) == ["Summary: Garden"]
        assert stored_quiet_timers(hearth) == []
    finally:
        pipeline.shutdown(timeout=60)
        scheduler.shutdown()


def test_new_chat_cancels_the_stored_timer_and_quitting_closes_at_once(hearth) -> None:
    pipeline = LearningPipeline(hearth.learning(), ScriptedLLM([NOTHING] * 4 + [DIGEST]),
                                quiet_seconds=3600)
    scheduler = HearthScheduler(hearth, ScriptedLLM)
    scheduler.start()
    try:
        scheduler.attach_learning(pipeline)
        for session_id in ("s1", "s2"):
            for message in ("Tomatoes this year?", "Planting them in May."):
                pipeline.exchange_completed(exchange(hearth, session_id, message), session_id)
        assert stored_quiet_timers(hearth) == ["quiet:s1", "quiet:s2"]
        pipeline.session_ended("s1")
        assert stored_quiet_timers(hearth) == ["quiet:s2"]
        assert pipeline.shutdown(timeout=60)
        assert closed(hearth, "s1") and closed(hearth, "s2")
        assert stored_quiet_timers(hearth) == []
    finally:
        scheduler.shutdown()


def test_a_timer_outliving_its_pipeline_is_handled_by_the_scheduler(hearth) -> None:
    """The desktop rebuilds its assistant (a new model): the old pipeline stops without
    closing sessions, and a timer expiring before the new one is attached still closes."""
    pipeline = LearningPipeline(hearth.learning(),
                                ScriptedLLM([NOTHING, NOTHING]), quiet_seconds=3600)
    scheduler = HearthScheduler(hearth, lambda: ScriptedLLM([DIGEST]))
    scheduler.start()
    try:
        scheduler.attach_learning(pipeline)
        for message in ("Tomatoes this year?", "Planting them in May."):
            pipeline.exchange_completed(exchange(hearth, "s1", message), "s1")
        assert pipeline.shutdown(timeout=60, close_sessions=False)
        assert not closed(hearth, "s1") and stored_quiet_timers(hearth) == ["quiet:s1"]
        scheduler.quiet_timers.restart("s1", timedelta(seconds=0.2))  # as if 30 min passed
        assert wait_until(lambda: summaries(hearth) == ["Summary: Garden"])
        assert pipeline.stats.sessions_closed == 0  # the scheduler closed it, not the pipeline
    finally:
        scheduler.shutdown()


CRASHING_APP = """
import json, sys, time
from pathlib import Path
sys.path.insert(0, {support!r})
from support.scripted_llm import ScriptedLLM
from core.app import Hearth
from core.learning.pipeline import LearningPipeline
from core.scheduling import HearthScheduler
from core.storage.orm import ChatSession, Interaction

hearth = Hearth.open(Path({home!r}))
pipeline = LearningPipeline(hearth.learning(), ScriptedLLM([json.dumps({{"facts": []}})] * 2),
                            quiet_seconds=3600)
scheduler = HearthScheduler(hearth, ScriptedLLM)
scheduler.start()
scheduler.attach_learning(pipeline)
for message in ("Tomatoes this year?", "Planting them in May."):
    with hearth.storage.write() as session:
        if session.get(ChatSession, "s1") is None:
            session.add(ChatSession(id="s1", title="garden"))
        row = Interaction(session_id="s1", user_message=message, agent_response="Noted.")
        session.add(row)
        session.flush()
        interaction_id = row.id
    pipeline.exchange_completed(interaction_id, "s1")
pipeline.drain(60)
print("ready", flush=True)
time.sleep(600)
"""


def test_a_timer_left_by_a_killed_process_closes_the_session_after_restart(
        isolated_home: Path, embedder) -> None:
    script = CRASHING_APP.format(support=str(ROOT / "tests"), home=str(isolated_home))
    app = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)})
    try:
        assert app.stdout.readline().strip() == "ready", app.stderr.read()
    finally:
        app.send_signal(signal.SIGKILL)  # before its quiet timer expires
        app.wait(30)
    with Hearth.open(isolated_home, embedder=embedder) as hearth:
        assert not closed(hearth, "s1")
        assert stored_quiet_timers(hearth) == ["quiet:s1"]
        overdue_while_down(hearth, "quiet:s1")  # the restart must catch up
        made: list[ScriptedLLM] = []

        def provider() -> ScriptedLLM:
            made.append(ScriptedLLM([DIGEST]))
            return made[-1]

        scheduler = HearthScheduler(hearth, provider)  # no assistant yet: it closes itself
        scheduler.start()
        try:
            assert wait_until(lambda: closed(hearth, "s1"))
            assert wait_until(lambda: summaries(hearth) == ["Summary: Garden"])
            assert stored_quiet_timers(hearth) == []
            assert len(made) == 1
        finally:
            scheduler.shutdown()
