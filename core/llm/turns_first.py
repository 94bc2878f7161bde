"""The user's turn goes first: background model work gives way to it.

One model serves both the conversation and the learning behind it, and a local model answers
one request at a time (the embedded one has a single slot; Ollama queues too). Learning
starts as soon as an exchange ends, so the user's next message used to wait behind a fact
extraction: on the embedded model, measured on a busy two-core machine, a second message
waited more than two minutes for its first word. So:

* a turn announces itself (``turn()``, around the model calls of a reply); the background
  request under way is cancelled at once (at its next token), and no new one starts while
  a turn runs;
* background work runs through ``run(call, stop)``: it waits while a turn runs, calls
  ``call(token)`` with a token that is cancelled when Hearth quits (``stop``) *or* a turn
  starts, and when it was a turn that stopped it, waits for the turn to end and calls again
  from the start (the work is repeated, never lost or half-applied: the callers write only
  after their model call returns).

Quitting is not giving way: ``run`` then lets ``LLMCancelled`` through, as before, and what
was not learned stays due in the database for the next start.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from core.llm.protocol import CancelToken, LLMCancelled

log = logging.getLogger(__name__)

T = TypeVar("T")

QUIT_POLL_SECONDS = 0.2
"""How often background work waiting for a turn to end checks whether Hearth quits."""


class _GiveWayToken(CancelToken):
    """Cancelled by a turn starting (``give_way``) or by ``stop`` (Hearth quitting)."""

    def __init__(self, stop: CancelToken) -> None:
        super().__init__()
        self._stop = stop
        self.gave_way = False

    def give_way(self) -> None:
        self.gave_way = True
        self.cancel()

    @property
    def cancelled(self) -> bool:
        return super().cancelled or self._stop.cancelled


class TurnsFirst:
    """Shared by the conversation and the background learning of one assistant."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._turns = 0
        self._background: set[_GiveWayToken] = set()
        self.gave_way = 0
        """How many background model calls were cut short by a turn (and run again)."""

    @contextmanager
    def turn(self) -> Iterator[None]:
        """While this is open, background model work stops and waits."""
        with self._changed:
            self._turns += 1
            for token in self._background:
                token.give_way()
        try:
            yield
        finally:
            with self._changed:
                self._turns -= 1
                self._changed.notify_all()

    def run(self, call: Callable[[CancelToken], T], stop: CancelToken) -> T:
        """``call(token)`` as background work (see the module docstring). Raises
        ``LLMCancelled`` only when ``stop`` is cancelled."""
        while True:
            token = self._start(stop)
            try:
                return call(token)
            except LLMCancelled:
                if stop.cancelled or not token.gave_way:
                    raise
                with self._changed:
                    self.gave_way += 1
                log.info("background model work gave way to the user's turn; "
                         "it runs again once the reply is done")
            finally:
                with self._changed:
                    self._background.discard(token)

    def _start(self, stop: CancelToken) -> _GiveWayToken:
        """A registered token, once no turn runs (raises ``LLMCancelled`` on ``stop``)."""
        with self._changed:
            while self._turns and not stop.cancelled:
                self._changed.wait(QUIT_POLL_SECONDS)
            if stop.cancelled:
                raise LLMCancelled("Hearth is quitting.", "The work resumes at the next start.")
            token = _GiveWayToken(stop)
            self._background.add(token)
            return token
