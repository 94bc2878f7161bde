"""A tool's question ("Forget the fact …?") asked from a reply's thread: answered in a dialog,
taken as no when nobody answers in time (the dialog closes and the status bar says why),
and never leaving the reply's thread waiting forever."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox
from support.qt_waits import wait_for_task

from desktop.context import CrossThreadConfirm
from desktop.main_window import MainWindow
from desktop.workers import Workers

QUESTION = "Forget the fact “locker_code: 4471”?"


def test_an_unanswered_question_is_taken_as_no_and_a_late_answer_is_ignored(qtbot) -> None:
    confirm = CrossThreadConfirm(timeout_s=0.3)
    asked: list[tuple[int, str]] = []
    withdrawn: list[tuple[int, str, bool]] = []
    ui_thread = threading.current_thread()
    confirm.asked.connect(lambda question_id, text: asked.append((question_id, text)))
    confirm.withdrawn.connect(lambda question_id, why: withdrawn.append(
        (question_id, why, threading.current_thread() is ui_thread)))
    workers = Workers()

    answers: list[bool] = []
    started = time.monotonic()
    first = workers.start("asking", lambda _t: confirm(QUESTION), on_done=answers.append)
    wait_for_task(qtbot, first)
    assert time.monotonic() - started < 5 and answers == [False]
    qtbot.waitUntil(lambda: bool(withdrawn))
    (question_id, text), = asked
    assert text == QUESTION
    why = f"Taken as no after 0.3 seconds without an answer: {QUESTION}"
    assert withdrawn == [(question_id, why, True)]  # said on the UI thread

    confirm.answer(question_id, True)  # the dialog clicked after the question was withdrawn
    second = workers.start("asking again", lambda _t: confirm(QUESTION),
                           on_done=answers.append)
    qtbot.waitUntil(lambda: len(asked) == 2)
    confirm.answer(question_id, True)  # still late: it answers nothing
    confirm.answer(asked[1][0], True)
    wait_for_task(qtbot, second)
    assert answers == [False, True]


def test_the_answer_given_in_time_is_the_answer(qtbot) -> None:
    confirm = CrossThreadConfirm(timeout_s=30)
    confirm.asked.connect(lambda question_id, _text: confirm.answer(question_id, True))
    results: list[bool] = []
    task = Workers().start("asking", lambda _t: confirm(QUESTION), on_done=results.append)
    wait_for_task(qtbot, task)
    assert results == [True]


def test_nobody_to_ask_means_no_and_quitting_withdraws_the_question(qtbot) -> None:
    confirm = CrossThreadConfirm(timeout_s=60)
    assert confirm(QUESTION) is False  # headless: nothing is forgotten unasked
    asked: list[int] = []
    confirm.asked.connect(lambda question_id, _text: asked.append(question_id))
    results: list[bool] = []
    task = Workers().start("asking", lambda _t: confirm(QUESTION), on_done=results.append)
    qtbot.waitUntil(lambda: bool(asked))
    confirm.withdraw()  # quitting: the reply's thread must not wait a minute
    wait_for_task(qtbot, task, timeout=5_000)
    assert results == [False]


def _question_box() -> QMessageBox | None:
    box = QApplication.activeModalWidget()
    return box if isinstance(box, QMessageBox) else None


def _when_asked(act: Callable[[QMessageBox], None]) -> None:
    """Run ``act(box)`` once the question's dialog is up (from inside its own event loop:
    ``exec`` does not return before the dialog closes)."""
    box = _question_box()
    if box is None:
        QTimer.singleShot(20, lambda: _when_asked(act))
    else:
        act(box)


def test_the_window_asks_in_a_dialog_that_closes_itself_when_the_time_is_up(
        qtbot, ctx) -> None:
    window = MainWindow(ctx)
    qtbot.addWidget(window)
    window.show()
    results: list[bool] = []
    shown: list[str] = []

    ctx.confirm.timeout_s = 30
    _when_asked(lambda box: (shown.append(box.text()),
                             box.button(QMessageBox.StandardButton.Yes).click()))
    task = ctx.workers.start("forget", lambda _t: ctx.confirm(QUESTION), on_done=results.append)
    wait_for_task(qtbot, task, timeout=10_000)
    assert shown == [QUESTION] and results == [True]

    ctx.confirm.timeout_s = 0.5
    _when_asked(lambda box: shown.append(box.text()))  # seen, and left unanswered
    task = ctx.workers.start("forget", lambda _t: ctx.confirm(QUESTION), on_done=results.append)
    wait_for_task(qtbot, task, timeout=10_000)
    qtbot.waitUntil(lambda: _question_box() is None, timeout=5_000)  # closed by itself
    assert shown == [QUESTION, QUESTION] and results == [True, False]
    assert window.status.currentMessage() == (
        f"Taken as no after 0.5 seconds without an answer: {QUESTION}")
