"""The window as a whole: the Memory menu and the tray run reflection and the dream cycle
off the UI thread (progress, result, profile diff), pause learning, show follow-ups, keep
the schedule in the tray, and never stall the event loop for more than 100 ms."""

from __future__ import annotations

import os
import signal
import time
from datetime import timedelta
from pathlib import Path

import pytest
from support.freezes import FROZEN_MS
from support.qt_waits import wait_for_task, wait_idle

from core.knowledge.memories import MemorySpec
from core.scheduling import DELIVERY
from core.storage.orm import Interaction, Run, utcnow
from core.errors import HearthError
from desktop.isolated import run_in_child
from desktop.main_window import MainWindow
from desktop.runs import DREAM, REFLECT
from desktop.stall import StallMeter
from desktop.tray import Tray
from support.scripted_llm import ScriptedLLM

PROFILE = """## Personal
Ana is a nurse who lives by the sea.
## Goals & Values
Wants to run a half marathon in spring.
## Communication Style
Short, direct messages.
## Patterns & Rhythms
Works night shifts on weekends.
## Preferences
Likes tea, dislikes small talk.
## Notes
Training plan started in March."""

REFLECTION = (f"---PROFILE---\n{PROFILE}\n\n---FACTS---\n"
              '[{"key": "job", "value": "nurse", "category": "work"}]\n\n'
              '---INTENTIONS---\n[{"text": "book the race", "follow_up_days": 2}]\n\n'
              "---LEARNINGS---\n[]\n")

TOPICS = ["my sister Ines lives in Porto", "the router drops the wifi", "knee physiotherapy",
          "reading Piranesi", "the flight to Osaka", "Liam's peanut allergy",
          "the quarterly report", "green tea in the morning", "trail running",
          "the backup script"]


def answer_reflection(*_: object) -> str:
    return REFLECTION


def reflecting_model() -> ScriptedLLM:
    """Module-level, so the run's child process can unpickle it."""
    return ScriptedLLM(answer_reflection)


def pid_noting_model() -> ScriptedLLM:
    """Notes which process asked for a model (in the data folder), then reflects."""
    (Path(os.environ["HEARTH_HOME"]) / "model-pid").write_text(str(os.getpid()))
    return reflecting_model()


def answer_slowly(*_: object) -> str:
    """Says it was asked (a file in the data folder), then thinks for a while: long enough
    for the test to press Cancel while the model is busy."""
    (Path(os.environ["HEARTH_HOME"]) / "model-asked").touch()
    time.sleep(3)
    return REFLECTION


def slow_model() -> ScriptedLLM:
    return ScriptedLLM(answer_slowly)


def killed_model() -> ScriptedLLM:
    """The run's child process dies hard as soon as it asks for a model."""
    os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError("unreachable")


def talk(ctx, *messages: str) -> None:
    with ctx.hearth.storage.write() as session:
        for index, message in enumerate(messages):
            session.add(Interaction(user_message=message, agent_response="Noted.",
                                    created_at=utcnow() - timedelta(hours=2, minutes=-index)))


def start_schedule(qtbot, ctx) -> None:
    ctx.start_scheduler()
    qtbot.waitUntil(lambda: ctx.scheduler is not None, timeout=30_000)


def runs_of(ctx, kind: str) -> list[Run]:
    with ctx.hearth.storage.read() as session:
        return list(session.query(Run).filter(Run.kind == kind))


@pytest.fixture
def window(qtbot, make_ctx):
    ctx = make_ctx(provider_factory=reflecting_model)
    shown = MainWindow(ctx)
    qtbot.addWidget(shown)
    shown.show()
    return shown


def test_reflect_from_the_menu_updates_the_profile_and_shows_its_diff(qtbot, window) -> None:
    ctx = window.ctx
    talk(ctx, "I work nights as a nurse", "I want to run a half marathon")
    window.reflect_action.trigger()
    task = window.runs.tasks[REFLECT]
    wait_for_task(qtbot, task)
    dialog = window.runs.dialogs[REFLECT]
    assert dialog.isVisible()
    assert "Reflection finished" in dialog.state.text()
    assert "Learned 1 new fact, noted 1 follow-up and changed your profile." \
        in dialog.state.text()
    assert not dialog.details.is_open      # the steps and the diff are one click away
    dialog.details.toggle.click()
    assert dialog.diff.isVisible() and "+## Personal" in dialog.diff.toPlainText()
    assert dialog.stages.item(0, 0).text() == "Facts added"
    assert ctx.hearth.about_you.current().content.startswith("## Personal")
    assert ctx.hearth.facts.get("job").value == "nurse"
    assert [run.status for run in runs_of(ctx, "reflection")] == ["done"]


def test_a_dream_from_the_menu_never_stalls_the_event_loop(qtbot, window) -> None:
    ctx = window.ctx
    ctx.hearth.memories.add_many([MemorySpec(f"Note {n}: {topic}.")
                                  for n in range(30) for topic in TOPICS])
    meter = StallMeter()
    meter.start()
    window.dream_action.trigger()
    task = window.runs.tasks[DREAM]
    progress: list[str] = []
    task.progressed.connect(lambda _d, _t, label: progress.append(label))
    wait_for_task(qtbot, task, timeout=120_000)
    longest = meter.stop()
    assert longest < FROZEN_MS, f"the event loop stalled for {longest:.0f} ms"
    assert meter.ticks > 20
    assert "Linking related memories…" in progress
    assert not any("link:" in label or label.startswith(("link", "merge")) for label in progress)
    assert runs_of(ctx, "dream")[-1].status in ("done", "partial")
    assert "Dream finished" in window.runs.dialogs[DREAM].state.text()


def test_cancel_in_the_run_dialog_stops_the_dream(qtbot, window) -> None:
    ctx = window.ctx
    ctx.hearth.memories.add_many([MemorySpec(f"Note {n}: {topic}.")
                                  for n in range(10) for topic in TOPICS])
    task = window.runs.dream_now()
    window.runs.dialogs[DREAM].cancel_button.click()
    wait_for_task(qtbot, task, timeout=120_000)
    assert runs_of(ctx, "dream")[-1].status in ("cancelled", "done")
    assert not window.runs.dialogs[DREAM].cancel_button.isEnabled()


@pytest.mark.parametrize("kind", [REFLECT, DREAM])
def test_a_cancel_is_reported_as_cancelled_not_as_a_failure(qtbot, make_ctx, kind) -> None:
    """Cancel pressed while the model is thinking: "cancelled" in the dialog, the bar not
    full, no balloon, and the run recorded cancelled (a dream then resumes next time)."""
    ctx = make_ctx(provider_factory=slow_model)
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    talk(ctx, "I work nights as a nurse")
    announced: list[tuple[str, str]] = []
    ctx.hub.notify.connect(lambda title, text: announced.append((title, text)))
    task = window.runs.reflect_now() if kind == REFLECT else window.runs.dream_now()
    dialog = window.runs.dialogs[kind]
    qtbot.waitUntil((ctx.hearth.paths.home / "model-asked").exists, timeout=60_000)
    dialog.cancel_button.click()
    wait_for_task(qtbot, task, timeout=120_000)
    noun = "Reflection" if kind == REFLECT else "Dream"
    assert f"{noun} cancelled" in dialog.state.text()
    assert "fail" not in dialog.state.text().lower()
    assert "_Cancelled" not in dialog.state.text()
    assert dialog.bar.value() < dialog.bar.maximum()
    assert announced == []
    run = runs_of(ctx, "reflection" if kind == REFLECT else "dream")[-1]
    assert run.status == "cancelled"
    if kind == DREAM:
        assert run.stages["reflect"]["status"] == "cancelled"
        assert run.stages["reflect"]["error"] == "Cancelled while reflecting."


def test_pause_learning_persists_and_shows(qtbot, window) -> None:
    window.pause_action.trigger()
    assert window.ctx.settings.learning_paused
    settings_file = window.ctx.hearth.paths.settings_file.read_text()
    assert '"learning_paused": true' in settings_file
    window.status.refresh()
    assert window.status.learning_label.text() == "learning paused"
    window.pause_action.trigger()
    assert not window.ctx.settings.learning_paused


def test_pause_that_cannot_be_stored_says_why_and_changes_nothing(qtbot, window) -> None:
    """settings.json broken by hand while the window is open: the toggle used to raise."""
    window.ctx.hearth.paths.settings_file.write_text("{not json", encoding="utf-8")
    with qtbot.waitSignal(window.ctx.hub.status_message) as said:
        window.pause_action.trigger()
    assert said.args[0].startswith("Learning was not paused: ")
    assert "settings.json" in said.args[0]
    assert not window.ctx.settings.learning_paused and not window.pause_action.isChecked()


def test_tray_actions_run_the_same_jobs_and_its_tooltip_tells_the_schedule(
        qtbot, window) -> None:
    ctx = window.ctx
    start_schedule(qtbot, ctx)
    tray = Tray(ctx, window)
    qtbot.waitUntil(lambda: "Next dream:" in tray.icon.toolTip())
    talk(ctx, "I work nights as a nurse")
    tray.reflect_action.trigger()
    wait_for_task(qtbot, window.runs.tasks[REFLECT])
    assert "Last: Reflection finished" in tray.icon.toolTip()
    tray.pause_action.trigger()
    assert ctx.settings.learning_paused and tray.pause_action.isChecked()
    tray.dream_action.trigger()
    wait_for_task(qtbot, window.runs.tasks[DREAM], timeout=120_000)
    assert runs_of(ctx, "dream")
    window.hide()
    tray.open_action.trigger()
    assert window.isVisible()


def test_the_schedules_dream_and_reflection_run_in_a_child_process(qtbot, make_ctx) -> None:
    ctx = make_ctx(provider_factory=pid_noting_model)
    start_schedule(qtbot, ctx)
    talk(ctx, "I work nights as a nurse")
    summary = ctx.scheduler.run_job(REFLECT, trigger="scheduled")
    assert summary.startswith("reflection run") and "facts +1" in summary
    noted = ctx.hearth.paths.home / "model-pid"
    assert int(noted.read_text()) != os.getpid()
    noted.unlink()
    assert ctx.scheduler.run_job(DREAM, trigger="scheduled").startswith("dream run")
    assert int(noted.read_text()) != os.getpid()
    assert runs_of(ctx, "dream")[-1].trigger == "scheduled"


def test_a_child_that_dies_hard_is_reported_not_waited_for(ctx) -> None:
    with pytest.raises(HearthError, match="stopped unexpectedly") as caught:
        run_in_child(DREAM, ctx.hearth.paths.home, provider_factory=killed_model)
    assert "-9" in caught.value.message


def test_a_due_intention_becomes_a_notification(qtbot, window) -> None:
    ctx = window.ctx
    start_schedule(qtbot, ctx)
    ctx.hearth.follow_ups.add("call the dentist", follow_up_at=utcnow() - timedelta(hours=1))
    shown: list[str] = []
    ctx.hub.delivered.connect(lambda notification: shown.append(notification.body))
    ctx.scheduler.run_job(DELIVERY)
    qtbot.waitUntil(lambda: bool(shown))
    assert shown == ["call the dentist"]
    assert [notice.notification.body for notice in window.notices.open] == shown
    window.notices.close_all()


def test_closing_hides_to_the_tray_when_there_is_one_and_quits_otherwise(
        qtbot, window) -> None:
    quits: list[bool] = []
    window.quit_requested.connect(lambda: quits.append(True))
    window.tray_available = True
    window.close()
    assert not window.isVisible() and not quits
    window.show()
    window.tray_available = False
    window.close()
    qtbot.waitUntil(lambda: bool(quits))
    wait_idle(qtbot, window.ctx)
