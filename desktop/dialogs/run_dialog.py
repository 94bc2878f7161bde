"""The dialog of a reflection or dream run: what is happening, in a sentence, with a
progress bar and Cancel while it runs; then what it did, in plain words, each change with
Undo (``desktop.dialogs.changes_view``). The steps with
their counts and timings, the warnings and the profile's diff are behind "Details".

A Cancel is reported as cancelled: the bar stays where the run stopped and the sentence
says what was kept, never "Failed".
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.operations.consolidation import stage_name, stage_status
from desktop.context import AppContext
from desktop.dialogs.changes_view import ChangesView
from desktop.dialogs.disclosure import Disclosure
from desktop.diff_view import DiffView
from desktop.run_summary import cancelled_summary, summary
from desktop.workers import Task
from desktop.words import spaced


class RunDialog(QDialog):
    def __init__(self, kind: str, title: str, ctx: AppContext,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.kind = kind
        self.setWindowTitle(title)
        self.setModal(False)
        self.resize(620, 460)
        self.state = QLabel(f"{title}…")
        self.state.setWordWrap(True)
        self.bar = QProgressBar()
        self.stages = QTableWidget(0, 0)
        self.stages.horizontalHeader().setStretchLastSection(True)
        self.stages.verticalHeader().hide()
        self.stages.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.diff = DiffView()
        self.changes = ChangesView(ctx)
        details = QWidget()
        details_layout = QVBoxLayout(details)
        details_layout.setContentsMargins(0, 0, 0, 0)
        details_layout.addWidget(self.stages, 1)
        details_layout.addWidget(self.diff, 1)
        self.details = Disclosure(details)
        self.details.toggle.setToolTip("Each step of the run, with its counts and timings")
        self.cancel_button = QPushButton("Cancel")
        buttons = QDialogButtonBox()
        buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.hide)
        layout = QVBoxLayout(self)
        layout.addWidget(self.state)
        layout.addWidget(self.bar)
        layout.addWidget(self.changes, 4)
        layout.addWidget(self.details, 2)
        layout.addStretch(1)  # while the run goes, the sentence and the bar stay on top
        layout.addWidget(buttons)
        self._task: Task | None = None

    def follow(self, task: Task) -> None:
        """Show ``task``'s progress; Cancel asks it to stop."""
        self._task = task
        self.bar.setRange(0, 0)  # busy until the first report
        self.bar.show()
        self.stages.setRowCount(0)
        self.diff.clear()
        self.diff.hide()
        self.details.hide()
        self.changes.show_run(None)
        self.changes.hide()
        self.cancel_button.setEnabled(True)
        self.cancel_button.clicked.connect(self._cancel)
        task.progressed.connect(self._progress)
        task.succeeded.connect(self.show_result)
        task.failed.connect(self._failed)

    def show_and_raise(self) -> None:
        self.show()
        self.raise_()
        self.activateWindow()

    @property
    def cancelled(self) -> bool:
        return self._task is not None and self._task.cancelled

    def _cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self.state.setText("Stopping at the next safe point…")
            self.cancel_button.setEnabled(False)

    def _progress(self, done: int, total: int, label: str) -> None:
        self.bar.setRange(0, max(total, 0))
        self.bar.setValue(done)
        if label and not self.cancelled:
            self.state.setText(label)

    def _failed(self, message: str, hint: str) -> None:
        if self.cancelled:
            self._stop(full=False)
            self._headline(*cancelled_summary(self.kind))
            return
        self._stop(full=False)
        self._headline("This run did not finish", f"{message} {hint}".strip())

    def _stop(self, *, full: bool) -> None:
        """The run is over: a full bar when it finished, else the bar stays where the run
        stopped (an unknown position shows an empty bar, never a full one)."""
        if full:
            self.bar.setRange(0, 1)
            self.bar.setValue(1)
        elif self.bar.maximum() == 0:
            self.bar.setRange(0, 1)
            self.bar.setValue(0)
        self.cancel_button.setEnabled(False)

    def _headline(self, title: str, line: str) -> None:
        self.state.setText(f"<b>{title}</b><br>{line}")

    def show_result(self, outcome: Any) -> None:
        """``outcome`` is a ``desktop.isolated.RunOutcome``."""
        self._stop(full=not outcome.cancelled)
        self._headline(*summary(outcome))
        headers, rows = _table(outcome.report)
        self.stages.setColumnCount(len(headers))
        self.stages.setHorizontalHeaderLabels(headers)
        self.stages.setRowCount(len(rows))
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                self.stages.setItem(row, column, QTableWidgetItem(value))
        self.stages.resizeColumnsToContents()
        self.diff.setVisible(bool(outcome.about_you_diff))
        self.diff.show_diff(outcome.about_you_diff)
        self.details.show()
        if outcome.report.changes:
            self.changes.load(outcome.report.run_id)
            self.changes.show()


def _table(report: Any) -> tuple[list[str], list[list[str]]]:
    """A dream: one row per step. A reflection: what it added and changed, then the notes
    about the model's answer (``warnings``) for whoever wants to know why."""
    if hasattr(report, "stages"):
        return ["Step", "How it went", "Took", "Counts"], [
            [stage_name(name), stage_status(stage.status), f"{stage.seconds:.1f} s",
             stage.error or counts_line(stage.counts)]
            for name, stage in report.stages.items()]
    rows = [[spaced(name).capitalize(), str(value)]
            for name, value in report.counts().items()
            if isinstance(value, int) and not isinstance(value, bool) and name != "run_id"]
    rows += [["Note", warning] for warning in report.warnings]
    return ["What", "How many"], rows


def counts_line(counts: dict[str, Any]) -> str:
    """``3 merged · 12 demoted``: a step's counts, run ids and paths left out."""
    return " · ".join(f"{value:,} {spaced(key)}" for key, value in counts.items()
                      if isinstance(value, int) and not isinstance(value, bool)
                      and key not in ("run_id", "resumed_from", "bytes"))

