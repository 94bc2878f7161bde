"""After a fact or memories are erased (or an import removed): what was removed and what was
left, and "Remove it from backups too".

The dialog is the only thing that keeps the removed texts after the action (inside the
``Forgotten`` or ``MemoriesDeleted`` it was given, in memory), so that the same action can
rewrite the backups that still hold them; closing the dialog lets them go. The rewrite runs
on a worker and the dialog cannot be closed until it has finished, so its answer always has
somewhere to go.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.operations.facts import (
    FILES,
    BackupRewrite,
    Forgotten,
    backups_held,
    kept,
    redactions,
    rewritten,
    unmasked,
)
from core.operations.data import backup_words
from core.operations.memories import MemoriesDeleted, memories_deleted
from desktop.words import count, spaced
from desktop.workers import Workers

Rewrite = Callable[[], tuple[BackupRewrite, ...]]


class ForgetResultDialog(QDialog):
    """``summary``: what went; ``backups``: the copies that still hold it, rewritten by
    ``remove`` when the user asks; ``what``: "it" or "them", as the sentences say it."""

    def __init__(self, title: str, summary: str, backups: tuple[Path, ...], remove: Rewrite,
                 workers: Workers, parent: QWidget | None = None, what: str = "it") -> None:
        super().__init__(parent)
        self._rewrite: Rewrite | None = remove
        self._held = backups
        self._what = what
        self._workers = workers
        self.setWindowTitle(title)
        self.summary = QLabel(summary)
        self.backups = QLabel("\n".join([backups_held(len(backups), what),
                                         *(f"  {backup_words(path)}" for path in backups)]))
        self.outcome = QLabel()
        for label in (self.summary, self.backups, self.outcome):
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        self.remove = QPushButton(f"&Remove {what} from backups too")
        self.remove.setToolTip(f"Rewrite those backups without {what} (each is checked "
                               "before it replaces the original)")
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.backups)
        layout.addWidget(self.remove, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.outcome)
        layout.addWidget(self.buttons)
        self.backups.setVisible(bool(backups))
        self.remove.setVisible(bool(backups))
        self.outcome.hide()
        self.remove.clicked.connect(self.remove_from_backups)
        self.buttons.rejected.connect(self.reject)
        self.setMinimumWidth(460)

    @classmethod
    def forgotten(cls, forgotten: Forgotten, workers: Workers,
                  parent: QWidget | None = None) -> ForgetResultDialog:
        report = forgotten.report
        summary = " ".join(filter(None, (
            f"“{spaced(report.key)}” is erased. It cannot be brought back.", redactions(report),
            kept(report), FILES[report.files], *unmasked(report))))
        return cls("Fact erased", summary, report.backups, forgotten.remove_from_backups,
                   workers, parent)

    @classmethod
    def deleted(cls, deleted: MemoriesDeleted, workers: Workers,
                parent: QWidget | None = None, *, erased: bool = False) -> ForgetResultDialog:
        """After memories went for good (``erased``: an Erase everywhere, else an import's
        removal). The backups line is the dialog's own (with the names), not the summary's."""
        report = deleted.report
        what = "it" if report.deleted == 1 else "them"
        lines = memories_deleted(report, backups=False, erased=erased)
        if erased:
            lines.append("It cannot be brought back.")
        verb = "erased" if erased else "deleted"
        title = f"Memory {verb}" if report.deleted == 1 else f"Memories {verb}"
        return cls(title, " ".join(lines), report.backups, deleted.remove_from_backups,
                   workers, parent, what)

    def remove_from_backups(self) -> None:
        rewrite = self._rewrite
        if rewrite is None:
            return
        self.remove.setEnabled(False)
        self.buttons.setEnabled(False)
        self.outcome.setText(f"Rewriting {count(len(self._held), 'backup')}…")
        self.outcome.show()
        self._workers.start("Removing what was forgotten from backups",
                            lambda _task: rewrite(), on_done=self._rewritten,
                            on_failed=self._failed)

    def reject(self) -> None:
        """Close, unless the backups are being rewritten (their outcome must be shown)."""
        if self.buttons.isEnabled():
            self._rewrite = None
            super().reject()

    def _rewritten(self, rewrites: tuple[BackupRewrite, ...]) -> None:
        self.outcome.setText("\n".join(rewritten(rewrites, lambda path: path.name,
                                                          self._what)))
        self.remove.setVisible(not all(rewrite.ok for rewrite in rewrites))
        self.remove.setEnabled(True)
        self.buttons.setEnabled(True)

    def _failed(self, message: str, hint: str) -> None:
        self.outcome.setText(f"{message} {hint}".strip())
        self.remove.setEnabled(True)
        self.buttons.setEnabled(True)
