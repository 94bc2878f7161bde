"""Background jobs: callbacks on the UI thread, progress and streamed items in order,
failures as sentences, cancellation, and a loop that keeps turning meanwhile; writes one at
a time; watches that wait without holding a thread."""

from __future__ import annotations

import threading
import time

import shiboken6
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel
from support.freezes import FROZEN_MS
from support.qt_waits import wait_for_task

from core.errors import InvalidInputError, NotFoundError
from core.log_privacy import LogFormat
from desktop.context import Hub
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


def test_a_core_error_arrives_as_message_and_hint_and_a_bug_as_a_sentence(
        qtbot, caplog) -> None:
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
    traced = [record.exc_info[0] for record in caplog.records if record.exc_info]
    assert traced == [InvalidInputError, ZeroDivisionError]  # both kept, with tracebacks


def test_a_failure_is_logged_without_the_words_of_its_task_or_its_sentence(
        qtbot, caplog) -> None:
    """A task's name and a core error's sentence may hold the user's words (a fact's key, a
    notification's title): the window's log keeps the error's type and traceback, and the
    name's length, never them (``core.log_privacy``)."""
    workers = Workers()
    key = "zebra_locker"

    def refuse(_task: Task) -> None:
        raise NotFoundError(f"There is no fact {key}.", "See Facts for the keys you have.")

    wait_for_task(qtbot, workers.start(f"Loading the history of {key}", refuse))
    written = "\n".join(LogFormat("%(message)s").format(record) for record in caplog.records)
    assert "zebra" not in written
    assert "background job <35 characters> failed: NotFoundError" in written
    assert "Traceback" in written


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


# --- which thread a callback runs on (what the module docstring says) ------------------------


class _Sender(QObject):
    said = Signal(object)


def test_a_plain_callable_runs_in_the_thread_its_sender_lives_in(qtbot) -> None:
    """PySide 6.11 and 6.12: a bare callable connected to a signal runs where the *sender* lives
    (queued there when another thread emits), not in the emitting thread. The Hub relies on
    it for ``notify`` from the schedule's thread; if a PySide update changes it, this says so."""
    ui_thread = threading.current_thread()
    on_ui = _Sender()  # lives on the UI thread
    ran_on: dict[str, threading.Thread] = {}
    on_ui.said.connect(lambda who: ran_on.__setitem__(who, threading.current_thread()))

    def job(_task: Task) -> None:
        on_ui.said.emit("sender on the UI thread")
        made_here = _Sender()  # lives on this pool thread
        made_here.said.connect(lambda who: ran_on.__setitem__(who, threading.current_thread()))
        made_here.said.emit("sender on the pool thread")
        assert ran_on["sender on the pool thread"] is threading.current_thread()

    wait_for_task(qtbot, Workers().start("emitting", job))
    qtbot.waitUntil(lambda: "sender on the UI thread" in ran_on)
    assert ran_on["sender on the UI thread"] is ui_thread
    assert ran_on["sender on the pool thread"] is not ui_thread


def test_a_hub_notice_from_another_thread_reaches_its_receivers_on_the_ui_thread(
        qtbot) -> None:
    hub = Hub()
    ui_thread = threading.current_thread()
    seen: list[tuple[str, bool]] = []
    hub.notify.connect(lambda title, _text: seen.append((title, threading.current_thread()
                                                          is ui_thread)))
    scheduler_like = threading.Thread(target=hub.notify.emit, args=("Dream done", "3 merged"))
    scheduler_like.start()
    scheduler_like.join()
    qtbot.waitUntil(lambda: bool(seen))
    assert seen == [("Dream done", True)]


# --- writes: one at a time, in order; reads beside them --------------------------------------


def test_writes_run_one_at_a_time_in_order_while_reads_go_on_beside_them(qtbot) -> None:
    workers = Workers()
    release = threading.Event()
    log: list[str] = []
    busy = threading.Semaphore(1)

    def write(name: str, hold: bool):
        def job(_task: Task) -> None:
            assert busy.acquire(blocking=False), f"{name} overlapped another write"
            try:
                log.append(f"{name} started")
                if hold:
                    release.wait(10)
                time.sleep(0.02)
                log.append(f"{name} ended")
            finally:
                busy.release()
        return job

    first = workers.start("delete", write("delete", hold=True), writes=True)
    second = workers.start("undo", write("undo", hold=False), writes=True)
    qtbot.waitUntil(lambda: log == ["delete started"])
    read = workers.start("load", lambda _t: log.append("read ran"))
    wait_for_task(qtbot, read)  # a read is not queued behind a write
    assert log == ["delete started", "read ran"] and second.running
    release.set()
    for task in (first, second):
        wait_for_task(qtbot, task)
    assert log == ["delete started", "read ran", "delete ended", "undo started", "undo ended"]


def test_wait_at_quit_waits_for_the_writes_too(qtbot) -> None:
    workers = Workers()
    saved = threading.Event()
    workers.start("saving", lambda _t: (time.sleep(0.2), saved.set()), writes=True)
    assert workers.wait(5_000)
    assert saved.is_set()


# --- watches: waiting without a thread ---------------------------------------------------------


def test_a_watch_holds_no_thread_and_reports_when_ready_on_the_ui_thread(qtbot) -> None:
    workers = Workers(max_threads=2)
    ready = threading.Event()
    outcomes: list[tuple[bool, bool]] = []
    ui_thread = threading.current_thread()
    watches = [workers.watch(f"watching {n}", ready.is_set, interval_ms=20,
                             on_done=lambda done: outcomes.append(
                                 (done, threading.current_thread() is ui_thread)))
               for n in range(3)]  # more watches than threads
    both = threading.Barrier(2, timeout=5)  # needs both pool threads at once
    jobs = [workers.start(f"job {n}", lambda _t: both.wait()) for n in range(2)]
    for job in jobs:
        wait_for_task(qtbot, job)
    assert not both.broken and all(watch.running for watch in watches)
    threading.Thread(target=ready.set).start()  # what it waits for happens elsewhere
    for watch in watches:
        wait_for_task(qtbot, watch)
    assert outcomes == [(True, True)] * 3
    assert workers.active == []


def test_a_cancelled_watch_ends_false_and_a_failing_one_as_a_sentence(qtbot) -> None:
    workers = Workers()
    ended: list[object] = []
    patient = workers.watch("waiting forever", lambda: False, on_done=ended.append,
                            interval_ms=20)
    qtbot.wait(60)
    patient.cancel()
    wait_for_task(qtbot, patient)

    def broken() -> bool:
        raise ZeroDivisionError("division by zero")

    failing = workers.watch("checking", broken, interval_ms=20,
                            on_failed=lambda message, hint: ended.append((message, hint)))
    wait_for_task(qtbot, failing)
    assert ended == [False, ("checking failed: ZeroDivisionError: division by zero",
                             "See the log for details.")]
