"""The dialog of a reflection or dream run: a progress bar and a Cancel button while it
runs, then what it did (per-stage counts and durations, the profile's diff)."""

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

from desktop.inspector.diff_view import DiffView
from desktop.workers import Task


class RunDialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
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
        self.cancel_button = QPushButton("Cancel")
        buttons = QDialogButtonBox()
        buttons.addButton(self.cancel_button, QDialogButtonBox.ButtonRole.RejectRole)
        self.close_button = buttons.addButton(QDialogButtonBox.StandardButton.Close)
        self.close_button.clicked.connect(self.hide)
        layout = QVBoxLayout(self)
        for widget in (self.state, self.bar, self.stages, self.diff, buttons):
            layout.addWidget(widget)
        self._task: Task | None = None

    def follow(self, task: Task) -> None:
        """Show ``task``'s progress; Cancel asks it to stop."""
        self._task = task
        self.bar.setRange(0, 0)  # busy until the first report
        self.stages.setRowCount(0)
        self.diff.clear()
        self.diff.hide()
        self.cancel_button.setEnabled(True)
        self.cancel_button.clicked.connect(self._cancel)
        task.progressed.connect(self._progress)
        task.succeeded.connect(self.show_result)
        task.failed.connect(self._failed)

    def show_and_raise(self) -> None:
        self.show()
        self.raise_()
        self.activateWindow()

    def _cancel(self) -> None:
        if self._task is not None:
            self._task.cancel()
            self.state.setText("Stopping at the next safe point…")
            self.cancel_button.setEnabled(False)

    def _progress(self, done: int, total: int, label: str) -> None:
        self.bar.setRange(0, max(total, 0))
        self.bar.setValue(done)
        if label:
            self.state.setText(label)

    def _failed(self, message: str, hint: str) -> None:
        self._stop_busy()
        self.state.setText(f"Failed: {message} {hint}".strip())

    def _stop_busy(self) -> None:
        self.bar.setRange(0, 1)
        self.bar.setValue(1)
        self.cancel_button.setEnabled(False)

    def show_result(self, outcome: Any) -> None:
        """``outcome`` is a ``desktop.runs.RunOutcome``."""
        from desktop.runs import summary

        self._stop_busy()
        report = outcome.report
        title, line = summary(outcome)
        self.state.setText(f"<b>{title}</b><br>{line}")
        headers, rows = _table(report)
        self.stages.setColumnCount(len(headers))
        self.stages.setHorizontalHeaderLabels(headers)
        self.stages.setRowCount(len(rows))
        for row, values in enumerate(rows):
            for column, value in enumerate(values):
                self.stages.setItem(row, column, QTableWidgetItem(value))
        self.stages.resizeColumnsToContents()
        self.diff.setVisible(bool(outcome.profile_diff))
        self.diff.show_diff(outcome.profile_diff)


def _table(report: Any) -> tuple[list[str], list[list[str]]]:
    """A dream: one row per stage. A reflection: what it added and changed."""
    if hasattr(report, "stages"):
        return ["stage", "status", "seconds", "counts"], [
            [name, stage.status, f"{stage.seconds:.2f}",
             stage.error or ", ".join(f"{k} {v}" for k, v in stage.counts.items()
                                      if not isinstance(v, dict))]
            for name, stage in report.stages.items()]
    rows = [[name.replace("_", " "), str(value)] for name, value in report.counts().items()
            if isinstance(value, int) and not isinstance(value, bool) and name != "run_id"]
    rows += [["warning", warning] for warning in report.warnings]
    return ["result", "count"], rows
