"""After a fact is forgotten: what was removed, and "Remove it from backups too".

The dialog is the only thing that keeps the forgotten values after the forget (inside the
``Forgotten`` it was given, in memory), so that the same action can rewrite the backups that
still hold them; closing the dialog lets them go. The rewrite runs on a worker and the
dialog cannot be closed until it has finished, so its answer always has somewhere to go.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QLabel, QPushButton, QVBoxLayout, QWidget

from core.operations.facts import (
    FILES,
    BackupRewrite,
    Forgotten,
    backups_held,
    redactions,
    rewritten,
    unmasked,
)
from desktop.words import count, spaced
from desktop.workers import Workers


class ForgetResultDialog(QDialog):
    def __init__(self, forgotten: Forgotten, workers: Workers,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._forgotten: Forgotten | None = forgotten
        self._workers = workers
        report = forgotten.report
        self.setWindowTitle("Fact forgotten")
        self.summary = QLabel(" ".join(filter(None, (
            f"“{spaced(report.key)}” is forgotten.", redactions(report),
            FILES[report.files], *unmasked(report)))))
        self.backups = QLabel("\n".join([backups_held(len(report.backups)),
                                         *(f"  {path.name}" for path in report.backups)]))
        self.outcome = QLabel()
        for label in (self.summary, self.backups, self.outcome):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.remove = QPushButton("&Remove it from backups too")
        self.remove.setToolTip("Rewrite those backups without it (each is checked before it "
                               "replaces the original)")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.backups)
        layout.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.outcome)
        layout.addWidget(self.buttons)
        self.backups.setVisible(bool(report.backups))
        self.remove.setVisible(bool(report.backups))
        self.outcome.hide()
        self.remove.clicked.connect(self.remove_from_backups)
        self.buttons.rejected.connect(self.reject)
        self.setMinimumWidth(460)

    def remove_from_backups(self) -> None:
        forgotten = self._forgotten
        if forgotten is None:
            return
        self.remove.setEnabled(False)
        self.buttons.setEnabled(False)
        self.outcome.setText(f"Rewriting {count(len(forgotten.report.backups), 'backup')}…")
        self.outcome.show()
        self._workers.start("Removing a forgotten fact from backups",
                            lambda _task: forgotten.remove_from_backups(),
                            on_done=self._rewritten, on_failed=self._failed)

    def reject(self) -> None:
        """Close, unless the backups are being rewritten (their outcome must be shown)."""
        if self.buttons.isEnabled():
            self._forgotten = None
            super().reject()

    def _rewritten(self, rewrites: tuple[BackupRewrite, ...]) -> None:
        self.outcome.setText("\n".join(rewritten(rewrites, lambda path: path.name)))
        self.remove.setVisible(not all(rewrite.ok for rewrite in rewrites))
        self.remove.setEnabled(True)
        self.buttons.setEnabled(True)

    def _failed(self, message: str, hint: str) -> None:
        self.outcome.setText(f"{message} {hint}".strip())
        self.remove.setEnabled(True)
        self.buttons.setEnabled(True)
