"""What every inspector view does the same way: load in the background, reload when what it
shows changes, and make a change in the background.

Each view names the domains it shows (``domains``) and reloads only when a ``Changes`` on
the hub's ``changed`` touches one of them: saving a fact reloads Facts, not Memories. The
hub hears of every committed write from the change feed, whoever wrote (this view, another,
the schedule, learning, an agent, another process), so a view never tells the others.

Reloading is lazy for hidden views: a change while a view is hidden only marks it stale,
and it reloads when it comes to the front, so one chat turn that stores a fact does not
make five hidden views query the database.

Loads carry a generation number and only the newest one is shown: with a search box, an
older, slower load must not overwrite the answer to what the user typed last.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, ClassVar

from PySide6.QtWidgets import QAbstractItemDelegate, QWidget

from core.operations import deleted
from core.operations.changes import KNOWLEDGE, Changes, Domain
from core.operations.deleted import DeletedItem, Restored
from core.operations.done import Done
from desktop.context import AppContext
from desktop.inspector.notice import Notice
from desktop.inspector.undo_bar import UndoBar, named
from desktop.page import Page
from desktop.workers import Task


class InspectorPage(Page):
    """A view over some part of memory. Subclasses implement ``loader`` (on the UI thread:
    read the view's own controls and return the function that loads, which runs on a worker)
    and ``show_loaded`` (on the UI thread, with what that function returned), and name the
    ``domains`` they show."""

    domains: ClassVar[frozenset[Domain]] = KNOWLEDGE
    """What this view shows: a ``Changes`` touching none of them leaves it as it is."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.notice = Notice(self)
        self.undo_bar = UndoBar(self)
        """After a delete: what went, with Undo (``offer_undo``); laid out by the subclass."""
        self._generation = 0
        self._stale = True
        self._reveal: Hashable | None = None
        ctx.hub.changed.connect(self._changed)

    # --- for subclasses ----------------------------------------------------------------------

    def loader(self) -> Callable[[], Any]:
        """The function that reads what the view shows. It runs on a worker thread, so it
        must call core only and touch no widget: take what it needs from the controls here."""
        raise NotImplementedError

    def show_loaded(self, result: Any) -> None:
        """Show what the loader's function returned (on the UI thread)."""
        raise NotImplementedError

    def select_record(self, identity: Hashable) -> None:
        """Select the record named ``identity`` and show its detail (after ``reveal``)."""
        raise NotImplementedError

    # --- loading -----------------------------------------------------------------------------

    def activate(self) -> None:
        if self._stale:
            self.reload()

    def shows(self, changes: Changes) -> bool:
        """Whether ``changes`` moved something this view shows."""
        return changes.touches(*self.domains)

    def _changed(self, changes: Changes) -> None:
        if self.shows(changes):
            self.refresh()

    def refresh(self) -> None:
        """What the view shows changed: reload now if shown, else when next shown."""
        self._stale = True
        if self.isVisible():
            self.reload()

    def reload(self) -> Task | None:
        self._stale = False
        self._generation += 1
        generation = self._generation
        load = self.loader()

        def shown(result: Any) -> None:
            if generation == self._generation:
                self.show_loaded(result)
                if self._reveal is not None:
                    identity, self._reveal = self._reveal, None
                    self.select_record(identity)

        return self.run(f"Loading “{self.title}”", lambda _task: load(), shown)

    def reveal(self, identity: Hashable) -> Task | None:
        """Show one record named elsewhere (the chat's "Fix or forget…" on a fact or a
        memory) selected, with its detail: the view reads itself again, so it shows the
        record as it is now, and selects it once that load is shown."""
        self._reveal = identity
        return self.reload()

    def watch_editors(self, delegate: QAbstractItemDelegate) -> None:
        """A view does not replace its rows under an open editor (what the user is typing
        would be lost); it stays stale instead, and this reloads it when ``delegate``'s
        editor closes. Call it for each delegate the view uses."""
        delegate.closeEditor.connect(self._editor_closed)

    def postpone(self) -> None:
        """Drop a load that arrived while an editor is open; the view reloads when the
        editor closes (see ``watch_editors``) or when it is next shown."""
        self._stale = True

    def _editor_closed(self, *_args: object) -> None:
        if self._stale:
            self.refresh()

    # --- deleting with an undo ----------------------------------------------------------------

    def offer_undo(self, item: DeletedItem, *, said: str = "",
                   erase: Callable[[DeletedItem], None] | None = None) -> str:
        """Show the undo bar for a delete that just happened; returns the status line."""
        self.undo_bar.offer(item, self.undo_delete, erase=erase, said=said)
        return f"Deleted {named(item)}."

    def undo_delete(self, item: DeletedItem) -> None:
        """Bring ``item`` back (the undo bar's Undo)."""
        hearth, entry = self.ctx.hearth, item.id

        def back(restored: Restored) -> str:
            self.undo_bar.dismiss()
            return " ".join(part for part in (f"Brought back {named(item)}.", restored.note)
                            if part)

        self.change("Bringing back what was deleted", lambda: deleted.restore(hearth, entry),
                    back)

    # --- changing ----------------------------------------------------------------------------

    def change(self, name: str, job: Callable[[], Done[Any] | Changes],
               done: Callable[[Any], str] | None = None) -> Task:
        """Run ``job`` (an operation that changes something) on a worker. On success say
        ``done(value)`` on the status bar, ``value`` being the ``Done``'s value (None for a
        bare ``Changes``); the views showing what it changed reload from the change feed,
        and this one reloads in any case, so an edit that changed nothing shows the stored
        value again. On failure keep the reason next to the view and reload, so nothing
        shows a change that was not saved."""

        def succeeded(result: Any) -> None:
            self.notice.clear()
            if isinstance(result, Done):
                changes, value = result.changes, result.value
            else:
                changes, value = result, None
            if not self.shows(changes):  # the feed reloads it otherwise
                self.refresh()
            if done is not None:
                self.ctx.hub.status_message.emit(done(value))

        def failed(message: str, hint: str) -> None:
            self.notice.show_error(message, hint)
            self.show_error(message, hint)
            self.reload()

        return self.ctx.workers.start(name, lambda _task: job(), on_done=succeeded,
                                      on_failed=failed, writes=True)
