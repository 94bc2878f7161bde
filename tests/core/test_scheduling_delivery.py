"""The schedule's delivery: the every-minute job catches up once after a sleep, a scheduled
prompt runs once through the assistant (or says why it could not), the optional daily
briefing follows its setting, and the retired hourly follow-up job is cleared away."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import typer
from apscheduler.events import EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.cron import CronTrigger
from support.scripted_llm import ScriptedLLM
from typer.testing import CliRunner
from support.moments import at, day

from core import clock
from core.app import Hearth
from cli.daemon_cmd import daemon
from core.config import Settings
from core.daily.delivery import BRIEFING, SCHEDULED_PROMPT, Notification, late_note
from core.daily.scheduled_prompts import next_run
from core.llm.protocol import LLMUnavailableError
from core.scheduling import (
    DAILY_BRIEFING, DELIVERY, JOBSTORE_TABLE, SCHEDULED_JOBS, HearthScheduler,
    run_registered,
)
from core.storage.orm import ChatSession, Interaction
from core.storage.sqlite.engine import open_engine

UTC = timezone.utc


@pytest.fixture
def hearth(isolated_home: Path, embedder) -> Iterator[Hearth]:
    with Hearth.open(isolated_home, settings=Settings(), embedder=embedder) as opened:
        yield opened


def stored_jobs(hearth: Hearth) -> BackgroundScheduler:
    """The job store as the app left it, opened with no scheduler firing anything."""
    store = SQLAlchemyJobStore(engine=open_engine(hearth.paths.database),
                               tablename=JOBSTORE_TABLE)
    store.start(BackgroundScheduler(), "default")
    return store


def test_reminders_missed_while_the_app_was_off_come_once_when_it_is_back(hearth) -> None:
    first = HearthScheduler(hearth, ScriptedLLM)
    first.start()
    first.shutdown()
    real = datetime.now(UTC).replace(microsecond=0)
    with clock.shifted(timedelta(hours=-5)):  # set this morning, before the sleep
        hearth.reminders.create("Call the dentist", real - timedelta(hours=3), zone="UTC")
        hearth.reminders.create("Lunch with Ana", real - timedelta(hours=1), zone="UTC")
    store = stored_jobs(hearth)
    job = store.lookup_job(DELIVERY)
    job.next_run_time = datetime.now().astimezone() - timedelta(hours=4)  # asleep since
    store.update_job(job)
    store.shutdown()

    shown: list[Notification] = []
    ran = threading.Event()
    second = HearthScheduler(hearth, ScriptedLLM, notify=shown.append)

    def executed(event: JobExecutionEvent) -> None:
        if event.job_id == DELIVERY:
            ran.set()

    second._scheduler.add_listener(executed, EVENT_JOB_EXECUTED)
    second.start()
    try:
        assert ran.wait(20)
        assert second.next_run(DELIVERY) > datetime.now().astimezone()
    finally:
        second.shutdown(wait=True)
    notes = [late_note(real - timedelta(hours=h), datetime.now(UTC), "UTC") for h in (3, 1)]
    assert notes[0].startswith(" (due ")  # "(due 09:00)", with the day when not today
    assert [n.body for n in shown] == [f"Call the dentist{notes[0]}",
                                       f"Lunch with Ana{notes[1]}"]
    assert {row.status for row in hearth.reminders.list()} == {"sent"}


def scripted_model(reply: str) -> ScriptedLLM:
    """A model that answers every chat with ``reply`` (and every structured request, a
    note or title the conversation may ask for, with an empty object)."""
    return ScriptedLLM(lambda kind, _messages, _extra: reply if kind == "chat" else "{}")


def test_a_due_scheduled_prompt_runs_once_in_its_own_chat(hearth) -> None:
    with at(day(8)):
        prompt = hearth.scheduled_prompts.create("Morning plan", "Plan my day in three lines",
                                                 "0 9 * * *", zone="UTC")
    shown: list[Notification] = []
    models: list[ScriptedLLM] = []

    def factory() -> ScriptedLLM:
        models.append(scripted_model("Dentist at ten, then the passport, then a walk."))
        return models[-1]

    moment = day(9, 0, 30)
    scheduler = HearthScheduler(hearth, factory, notify=shown.append, clock=lambda: moment)
    with at(moment):
        assert scheduler.run_job(DELIVERY).endswith("1 scheduled prompt(s)")
        assert scheduler.run_job(DELIVERY) == "nothing due"
    (notification,) = shown
    assert (notification.kind, notification.item_id, notification.title) == (
        SCHEDULED_PROMPT, prompt.id, "Scheduled: Morning plan")
    assert notification.body == "Dentist at ten, then the passport, then a walk."
    asked = [m.content for m in models[0].requests[0].messages if m.role == "user"]
    assert asked[-1].endswith("\n\nPlan my day in three lines")
    with hearth.storage.read() as session:
        (chat,) = session.query(ChatSession).filter_by(title="Scheduled: Morning plan").all()
        (exchange,) = session.query(Interaction).filter_by(session_id=chat.id).all()
    assert exchange.agent_response == notification.body
    assert exchange.channel == "scheduled"
    row = hearth.scheduled_prompts.get(prompt.id)
    assert row.last_run_at == moment
    assert next_run(row, row.last_run_at) == day(9, days=1)

    with at(day(9, 0, 30, days=1)):  # the next morning: the same chat, a second exchange
        later = HearthScheduler(hearth, factory, notify=shown.append,
                                clock=lambda: day(9, 0, 30, days=1))
        later.run_job(DELIVERY)
    with hearth.storage.read() as session:
        assert session.query(ChatSession).filter_by(title="Scheduled: Morning plan").count() == 1
        assert session.query(Interaction).filter_by(session_id=chat.id).count() == 2


def test_without_a_model_the_scheduled_prompt_says_it_could_not_run(hearth) -> None:
    with at(day(8)):
        hearth.scheduled_prompts.create("Morning plan", "Plan my day", "0 9 * * *",
                                        zone="UTC")

    def no_model() -> ScriptedLLM:
        raise LLMUnavailableError("Ollama is not running at http://127.0.0.1:11434.",
                                  "Start Ollama.")

    shown: list[Notification] = []
    scheduler = HearthScheduler(hearth, no_model, notify=shown.append,
                                clock=lambda: day(9, 1))
    with at(day(9, 1)):
        scheduler.run_job(DELIVERY)
        scheduler.run_job(DELIVERY)
    assert [(n.title, n.body) for n in shown] == [(
        "Scheduled: Morning plan",
        "Could not run: Ollama is not running at http://127.0.0.1:11434. Start Ollama.")]


def test_the_daily_briefing_follows_its_setting(hearth) -> None:
    scheduler = HearthScheduler(hearth, ScriptedLLM)
    scheduler.start()
    try:
        assert scheduler.next_run(DAILY_BRIEFING) is None
        hearth.settings.daily_briefing, hearth.settings.daily_briefing_time = True, "07:30"
        scheduler.reschedule()
        briefing = scheduler.next_run(DAILY_BRIEFING)
        assert (briefing.hour, briefing.minute) == (7, 30)
        assert isinstance(scheduler.triggers()[DAILY_BRIEFING], CronTrigger)
        hearth.settings.daily_briefing = False
        scheduler.reschedule()
        assert scheduler.next_run(DAILY_BRIEFING) is None
    finally:
        scheduler.shutdown()


def test_the_briefing_lists_the_day_in_one_notification_and_one_chat_message(hearth) -> None:
    moment = datetime.combine(day(0).date(), datetime.min.time()).astimezone() + timedelta(
        hours=7, minutes=30)
    today = moment.date()
    with at(moment):
        hearth.tasks.create("Renew passport", due_date=today)
        hearth.tasks.create("Pay the rent", due_date=today - timedelta(days=1))
        hearth.tasks.create("Paint the fence", due_date=today + timedelta(days=4))
        hearth.reminders.create("Call the dentist", moment + timedelta(hours=2))
        hearth.reminders.create("Next week's call", moment + timedelta(days=7))
        hearth.follow_ups.add("Write to Ana", follow_up_at=moment + timedelta(hours=1))
        shown: list[Notification] = []
        scheduler = HearthScheduler(hearth, ScriptedLLM, notify=shown.append,
                                    clock=lambda: moment)
        assert scheduler.run_job(DAILY_BRIEFING).startswith("Daily briefing for ")
    (notification,) = shown
    assert notification.kind == BRIEFING
    at_nine_thirty = (moment + timedelta(hours=2)).strftime("%H:%M")
    assert notification.body.splitlines() == [
        "Tasks due today: 1", "• Renew passport",
        "Overdue: 1", f"• Pay the rent (due {(today - timedelta(days=1)).isoformat()})",
        "Reminders today: 1", f"• {at_nine_thirty} Call the dentist",
        "Follow-ups: 1", "• Write to Ana"]
    with hearth.storage.read() as session:
        (chat,) = session.query(ChatSession).filter_by(title="Daily briefing").all()
        (exchange,) = session.query(Interaction).filter_by(session_id=chat.id).all()
    assert (exchange.user_message, exchange.agent_response) == (
        notification.title, notification.body)
    assert not chat.learn_from  # written by Hearth, not said by the user


def test_the_retired_hourly_follow_up_job_is_removed_at_start(hearth) -> None:
    holder = BackgroundScheduler(jobstores={"default": SQLAlchemyJobStore(
        engine=open_engine(hearth.paths.database), tablename=JOBSTORE_TABLE)})
    holder.start(paused=True)
    holder.add_job(run_registered, CronTrigger(minute=0), args=("x", "intention_followups"),
                   id="intention_followups")
    holder.shutdown()
    scheduler = HearthScheduler(hearth, ScriptedLLM)
    scheduler.start()
    try:
        assert scheduler.next_run("intention_followups") is None
        assert sorted(job.id for job in scheduler._scheduler.get_jobs()) == sorted(
            SCHEDULED_JOBS)
    finally:
        scheduler.shutdown()


def test_the_daemon_shows_a_due_reminder_with_notify_send_and_logs_which_one(
        isolated_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`hearth daemon --once delivery` with a ``notify-send`` on the PATH (a script that
    records what it was asked to show), then without one: the log alone, which names the
    reminder but never holds its words (the log file is not encrypted with the folder)."""
    real = datetime.now(UTC).replace(microsecond=0)
    with Hearth.open(isolated_home) as opened, clock.shifted(timedelta(hours=-2)):
        opened.reminders.create("Call the dentist", real - timedelta(hours=1), zone="UTC")
        opened.reminders.create("-v water the plants", real - timedelta(minutes=30), zone="UTC")
    shown = tmp_path / "shown.txt"
    tools = tmp_path / "bin"
    tools.mkdir()
    script = tools / "notify-send"
    script.write_text(f'#!/bin/sh\nprintf "%s|" "$@" >> {shown}\necho >> {shown}\n')
    script.chmod(0o755)
    app = typer.Typer()
    app.command()(daemon)
    monkeypatch.setenv("PATH", f"{tools}:/usr/bin:/bin")
    result = CliRunner().invoke(app, ["--once", "delivery"])
    assert result.exit_code == 0, result.output
    assert "2 reminder(s)" in result.output
    note = late_note(real - timedelta(hours=1), datetime.now(UTC), "UTC")
    first, second = shown.read_text().splitlines()
    assert first == f"--app-name=Hearth|--|Reminder|Call the dentist{note}|"
    assert second.startswith("--app-name=Hearth|--|Reminder|-v water the plants")  # text

    with Hearth.open(isolated_home) as opened:
        reminder = opened.reminders.list()[1]
        opened.reminders.snooze(reminder.id, minutes=1)
    monkeypatch.setenv("PATH", "/nonexistent")
    with clock.shifted(timedelta(minutes=2)):
        result = CliRunner().invoke(app, ["--once", "delivery"])
    assert result.exit_code == 0, result.output
    assert "1 reminder(s)" in result.output  # the snoozed one, once
    assert len(shown.read_text().splitlines()) == 2  # no notify-send now: the log alone
    logged = (isolated_home / "logs" / "daemon.log").read_text()
    assert logged.count(f"notification reminder:{reminder.id}") == 2
    assert "water the plants" not in logged and "dentist" not in logged


def test_turning_the_briefing_on_is_a_schedule_change(hearth) -> None:
    """What makes the window reschedule when the briefing is turned on or moved."""
    from core.operations import settings as settings_ops
    from core.operations.changes import Domain

    assert settings_ops.save(hearth, daily_briefing=True).changes.touches(Domain.SCHEDULE)
    assert settings_ops.save(hearth, daily_briefing_time="06:45").changes.touches(
        Domain.SCHEDULE)
    assert not settings_ops.save(hearth, session_quiet_minutes=30).changes.touches(
        Domain.SCHEDULE)


def test_the_daemon_log_leaves_out_the_empty_minutes(hearth, caplog) -> None:
    """APScheduler's lines for the every-minute delivery job are filtered out of the
    daemon's log, its lines for other jobs are kept, and an empty pass is DEBUG only."""
    import logging

    from cli.daemon_cmd import quiet_delivery

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("apscheduler.executors.default", logging.INFO, __file__, 1,
                                 message, (), None)

    assert not quiet_delivery(record(
        'Running job "delivery (trigger: cron[minute=\'*\'], next run at: 09:01)"'))
    assert quiet_delivery(record('Running job "dream (trigger: cron[hour=\'2\'])"'))
    with caplog.at_level(logging.INFO, logger="core.scheduling"):
        assert HearthScheduler(hearth, ScriptedLLM).run_job(DELIVERY) == "nothing due"
    assert "nothing due" not in caplog.text


def test_a_front_end_that_fails_loses_one_notice_never_repeats_it(hearth, caplog) -> None:
    """Marked delivered before shown: when showing fails (a crash between the two is the
    same), that one notification is logged and not handed out again; the rest of the
    pass goes on."""
    import logging

    with at(day(8)):
        hearth.reminders.create("Call the dentist", day(9), zone="UTC")
        hearth.reminders.create("Lunch with Ana", day(9, 5), zone="UTC")
    shown: list[str] = []

    def notify(notification: Notification) -> None:
        if notification.body == "Call the dentist (due 09:00)":
            raise RuntimeError("the notification service went away")
        shown.append(notification.body)

    scheduler = HearthScheduler(hearth, ScriptedLLM, notify=notify, clock=lambda: day(9, 10))
    with at(day(9, 10)), caplog.at_level(logging.ERROR, logger="core.scheduling"):
        assert scheduler.run_job(DELIVERY).startswith("2 reminder(s)")
        assert scheduler.run_job(DELIVERY) == "nothing due"
    assert shown == ["Lunch with Ana (due 09:05)"]
    assert "could not show reminder:" in caplog.text
    assert "the notification service went away" in caplog.text
