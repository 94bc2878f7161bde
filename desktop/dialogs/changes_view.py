"""What one dream or reflection changed, a line per change with Undo, and a button that
undoes the whole run: shown in the run dialog, in "While you were away…" and in Activity.

Undoing runs in the background through ``core.operations.consolidation`` (by the run's record:
what happened since is kept); the list then reloads, an undone line says so, and the views
showing memory reload through the hub. A change that cannot be undone (the profile changed
since) says why under the list.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from core.operations import consolidation
from core.operations.consolidation import Change, RunChanges, Undone
from desktop.context import AppContext
from desktop.dialogs.settings_form import show_status, status_label


class ChangeRow(QWidget):
    """One change: its sentence, and Undo (or "Undone")."""

    def __init__(self, change: Change, on_undo: Callable[[Change], None],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.change = change
        self.label = QLabel(change.text)
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.undo_button = QPushButton("Undone" if change.undone else "Undo")
        self.undo_button.setVisible(change.undoable)
        self.undo_button.setEnabled(change.undoable and not change.undone)
        self.undo_button.setToolTip("Put back what this change replaced")
        self.undo_button.clicked.connect(lambda _checked=False: on_undo(change))
        if change.undone:
            font = self.label.font()
            font.setStrikeOut(True)
            self.label.setFont(font)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 2, 0, 2)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.undo_button, 0, Qt.AlignmentFlag.AlignTop)


class ChangesView(QWidget):
    """A run's changelog with Undo; ``changed`` fires after an undo has been applied."""

    changed = Signal()

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.run: RunChanges | None = None
        self.rows: list[ChangeRow] = []
        self.empty = QLabel("This run changed nothing you can review.")
        self.empty.setWordWrap(True)
        self._list = QWidget()
        self._list_layout = QVBoxLayout(self._list)
        self._list_layout.setContentsMargins(4, 4, 4, 4)
        self._list_layout.addStretch(1)
        self._scroll = scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.StyledPanel)
        scroll.setWidget(self._list)
        self.undo_all_button = QPushButton("Undo this whole run")
        self.undo_all_button.setToolTip("Put back everything this run changed that is still "
                                        "in effect; what happened since is kept")
        self.undo_all_button.setSizePolicy(QSizePolicy.Policy.Fixed,
                                           QSizePolicy.Policy.Fixed)
        self.undo_all_button.clicked.connect(lambda _checked=False: self.undo_all())
        self.result = status_label()
        bottom = QHBoxLayout()
        bottom.addWidget(self.result, 1)
        bottom.addStretch(0)  # keeps the button at the right while no result is shown
        bottom.addWidget(self.undo_all_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.empty)
        layout.addWidget(scroll, 1)
        layout.addLayout(bottom)
        self.show_run(None)

    # --- showing ---------------------------------------------------------------------------

    def show_run(self, run: RunChanges | None) -> None:
        self.run = run
        for row in self.rows:
            row.deleteLater()
        self.rows = []
        for change in run.changes if run else []:
            row = ChangeRow(change, self.undo)
            self._list_layout.insertWidget(self._list_layout.count() - 1, row)
            self.rows.append(row)
        listed = run is not None and bool(run.changes)
        self.empty.setVisible(run is not None and not listed)
        self._scroll.setVisible(listed)
        self.undo_all_button.setVisible(any(change.undoable for change in run.changes)
                                        if run else False)
        self.undo_all_button.setEnabled(run is not None and bool(run.open_changes))

    def load(self, run_id: int) -> None:
        """Read run ``run_id``'s changelog in the background, then show it."""
        hearth = self.ctx.hearth
        self.ctx.workers.start("Reading what a run changed",
                               lambda _task: consolidation.changes_of(hearth, run_id),
                               on_done=self.show_run,
                               on_failed=lambda message, hint: show_status(
                                   self.result, f"{message} {hint}".strip(), ok=False))

    def texts(self) -> list[str]:
        return [row.change.text for row in self.rows]

    # --- undoing ---------------------------------------------------------------------------

    def undo(self, change: Change) -> None:
        if self.run is None:
            return
        run_id, hearth = self.run.run_id, self.ctx.hearth
        self._start(lambda: consolidation.undo_change(hearth, run_id, change.index))

    def undo_all(self) -> None:
        if self.run is None:
            return
        run_id, hearth = self.run.run_id, self.ctx.hearth
        self._start(lambda: consolidation.undo_run(hearth, run_id))

    def _start(self, work: Callable[[], Undone]) -> None:
        """Run ``work`` (an undo) in the background, then show the run again and say what
        it did."""
        run_id = self.run.run_id  # type: ignore[union-attr]
        for row in self.rows:
            row.undo_button.setEnabled(False)
        self.undo_all_button.setEnabled(False)

        def done(undone: Undone) -> None:
            self.show_run(undone.run)
            show_status(self.result, undone.message, ok=True)
            self.changed.emit()

        def failed(message: str, hint: str) -> None:
            show_status(self.result, f"{message} {hint}".strip(), ok=False)
            self.load(run_id)

        self.ctx.workers.start("Undoing", lambda _task: work(), on_done=done, on_failed=failed,
                               writes=True)
