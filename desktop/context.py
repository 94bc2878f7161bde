"""What every part of the window shares: the open data folder, the assistant, the schedule,
the background workers, and the hub of "something changed" signals.

Widgets never build core objects themselves; they take an ``AppContext`` and run the
operations of ``core.operations`` on ``ctx.hearth`` or ``ctx.assistant`` (``chats.send``,
``consolidation.undo_run``, …) from background jobs (``ctx.workers.start``). What any write
changed, whoever made it (the window, the schedule, learning, an agent, another process or
device), reaches the hub's ``changed`` from the database's change feed
(``core.operations.changes.follow``, ``desktop.change_relay``), and the views that show
those domains reload. No view emits a change itself.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QMetaMethod, QObject, Signal, Slot

from typing import TYPE_CHECKING

from core.app import Hearth
from core.operations import models
from core.operations import settings as settings_ops
from core.operations.changes import Domain, follow
from core.operations.data import quoted
from core.operations.models import CancelToken, LLMProvider
from desktop.change_relay import ChangeRelay
from desktop.workers import Workers

if TYPE_CHECKING:  # imported when first used: they pull in the HTTP client and APScheduler,
    # a good part of the window's cold start
    from core.assistant import Assistant
    from core.scheduling import HearthScheduler

log = logging.getLogger(__name__)

ProviderFactory = Callable[[], LLMProvider]

CONFIRM_TIMEOUT_S = 120.0
"""How long a tool's question ("Forget the fact …?") waits for an answer before it is taken
as no: long enough to read and decide, short enough that a reply never hangs on a dialog
left behind."""

QUIT_WAIT_S = 0.8
"""How long quitting waits for learning, then for the other jobs, to stop: together well
under the 2 seconds a person waits for a window to go away."""


class Hub(QObject):
    """Change notices between views. Most are emitted on the UI thread, but not all:
    ``delivered`` comes from the schedule's thread (``HearthScheduler(notify=...)``). Every
    receiver still runs on the UI thread, where the hub lives: a method of a widget by Qt's
    rule for a receiver object, and a plain callable because PySide (6.11 and 6.12, checked by
    ``tests/desktop/test_workers``) runs it in the thread of the sender, queued."""

    changed = Signal(object)
    """A ``core.operations.changes.Changes``: what moved (facts, memories, chats, settings,
    the schedule, …), from the change feed (``AppContext.relay``) only. Each view reloads
    only when it touches the domains it shows."""
    assistant_ready = Signal()        # ``ctx.assistant`` is (re)built and can chat
    assistant_failed = Signal(str, str)
    run_finished = Signal(str, object)  # ("reflect" | "dream", report)
    notify = Signal(str, str)         # (title, text): a tray balloon or a status message
    delivered = Signal(object)
    """A ``core.operations.delivery.Notification`` the schedule delivered (a reminder, a
    task alert, a follow-up, a scheduled prompt's answer, the briefing): ``desktop.notices``
    shows it with its buttons, the tray as a balloon and in "Recent reminders"."""
    status_message = Signal(str)


def _duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes >= 1:
        return f"{minutes} minute{'s' * (minutes != 1)}"
    return f"{seconds:g} second{'s' * (seconds != 1)}"


class CrossThreadConfirm(QObject):
    """The conversation's ``confirm(question) -> bool`` for tools such as forget: called on
    a worker thread, answered by a dialog on the UI thread, the worker waiting meanwhile.

    The window connects ``asked(question_id, question)`` to a slot that shows the question
    and calls ``answer(question_id, yes)``. With nobody connected (headless use) the answer
    is no: nothing is forgotten unasked. Nor does the worker wait forever: a question left
    unanswered for ``timeout_s`` (the person went away) is answered no, ``withdrawn``
    says so (the window closes its dialog and shows why), and a late answer is ignored. So
    does quitting (``withdraw``), which must not wait for a dialog nobody will click."""

    asked = Signal(int, str)
    withdrawn = Signal(int, str)  # (question id, what happened, in a sentence)

    def __init__(self, timeout_s: float = CONFIRM_TIMEOUT_S) -> None:
        super().__init__()
        self.timeout_s = timeout_s
        self._answered = threading.Event()
        self._answer = False
        self._asking: int | None = None
        self._asked = 0
        self._state = threading.Lock()  # guards the three above
        self._one_at_a_time = threading.Lock()

    def __call__(self, question: str) -> bool:
        with self._one_at_a_time:
            if not self.receivers_connected():
                return False
            with self._state:
                self._asked += 1
                question_id = self._asking = self._asked
                self._answer = False
                self._answered.clear()
            self.asked.emit(question_id, question)
            self._answered.wait(self.timeout_s)
            with self._state:  # an answer may land between the wait and here: it counts
                if self._answered.is_set():
                    return self._answer
                self._asking = None
            why = f"Taken as no after {_duration(self.timeout_s)} without an answer: {question}"
            log.info("confirmation %s unanswered after %.0f s: answered no", question_id,
                     self.timeout_s)
            self.withdrawn.emit(question_id, why)
            return False

    def receivers_connected(self) -> bool:
        """Whether a window listens. (``QObject.receivers`` takes a signature string in
        PySide6, not the signal: given the signal it raised TypeError, and every forget
        asked from the window failed as a broken tool.)"""
        return self.isSignalConnected(QMetaMethod.fromSignal(self.asked))

    @Slot(int, bool)
    def answer(self, question_id: int, yes: bool) -> None:
        """The person's answer to ``question_id``; ignored if that question is no longer
        asked (it timed out, or the window is quitting)."""
        with self._state:
            if question_id != self._asking:
                log.info("a late answer to confirmation %s was ignored", question_id)
                return
            self._answer, self._asking = yes, None
            self._answered.set()

    def withdraw(self) -> None:
        """Answer no to the question being asked, if any (quitting)."""
        with self._state:
            if self._asking is None:
                return
            self._answer, self._asking = False, None
            self._answered.set()


class AppContext(QObject):
    """The open data folder and everything the window runs on it."""

    def __init__(self, hearth: Hearth, *, provider_factory: ProviderFactory | None = None,
                 workers: Workers | None = None) -> None:
        super().__init__()
        self.hearth = hearth
        self.hub = Hub()
        self.relay = ChangeRelay(self)
        self.relay.changed.connect(self.hub.changed)
        self._unfollow = follow(hearth, self.relay.receive)
        self.workers = workers or Workers(parent=self)
        self.confirm = CrossThreadConfirm()
        self.confirm.withdrawn.connect(lambda _question, why: self.hub.status_message.emit(why))
        self.assistant: Assistant | None = None
        self.scheduler: HearthScheduler | None = None
        # "not started", "starting", "running", or why another process runs it (the tray
        # and the status bar show it while ``scheduler`` is None)
        self.schedule_state = "not started"
        self.custom_provider_factory = provider_factory
        """Given by tests and the demo; reflection and dreams pass it to their child
        process, so it must be picklable (a module-level function)."""
        self._provider_factory = provider_factory or self._configured_provider

    def _configured_provider(self) -> LLMProvider:
        return models.configured_provider(self.hearth.settings)

    @property
    def settings(self):  # noqa: ANN201 (core.config.Settings)
        return self.hearth.settings

    def provider(self) -> LLMProvider:
        """A fresh provider under the current settings (for reflection, dreams, pulls)."""
        return self._provider_factory()

    # --- the assistant -----------------------------------------------------------------------

    def start_assistant(self) -> None:
        """Choose the model and wire the conversation off the UI thread (asking Ollama can
        take seconds when it is down); ``hub.assistant_ready`` says when chat can start."""
        previous, self.assistant = self.assistant, None

        def build(_task: object) -> Assistant:
            from core.assistant import Assistant

            if previous is not None:
                previous.close(close_sessions=False)
            assistant = Assistant.start(self.hearth, confirm=self.confirm, channel="desktop",
                                        provider=self._provider_factory())
            if previous is None:  # the first start: what the last quit left
                assistant.learning.resume()
            return assistant

        def ready(assistant: Assistant) -> None:
            self.assistant = assistant
            if self.scheduler is not None:  # the schedule started first: persistent timers
                self._attach(self.scheduler, assistant)
            self.hub.assistant_ready.emit()

        self.workers.start("Starting the assistant", build, on_done=ready,
                           on_failed=self.hub.assistant_failed.emit)

    # --- the schedule ------------------------------------------------------------------------

    def start_scheduler(self) -> None:
        """Run the nightly dream, decay, event processing, delivery (reminders, task alerts,
        follow-ups, scheduled prompts) and the session-quiet timers in this process,
        started off the UI thread (it reads and writes the job
        store). Both ready callbacks run on the UI thread, so whichever of assistant and
        schedule comes second attaches the learning to the schedule. Another Hearth
        already running the schedule is not an error: ``schedule_state`` says so."""
        self.schedule_state = "starting"

        def start(_task: object) -> HearthScheduler:
            from core.scheduling import HearthScheduler

            scheduler = HearthScheduler(self.hearth, self._provider_factory,
                                        notify=self.hub.delivered.emit,
                                        runner=self._in_child)
            scheduler.start()
            return scheduler

        def started(scheduler: HearthScheduler) -> None:
            self.scheduler, self.schedule_state = scheduler, "running"
            if self.assistant is not None:  # the assistant was ready first: move its timers
                self._attach(scheduler, self.assistant)

        def elsewhere(message: str, _hint: str) -> None:
            log.info("schedule not started here: %s", message)
            self.schedule_state = message
            self.hub.status_message.emit(message)

        self.workers.start("Starting the schedule", start, on_done=started,
                           on_failed=elsewhere)

    def _in_child(self, kind: str, trigger: str, cancel: CancelToken) -> object:
        """The schedule's dreams and reflections run in a child process, like the ones
        started by hand (see ``desktop.isolated``); quitting cancels them (resumable)."""
        from desktop.isolated import run_in_child

        return run_in_child(kind, self.hearth.paths.home, trigger=trigger,
                            provider_factory=self.custom_provider_factory,
                            cancelled=lambda: cancel.cancelled).report

    def _attach(self, scheduler: HearthScheduler, assistant: Assistant) -> None:
        self.workers.start("Moving the quiet timers to the schedule",
                           lambda _task: scheduler.attach_learning(assistant.learning))

    # --- settings ----------------------------------------------------------------------------

    def save_settings(self, **changes: object) -> settings_ops.Saved:
        """Validate the settings the user changed against those in effect and store them
        (only them: ``core.operations.settings.save``, which tells the views). A change of
        model or host rebuilds the assistant; a new dream time reschedules."""
        saved = settings_ops.save(self.hearth, **changes)
        if self.scheduler is not None and saved.changes.touches(Domain.SCHEDULE):
            scheduler = self.scheduler
            self.workers.start("Rescheduling", lambda _task: scheduler.reschedule())
        if saved.model_changed:
            self.start_assistant()
        return saved

    # --- quitting ----------------------------------------------------------------------------

    def close(self) -> None:
        """Quit without keeping the user waiting (at most about ``QUIT_WAIT_S`` twice).

        Every job is cancelled: a reply stops at its next piece, and a dream or reflection
        in its child process (by hand or scheduled) stops at its next safe point, recorded
        cancelled; the next dream resumes it. Learning stops at once; what it had not
        finished stays due in the database and is learned at the next start. The schedule
        stops firing without waiting for a job. Jobs still ending after the wait (a child
        reaching its safe point) finish while the process exits."""
        self.workers.cancel_all()
        self.confirm.withdraw()  # a reply waiting on a question ends now, with "no"
        if self.scheduler is not None:
            self.scheduler.stop_jobs()
        if self.assistant is not None:
            if not self.assistant.stop(timeout=QUIT_WAIT_S):
                log.info("learning was inside a model call at quit; it resumes next start")
            self.assistant = None
        if not self.workers.wait(int(QUIT_WAIT_S * 1000)):
            log.info("quitting while %s end",
                     quoted(", ".join(t.name for t in self.workers.active)))
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
        self._unfollow()
        self.hearth.close()
