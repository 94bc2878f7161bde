"""Background jobs: callbacks on the UI thread, progress and streamed items in order,
failures as sentences, cancellation, and a loop that keeps turning meanwhile."""

from __future__ import annotations

import threading
import time

import shiboken6
from PySide6.QtWidgets import QLabel
from support.freezes import FROZEN_MS
from support.qt_waits import wait_for_task

from core.errors import InvalidInputError
from desktop.stall import StallMeter
from desktop.workers import PROGRESS_INTERVAL_S, Task, Workers


def test_callbacks_run_on_the_ui_thread_with_progress_and_items_in_order(qtbot) -> None:
    workers = Workers()
    seen: list[tuple[str, object, bool]] = []
    ui_thread = threading.current_thread()

    def job(task: Task) -> str:
        assert threading.current_thread() is not ui_thread
        for step in range(3):
            task.progress(step, 3, f"step {step}")
            task.emit(step)
            time.sleep(PROGRESS_INTERVAL_S * 1.2)  # slower than the throttle: all shown
        return "finished"

    def record(kind: str):
        return lambda *args: seen.append((kind, args, threading.current_thread() is ui_thread))

    task = workers.start("counting", job, on_done=record("done"), on_item=record("item"),
                         on_progress=record("progress"))
    wait_for_task(qtbot, task)
    assert [kind for kind, _, _ in seen] == ["progress", "item"] * 3 + ["done"]
    assert all(on_ui for _, _, on_ui in seen)
    assert seen[-1][1] == ("finished",)
    assert [args for kind, args, _ in seen if kind == "item"] == [(0,), (1,), (2,)]


def test_rapid_progress_is_thinned_but_the_first_and_last_reports_arrive(qtbot) -> None:
    reports: list[int] = []

    def chatty(task: Task) -> None:
        for done in range(1001):
            task.progress(done, 1000)

    task = Workers().start("chatty", chatty, on_progress=lambda done, *_: reports.append(done))
    wait_for_task(qtbot, task)
    assert reports[0] == 0 and reports[-1] == 1000
    assert len(reports) < 100


def test_every_new_step_is_reported_however_fast(qtbot) -> None:
    """A dream's stages follow each other in milliseconds: each one's name still shows."""
    labels: list[str] = []
    stages = ("decay", "merge", "link", "rem")

    def quick(task: Task) -> None:
        for position, stage in enumerate(stages):
            for done in range(3):
                task.progress(position * 10 + done, 100, f"{stage}: {done} of 3")

    task = Workers().start("quick", quick, on_progress=lambda *args: labels.append(args[-1]))
    wait_for_task(qtbot, task)
    assert [label.split(":")[0] for label in labels] == list(stages)


def test_a_core_error_arrives_as_message_and_hint_and_a_bug_as_a_sentence(qtbot) -> None:
    workers = Workers()
    failures: list[tuple[str, str]] = []

    def refuse(_task: Task) -> None:
        raise InvalidInputError("The key is empty.", "Give the fact a name.")

    def crash(_task: Task) -> None:
        raise ZeroDivisionError("division by zero")

    for job in (refuse, crash):
        wait_for_task(qtbot, workers.start("failing", job,
                                           on_failed=lambda m, h: failures.append((m, h))))
    assert failures[0] == ("The key is empty.", "Give the fact a name.")
    assert failures[1][0] == "failing failed: ZeroDivisionError: division by zero"
    assert "log" in failures[1][1]


def test_cancel_stops_a_job_at_its_next_check_and_finished_still_fires(qtbot) -> None:
    workers = Workers()
    finished: list[bool] = []

    def patient(task: Task) -> int:
        rounds = 0
        while not task.cancelled and rounds < 1000:
            time.sleep(0.01)
            rounds += 1
        return rounds

    task = workers.start("waiting", patient)
    task.finished.connect(lambda: finished.append(True))
    qtbot.wait(50)
    task.cancel()
    wait_for_task(qtbot, task)
    assert finished == [True]
    assert workers.active == []


def test_the_stall_meter_sees_a_blocked_loop_and_not_a_busy_worker(qtbot) -> None:
    meter = StallMeter()
    meter.start()
    task = Workers().start("busy", lambda _t: time.sleep(0.4))
    wait_for_task(qtbot, task)
    assert meter.stop() < FROZEN_MS
    meter.start()
    qtbot.wait(20)
    time.sleep(FROZEN_MS / 1000)  # the UI thread itself blocked
    qtbot.wait(20)
    assert meter.stop() >= FROZEN_MS - 20


def test_a_job_that_outlives_its_widget_does_not_call_back_into_it(qtbot) -> None:
    owner = QLabel("checking…")
    release = threading.Event()
    seen: list[str] = []
    task = Workers().start("outlives", lambda _t: release.wait(10) and "done",
                           on_done=lambda text: seen.append(owner.text() + text), owner=owner)
    owner.deleteLater()
    qtbot.waitUntil(lambda: not shiboken6.isValid(owner), timeout=5_000)
    release.set()
    wait_for_task(qtbot, task)
    assert seen == []  # without the owner, owner.text() raised "already deleted" here
