"""The engine's change feed on the window's hub: every committed change, whoever made it,
becomes one ``hub.changed`` on the UI thread.

The feed calls its subscribers on the thread that committed (a worker, the learning thread,
a scheduled job, the watch of other processes), so the relay only emits a queued signal
there. On the UI thread the change sets that arrive within ``MERGE_MS`` of the first are
merged into one: an import or a dream commits many small transactions, and the views should
reload a few times a second at most, not once per transaction. No view emits a change by
hand; this is the one place ``hub.changed`` is emitted from."""

from __future__ import annotations

import threading

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot

from core.operations.changes import NOTHING, Changes

MERGE_MS = 100
"""How long the first change waits for others to join it: well inside the second within
which a view must show a change, and long enough that a burst of commits is one reload."""


class ChangeRelay(QObject):
    """Carries ``Changes`` from any thread to ``changed`` on the UI thread, merged."""

    arrived = Signal(object)
    """Emitted by the feed's subscriber (``receive``), on any thread."""
    changed = Signal(object)
    """The merged ``Changes``, on the UI thread."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._pending = NOTHING
        self._received = 0
        self._added = 0
        self._counting = threading.Lock()  # ``receive`` runs on any thread
        self._merge = QTimer(self)
        self._merge.setSingleShot(True)
        self._merge.setInterval(MERGE_MS)
        self._merge.timeout.connect(self._flush)
        self.arrived.connect(self._add, Qt.ConnectionType.QueuedConnection)

    def receive(self, changes: Changes) -> None:
        """The feed's subscriber: safe to call from any thread, returns at once."""
        with self._counting:
            self._received += 1
        self.arrived.emit(changes)

    @property
    def settled(self) -> bool:
        """Whether every change received so far is on the hub already (on the UI thread)."""
        with self._counting:
            return self._added == self._received and not self._merge.isActive()

    @Slot(object)
    def _add(self, changes: Changes) -> None:
        self._added += 1
        self._pending |= changes
        if not self._merge.isActive():
            self._merge.start()

    def _flush(self) -> None:
        changes, self._pending = self._pending, NOTHING
        if changes:
            self.changed.emit(changes)
