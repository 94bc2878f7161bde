"""What changed, named by domain, and how the window follows it.

The values (``Domain``, ``Changes``) live with storage, where every write transaction's
change set is derived (``core.storage.changes``, ``core.storage.change_feed``); the window
imports them from here, its doorway. ``follow`` is how it hears of every change, whoever
made it."""

from __future__ import annotations

from collections.abc import Callable

from core.app import Hearth
from core.storage.changes import KNOWLEDGE as KNOWLEDGE
from core.storage.changes import NOTHING as NOTHING
from core.storage.changes import Changes as Changes
from core.storage.changes import Domain as Domain


def follow(hearth: Hearth, subscriber: Callable[[Changes], None]) -> Callable[[], None]:
    """Call ``subscriber(changes)`` after every committed change to what Hearth keeps:
    those made in this process (the window's operations, the schedule's jobs, learning, an
    agent) at once, on the writer's thread, and those other processes or devices commit
    within ``core.storage.change_watch.POLL_SECONDS``, on the watch's thread. It must
    return quickly and never block. Returns the function that stops the calls."""
    feed = hearth.storage.changes
    stop = feed.subscribe(subscriber)
    feed.watch()
    return stop
