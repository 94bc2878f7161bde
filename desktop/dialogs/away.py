"""The "While you were away…" dialog: at the window's start, what the dreams and reflections
the user has not seen yet changed (the nightly dream, a run from `hearth dream`), each
change with Undo.

Shown once: the runs are marked reviewed when the dialog opens, and stay in Activity.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.operations.consolidation import RunChanges
from desktop.context import AppContext
from desktop.dialogs.changes_view import ChangesView
from desktop.words import count


class AwayDialog(QDialog):
    def __init__(self, ctx: AppContext, runs: list[RunChanges],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("While you were away…")
        self.setModal(False)
        self.resize(640, 420)
        kinds = {run.kind for run in runs}
        what = count(len(runs), "dream" if kinds == {"dream"} else "run")
        self.intro = QLabel(
            f"Hearth tidied its memory while you were away ({what}). This is what changed; "
            "undo anything you disagree with. You can find it again in Activity, under "
            "Runs.")
        self.intro.setWordWrap(True)
        self.tabs = QTabWidget()
        self.tabs.setTabBarAutoHide(True)
        self.views: list[ChangesView] = []
        for run in reversed(runs):  # the newest first
            view = ChangesView(ctx)
            view.show_run(run)
            self.tabs.addTab(view, run.title)
            self.views.append(view)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.close)
        layout = QVBoxLayout(self)
        layout.addWidget(self.intro)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(buttons)
