"""The chat page's side of the approval gate: loading a chat's held requests into the
transcript and carrying out the user's Confirm, Edit or Cancel.

Every answer runs through ``core.operations.pending`` as a background write job. Confirm
applies the change (the views of tasks, reminders or notes hear of it through the hub);
a refusal (the request expired, was answered in another window) shows on the card as it
now stands. Edit opens a task's or a reminder's own form (``desktop.chat.held_forms``), whose
Save adds it as edited; for any other request it cancels the request and puts the user's
original message in the composer, to be changed and sent again. One Tab from the message box
reaches the newest waiting card's Confirm (``chain_keyboard``), and after an answer the
keyboard is back in the message box.

A request may also be answered outside this window (``hearth pending confirm``, ``hearth
chat``, another device on a shared database), which no signal reports here. The open chat's
waiting cards are read again when Hearth becomes the active application (the user coming
back from the terminal where they answered) and when the Chat view comes to the front: one
indexed read, and none at all while no card waits. Why not a timer: a card only matters
while someone looks at it, and looking at it means coming back to the window.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QGuiApplication, QTextCursor
from PySide6.QtWidgets import QWidget

from core.operations import pending
from core.operations.done import Done
from core.operations.pending import PendingItem
from desktop.chat.composer import Composer
from desktop.chat.held_forms import held_form
from desktop.chat.transcript import Transcript
from desktop.context import AppContext

EDITED = "Cancelled: change your request below and send it again."


class PendingAnswers(QObject):
    """Connects a transcript's cards to the gate; ``current()`` is the open chat's id."""

    def __init__(self, ctx: AppContext, transcript: Transcript, composer: Composer,
                 current: Callable[[], str | None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._ctx = ctx
        self._transcript = transcript
        self._composer = composer
        self._current = current
        transcript.pending_confirm_requested.connect(self.confirm)
        transcript.pending_cancel_requested.connect(self.cancel)
        transcript.pending_edit_requested.connect(self.edit)
        app = QGuiApplication.instance()
        if isinstance(app, QGuiApplication):
            app.applicationStateChanged.connect(self._application_state)

    def refresh(self) -> None:
        """Bring the open chat's waiting cards up to date (see the module docstring)."""
        session_id = self._current()
        if session_id is not None and any(card.waiting
                                          for card in self._transcript.cards.values()):
            self.load(session_id)

    def _application_state(self, state: Qt.ApplicationState) -> None:
        if state == Qt.ApplicationState.ApplicationActive:
            self.refresh()

    def load(self, session_id: str) -> None:
        """Show the requests of ``session_id`` (if it is still the open chat by then)."""
        hearth = self._ctx.hearth

        def show(items: tuple[PendingItem, ...]) -> None:
            if self._current() == session_id:
                self._transcript.show_pending(items)
                self.chain_keyboard()

        self._ctx.workers.start("Reading the requests to confirm",
                                lambda _task: pending.of_session(hearth, session_id),
                                on_done=show, on_failed=self._say, owner=self)

    def confirm(self, action_id: int) -> None:
        hearth = self._ctx.hearth
        self._answer("Confirming", action_id, lambda _task: pending.confirm(hearth, action_id))

    def cancel(self, action_id: int) -> None:
        hearth = self._ctx.hearth
        self._answer("Cancelling", action_id, lambda _task: pending.cancel(hearth, action_id))

    def chain_keyboard(self) -> None:
        """One Tab from the message box reaches the newest waiting card's Confirm (then its
        Edit and Cancel, then Send), rather than a walk through every message's buttons."""
        edit, send = self._composer.edit, self._composer.send_button
        waiting = [card for card in self._transcript.cards.values() if card.waiting]
        if not waiting:
            QWidget.setTabOrder(edit, send)
            return
        card = max(waiting, key=lambda card: card.item.id)
        QWidget.setTabOrder(edit, card.confirm_button)
        QWidget.setTabOrder(card.confirm_button, card.edit_button)
        QWidget.setTabOrder(card.edit_button, card.cancel_button)
        QWidget.setTabOrder(card.cancel_button, send)

    def edit(self, item: PendingItem) -> None:
        """Open a task's or reminder's own form (Save adds it as edited); any other request
        is cancelled and its message offered again in the composer."""
        card = self._transcript.cards.get(item.id)
        form = held_form(self._ctx, item, self._transcript.window())
        if form is not None:
            form.accepted.connect(lambda: self._edited(form.saved))
            form.rejected.connect(lambda: card.update_item(item) if card is not None else None)
            form.finished.connect(lambda _result: form.deleteLater())
            form.open()
            return
        hearth = self._ctx.hearth

        def edited(done: Done[PendingItem]) -> None:
            self._shown(done)
            card = self._transcript.cards.get(item.id)
            if card is not None:
                card.show_outcome(EDITED)
            self._composer.edit.setPlainText(item.source_message)
            self._composer.edit.moveCursor(QTextCursor.MoveOperation.End)
            self._composer.edit.setFocus()

        self._ctx.workers.start("Cancelling to edit",
                                lambda _task: pending.cancel(hearth, item.id),
                                on_done=edited, owner=self, writes=True,
                                on_failed=lambda message, hint: self._refused(
                                    item.id, f"{message} {hint}".strip()))

    def _answer(self, name: str, action_id: int, job: Callable[[object], Done[PendingItem]]
                ) -> None:
        self._ctx.workers.start(name, job, on_done=self._shown, owner=self, writes=True,
                                on_failed=lambda message, hint: self._refused(
                                    action_id, f"{message} {hint}".strip()))

    def _shown(self, done: Done[PendingItem]) -> None:
        self._edited(done.value)

    def _edited(self, item: PendingItem) -> None:
        """Show the answered request on its card; the keyboard goes back to the box."""
        card = self._transcript.cards.get(item.id)
        if card is not None:
            card.update_item(item)
        self.chain_keyboard()
        self._composer.edit.setFocus()

    def _refused(self, action_id: int, text: str) -> None:
        """Show why, with the request as it now stands (expired, answered elsewhere)."""
        session_id = self._current()
        card = self._transcript.cards.get(action_id)
        if session_id is None or card is None:
            self._say(text, "")
            return
        hearth = self._ctx.hearth

        def show(items: tuple[PendingItem, ...]) -> None:
            now = next((item for item in items if item.id == action_id), None)
            if now is not None and now.status != "pending":
                card.update_item(now)
            else:
                card.show_failure(text)

        self._ctx.workers.start("Reading the request", lambda _task: pending.of_session(
            hearth, session_id), on_done=show, on_failed=self._say, owner=card)

    def _say(self, message: str, hint: str) -> None:
        self._ctx.hub.status_message.emit(f"{message} {hint}".strip())
