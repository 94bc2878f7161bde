"""`hearth daemon` and SIGTERM: a running job stops at its next safe point and the daemon
exits cleanly (a dream is recorded ``cancelled`` and resumes next time); a job that cannot
reach one within ``--stop-timeout`` does not keep the process; a second signal exits at
once.

The job is the nightly dream, made overdue so the daemon catches it up as it starts; its
first model call goes to ``FakeOllama``, which answers slowly (a part a second: a cancel is
noticed between parts) or not at all (stuck)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from support.fake_ollama import FakeOllama, FakeReply
from support.scripted_llm import ScriptedLLM
from test_stale_states import MODEL, kill, ollama_env, start_hearth, until

from core.app import Hearth
from core.learning.events import add_event
from core.scheduling import DREAM, JOBSTORE_TABLE, HearthScheduler
from core.storage.sqlite.engine import open_engine
from reliability.conftest import CliRunner

PROCESSED = json.dumps({"updated_scaffold": {"Hobbies": "pottery"},
                        "updated_working_memory": "The user took up pottery.",
                        "facts_to_embed": []})
SLOW = FakeReply(chunks=list(PROCESSED), delay=0.5)  # a minute of answer, half a second a part
STUCK = FakeReply(text=PROCESSED, delay=600)         # nothing arrives: no safe point to reach
PROMPTLY = 20.0
"""Seconds a clean stop may take here (the slow answer alone would take a minute)."""


@pytest.fixture
def ollama() -> Iterator[FakeOllama]:
    server = FakeOllama(models=[MODEL]).start()
    yield server
    server.stop()


def with_a_pending_event(home: Path, embedder: Any) -> None:
    with Hearth.open(home, embedder=embedder) as hearth:
        add_event(hearth.storage, "observation", "Took up pottery.", {"source": "tool"})


def dream_overdue(home: Path, embedder: Any) -> None:
    """Store the schedule, then move the nightly dream into the past: the next scheduler to
    start catches it up at once (as after a night the machine slept through)."""
    with Hearth.open(home, embedder=embedder) as hearth:
        scheduler = HearthScheduler(hearth, ScriptedLLM)
        scheduler.start()
        scheduler.shutdown()
    store = SQLAlchemyJobStore(engine=open_engine(home / "hearth.db"), tablename=JOBSTORE_TABLE)
    store.start(BackgroundScheduler(), "default")
    job = store.lookup_job(DREAM)
    job.next_run_time = datetime.now().astimezone() - timedelta(hours=3)
    store.update_job(job)
    store.shutdown()


def dream_runs(hearth_cli: CliRunner, home: Path) -> list[dict[str, Any]]:
    listed = hearth_cli(home, "runs", "--kind", "dream", "--json")
    listed.assert_ok()
    return json.loads(listed.out)


@contextmanager
def dreaming(home: Path, ollama: FakeOllama, *args: str) -> Iterator[subprocess.Popen[bytes]]:
    """``hearth ARGS`` started on ``home``, handed over once its dream has asked the model;
    killed at the end if the test left it running."""
    process = start_hearth(home, ollama_env(ollama), *args)
    try:
        until(lambda: ollama.chat_requests(), "the dream asked the model", process)
        yield process
    finally:
        if process.poll() is None:
            kill(process)


def stopped(process: subprocess.Popen[bytes], within: float) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``process``, which must end within ``within``
    seconds."""
    try:
        out, err = process.communicate(timeout=within)
    except subprocess.TimeoutExpired:
        kill(process)
        pytest.fail(f"still running {within:g} s after the signal")
    return process.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def test_sigterm_stops_the_running_dream_at_a_safe_point_and_exits_cleanly(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    with_a_pending_event(isolated_home, embedder)
    dream_overdue(isolated_home, embedder)
    ollama.script(SLOW)
    with dreaming(isolated_home, ollama, "daemon") as daemon:
        daemon.send_signal(signal.SIGTERM)
        code, _, err = stopped(daemon, PROMPTLY)

    assert code == 0, err
    assert "SIGTERM received, stopping" in err and "scheduler stopped" in err
    (dream,) = dream_runs(hearth_cli, isolated_home)
    assert dream["status"] == "cancelled"  # not killed: the next dream resumes it
    assert dream["stages"]["backup"]["status"] == "done"
    (event,) = json.loads(hearth_cli(isolated_home, "events", "--json").out)
    assert event["attempts"] == 0  # the batch it was on is left as it was


def test_a_job_that_cannot_stop_in_time_does_not_keep_the_daemon(
        isolated_home: Path, embedder: Any, hearth_cli: CliRunner,
        ollama: FakeOllama) -> None:
    with_a_pending_event(isolated_home, embedder)
    dream_overdue(isolated_home, embedder)
    ollama.script(STUCK)
    with dreaming(isolated_home, ollama, "daemon", "--stop-timeout", "2") as daemon:
        signalled = time.monotonic()
        daemon.send_signal(signal.SIGTERM)
        code, _, err = stopped(daemon, PROMPTLY)

    assert time.monotonic() - signalled >= 2  # it waited for the job first
    assert code == 1
    assert "did not stop within 2 s" in err and "Traceback" not in err
    (dream,) = dream_runs(hearth_cli, isolated_home)
    assert dream["status"] == "interrupted"  # noticed by the next command; resumable


def test_a_second_sigterm_exits_at_once(isolated_home: Path, embedder: Any,
                                        ollama: FakeOllama) -> None:
    with_a_pending_event(isolated_home, embedder)
    dream_overdue(isolated_home, embedder)
    ollama.script(STUCK)
    with dreaming(isolated_home, ollama, "daemon") as daemon:  # 60 s to stop
        daemon.send_signal(signal.SIGTERM)
        assert daemon.stderr is not None
        until(lambda: b"stopping" in daemon.stderr.readline(), "the first signal was taken",
              daemon)
        daemon.send_signal(signal.SIGTERM)
        code, _, err = stopped(daemon, 10)

    assert code == 128 + signal.SIGTERM
    assert "received again: exiting now" in err


def test_sigterm_stops_a_job_run_with_once(isolated_home: Path, embedder: Any,
                                           ollama: FakeOllama) -> None:
    with_a_pending_event(isolated_home, embedder)
    ollama.script(SLOW)
    with dreaming(isolated_home, ollama, "daemon", "--once", DREAM) as once:
        once.send_signal(signal.SIGTERM)
        code, said, err = stopped(once, PROMPTLY)

    assert code == 0, err
    assert "cancelled" in said
