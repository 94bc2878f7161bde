"""What every part of the window shares: the open data folder, the assistant, the schedule,
the background workers, and the hub of "something changed" signals.

Widgets never build core objects themselves; they take an ``AppContext`` and use its public
services (``ctx.hearth.facts``, ``ctx.assistant.conversation``, …) from background jobs
(``ctx.workers.start``). When a job changes what other views show, it says so on the hub
(``ctx.hub.memory_changed.emit()``) and those views reload.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal, Slot

from typing import TYPE_CHECKING

from core.app import Hearth
from core.config import save_settings
from core.llm import CancelToken, LLMProvider
from desktop.workers import Workers

if TYPE_CHECKING:  # imported when first used: they pull in the HTTP client and APScheduler,
    # a good part of the window's cold start
    from core.assistant import Assistant
    from core.scheduling import HearthScheduler

log = logging.getLogger(__name__)

ProviderFactory = Callable[[], LLMProvider]

QUIT_WAIT_S = 0.8
"""How long quitting waits for learning, then for the other jobs, to stop: together well
under the 2 seconds a person waits for a window to go away."""


class Hub(QObject):
    """Change notices between views (all emitted on the UI thread)."""

    changed = Signal(object)          # a ``core.operations.changes.Changes``: what moved
    memory_changed = Signal()        # facts, memories, profile, learnings or intentions moved
    conversations_changed = Signal()  # a chat was added, renamed, deleted or got a turn
    settings_changed = Signal()
    schedule_changed = Signal()       # the schedule started here, or runs in another process
    assistant_ready = Signal()        # ``ctx.assistant`` is (re)built and can chat
    assistant_failed = Signal(str, str)
    run_finished = Signal(str, object)  # ("reflect" | "dream", report)
    notify = Signal(str, str)         # (title, text): a tray balloon or a status message
    status_message = Signal(str)


class CrossThreadConfirm(QObject):
    """The conversation's ``confirm(question) -> bool`` for tools such as forget: called on
    a worker thread, answered by a dialog on the UI thread, the worker waiting meanwhile.

    The window connects ``asked`` to a slot that shows the question and calls ``answer``.
    With nobody connected (headless use) the answer is no: nothing is forgotten unasked."""

    asked = Signal(str)

    def __init__(self) -> None:
        super().__init__()
        self._answered = threading.Event()
        self._answer = False
        self._lock = threading.Lock()

    def __call__(self, question: str) -> bool:
        with self._lock:  # one question at a time
            if not self.receivers_connected():
                return False
            self._answered.clear()
            self._answer = False
            self.asked.emit(question)
            self._answered.wait()
            return self._answer

    def receivers_connected(self) -> bool:
        return self.receivers(self.asked) > 0  # type: ignore[arg-type]

    @Slot(bool)
    def answer(self, yes: bool) -> None:
        self._answer = yes
        self._answered.set()


class AppContext(QObject):
    """The open data folder and everything the window runs on it."""

    def __init__(self, hearth: Hearth, *, provider_factory: ProviderFactory | None = None,
                 workers: Workers | None = None) -> None:
        super().__init__()
        self.hearth = hearth
        self.hub = Hub()
        self.workers = workers or Workers(parent=self)
        self.confirm = CrossThreadConfirm()
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
        from core.llm.selection import build_provider

        return build_provider(self.hearth.settings)

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
        """Run the nightly dream, decay, event processing, follow-ups and the session-quiet
        timers in this process, started off the UI thread (it reads and writes the job
        store). Both ready callbacks run on the UI thread, so whichever of assistant and
        schedule comes second attaches the learning to the schedule. Another Hearth
        already running the schedule is not an error: ``schedule_state`` says so."""
        self.schedule_state = "starting"

        def start(_task: object) -> HearthScheduler:
            from core.scheduling import HearthScheduler

            scheduler = HearthScheduler(self.hearth, self._provider_factory,
                                        notify=self.hub.notify.emit, runner=self._in_child)
            scheduler.start()
            return scheduler

        def started(scheduler: HearthScheduler) -> None:
            self.scheduler, self.schedule_state = scheduler, "running"
            if self.assistant is not None:  # the assistant was ready first: move its timers
                self._attach(scheduler, self.assistant)
            self.hub.schedule_changed.emit()

        def elsewhere(message: str, _hint: str) -> None:
            log.info("schedule not started here: %s", message)
            self.schedule_state = message
            self.hub.status_message.emit(message)
            self.hub.schedule_changed.emit()

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

    def save_settings(self, **changes: object) -> None:
        """Validate the settings the user changed against those in effect, store them (only
        them: ``core.config.save_settings``), then tell the views. A change of model or
        host rebuilds the assistant; a new dream time reschedules."""
        updated = self.hearth.settings.model_validate(
            {**self.hearth.settings.model_dump(), **changes})
        save_settings(self.hearth.paths, {name: getattr(updated, name) for name in changes})
        for name in changes:  # in place: every service holds this same Settings object
            setattr(self.hearth.settings, name, getattr(updated, name))
        if self.scheduler is not None and "dream_time" in changes:
            scheduler = self.scheduler
            self.workers.start("Rescheduling", lambda _task: scheduler.reschedule())
        if changes.keys() & {"llm_provider", "ollama_host", "ollama_model",
                             "embedded_model_path"}:
            self.start_assistant()
        self.hub.settings_changed.emit()

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
        if self.scheduler is not None:
            self.scheduler.stop_jobs()
        if self.assistant is not None:
            if not self.assistant.stop(timeout=QUIT_WAIT_S):
                log.info("learning was inside a model call at quit; it resumes next start")
            self.assistant = None
        if not self.workers.wait(int(QUIT_WAIT_S * 1000)):
            log.info("quitting while %s end", ", ".join(t.name for t in self.workers.active))
        if self.scheduler is not None:
            self.scheduler.shutdown(wait=False)
            self.scheduler = None
        self.hearth.close()
