"""Learning you can see: under a reply, what background learning remembered or changed
from that exchange ("Remembered: your sister lives in Lisbon · Undo · Edit").

Learning runs on core's own thread after the reply; whenever facts or what learning noted
change (``FACTS``, ``RUNS`` on the hub, from the change feed: learning, an Undo here, an
edit or forget in Facts, an agent, another process), the note for the open chat is read
again in the background (``core.learning.notes``, from the database, so it is there when
the chat is reopened, and a line about a fact changed or forgotten since loses its Undo)
and attached to its reply. Undo and Edit run in the background too.

The transcript lays a long chat out a few exchanges at a time, and the notes may be read
before the chat's replies are: a note whose reply is not shown yet waits in ``_waiting``
and is attached when the page shows the replies (``attach_waiting``).
"""

from __future__ import annotations


from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.operations import chats, facts
from core.operations.changes import Changes, Domain
from core.operations.chats import LearnedFact, Unlearned
from desktop.chat.transcript import ReplyMessage, Transcript
from desktop.context import AppContext

Notes = dict[int, tuple[LearnedFact, ...]]
RETRY_MS = 50
"""How soon to look again for replies a long chat has not laid out yet."""
NOTED = (Domain.FACTS, Domain.RUNS)
"""What a note is read from: the facts, and the events learning noted them with."""


def fact_phrase(key: str, value: str) -> str:
    """A learned fact in plain words: ``sister_home_city`` → "your sister lives in …"."""
    words = key.split("_")
    if key == "home_city":
        return f"you live in {value}"
    if key in ("name", "first_name"):
        return f"your name is {value}"
    if key == "preferred_name":
        return f"you like to be called {value}"
    if key.endswith("_home_city"):
        return f"your {' '.join(words[:-2])} lives in {value}"
    if key.endswith("_name") and len(words) > 1:
        return f"your {' '.join(words[:-1])}'s name is {value}"
    return f"your {' '.join(words)}: {value}"


def note_text(item: LearnedFact) -> str:
    """One line of the note: what happened to the fact, and what it is now."""
    said = fact_phrase(item.key, item.after)
    if item.state == "undone":
        return (f"Undone: {said}" if item.action == "added"
                else f"Undone: back to {fact_phrase(item.key, item.before or '')}")
    verb = "Remembered" if item.action == "added" else "Updated"
    text = f"{verb}: {said}" + (f" (was {item.before})" if item.before else "")
    if item.state == "changed":
        text += (f", since changed to {item.current}" if item.current is not None
                 else ", since removed")
    return text


def ask_value(parent: QWidget, item: LearnedFact) -> str | None:
    """Ask for the fact's new value (``None``: cancelled or unchanged)."""
    value, ok = QInputDialog.getText(parent, "Edit what Hearth remembered",
                                     f"{fact_phrase(item.key, '…')}", text=item.current or "")
    value = value.strip()
    return value if ok and value and value != item.current else None


class LearningNote(QFrame):
    """The note under one reply: a line per learned fact, with Undo and Edit while the
    fact still holds what was learned."""

    undo_requested = Signal(object)   # LearnedFact
    edit_requested = Signal(object)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("learning-note")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(0, 4, 0, 0)
        self._layout.setSpacing(0)
        self.items: tuple[LearnedFact, ...] = ()

    @property
    def lines(self) -> list[str]:
        """The text of each line (for tests and screen readers)."""
        return [label.text() for label in self.findChildren(QLabel)]

    def show_items(self, items: tuple[LearnedFact, ...]) -> None:
        if items == self.items:
            return
        self.items = items
        while (child := self._layout.takeAt(0)) is not None:
            if (widget := child.widget()) is not None:
                widget.setParent(None)  # gone from the note now, not at the next event loop
                widget.deleteLater()
        for item in items:
            self._layout.addWidget(self._row(item))
        self.setVisible(bool(items))

    def button(self, key: str, text: str) -> QToolButton:
        """The ``text`` ("Undo" or "Edit") button of the line about ``key``."""
        for row in self.findChildren(QWidget, f"note-{key}"):
            for button in row.findChildren(QToolButton):
                if button.text() == text:
                    return button
        raise LookupError(f"no {text} button for {key}")

    def _row(self, item: LearnedFact) -> QWidget:
        row = QWidget()
        row.setObjectName(f"note-{item.key}")
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        label = QLabel(note_text(item))
        label.setWordWrap(True)
        label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(label, 1)
        if item.can_undo:
            for text, tip, signal in (
                    ("Undo", "Undo this change to what Hearth knows", self.undo_requested),
                    ("Edit", "Correct what was remembered", self.edit_requested)):
                button = QToolButton()
                button.setText(text)
                button.setToolTip(tip)
                button.setAutoRaise(True)
                button.clicked.connect(lambda _=False, s=signal, i=item: s.emit(i))
                layout.addWidget(button)
        return row


class LearningNotes(QObject):
    """Keeps the open chat's notes under their replies; see the module docstring."""

    def __init__(self, ctx: AppContext, transcript: Transcript,
                 parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._transcript = transcript
        self._session: str | None = None
        self._notes: Notes = {}
        self._waiting: set[int] = set()
        self._undone: dict[int, LearnedFact] = {}
        """Facts undone in this chat while it is open: an added fact's record goes with it,
        and its line still says "Undone" until the chat is closed."""
        self._generation = 0
        ctx.hub.changed.connect(self._changed_elsewhere)
        self._retry = QTimer(self)
        self._retry.setSingleShot(True)
        self._retry.setInterval(RETRY_MS)
        self._retry.timeout.connect(self.attach_waiting)

    def show_session(self, session_id: str | None) -> None:
        """The open chat changed: read its notes (nothing to read for no chat)."""
        self._session, self._notes, self._waiting = session_id, {}, set()
        self._undone = {}
        if session_id is not None:
            self.reload()

    def reload(self) -> None:
        session_id, hearth = self._session, self._ctx.hearth
        if session_id is None:
            return
        self._generation += 1
        generation = self._generation
        self._ctx.workers.start(
            "Reading what was learned", lambda _task: chats.learned(hearth, session_id),
            on_done=lambda notes: self._show(generation, notes), on_failed=self._failed)

    def note_for(self, interaction_id: int) -> LearningNote | None:
        reply = self._reply(interaction_id)
        return reply.findChild(LearningNote) if reply is not None else None

    # --- showing -----------------------------------------------------------------------------

    def _changed_elsewhere(self, changes: Changes) -> None:
        if changes.touches(*NOTED):
            self.reload()

    def _show(self, generation: int, notes: Notes) -> None:
        if generation != self._generation:
            return  # another chat was opened, or a newer read is on its way
        recorded = {item.event_id for items in notes.values() for item in items}
        for item in self._undone.values():
            if item.event_id not in recorded:
                notes[item.interaction_id] = (*notes.get(item.interaction_id, ()), item)
        stale = set(self._notes) - set(notes)
        self._notes = notes
        self._waiting = set(notes) | stale
        self.attach_waiting()

    def attach_waiting(self) -> None:
        """Put each waiting note under its reply; the page calls this when replies are
        shown, and it looks again shortly while the transcript is still laying a long
        chat out."""
        if not self._waiting:
            return
        replies = {reply.interaction_id: reply for reply in self._transcript.messages
                   if isinstance(reply, ReplyMessage) and reply.interaction_id is not None}
        for interaction_id in list(self._waiting):
            reply = replies.get(interaction_id)
            if reply is None:
                continue
            note = reply.findChild(LearningNote)
            if note is None:
                note = LearningNote(reply)
                note.undo_requested.connect(self._undo)
                note.edit_requested.connect(self._edit)
                reply.column.addWidget(note)
            note.show_items(self._notes.get(interaction_id, ()))
            self._waiting.discard(interaction_id)
        if self._waiting and self._transcript.loading:
            self._retry.start()

    def _reply(self, interaction_id: int) -> ReplyMessage | None:
        return next((reply for reply in self._transcript.messages
                     if isinstance(reply, ReplyMessage)
                     and reply.interaction_id == interaction_id), None)

    # --- undo and edit -----------------------------------------------------------------------

    def _undo(self, item: LearnedFact) -> None:
        hearth = self._ctx.hearth
        self._ctx.workers.start(
            "Undoing what was learned",
            lambda _task: chats.undo_learned(hearth, item.event_id),
            on_done=self._undone_now, on_failed=self._failed, writes=True)

    def _undone_now(self, unlearned: Unlearned) -> None:
        item = unlearned.item
        self._undone[item.event_id] = item
        self._ctx.hub.status_message.emit(f"{note_text(item)}.")
        self.reload()  # shows the line "Undone", kept here since its record is gone

    def _edit(self, item: LearnedFact) -> None:
        value = ask_value(self._transcript, item)
        if value is None:
            return
        hearth = self._ctx.hearth

        self._ctx.workers.start(
            "Saving your correction", lambda _task: facts.correct(hearth, item.key, value),
            on_done=lambda _done: self._ctx.hub.status_message.emit(
                f"Saved: {fact_phrase(item.key, value)}."),
            on_failed=self._failed, writes=True)

    def _failed(self, message: str, hint: str) -> None:
        self._ctx.hub.status_message.emit(f"{message} {hint}".strip())
