"""Activity: what consolidation still has to do and what it did.

The event queue lists every observation not yet consolidated: pending ones (with what they
wait for when the model could not answer), and failed ones with their attempts and last
error, which the user can retry, one or all at once, once the cause is fixed (a larger
model is chosen). The run history lists reflection, dream, processor
and decay runs; selecting one shows its stages with their counts, seconds and errors, and,
behind "Error details…", where a failed stage raised (its traceback, for a bug report).

The page reloads when the change feed says the queue or the runs moved, whoever moved
them: this window, the schedule's processor and decay, a dream's child process, another
device.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from PySide6.QtCore import QItemSelectionModel, QModelIndex, QPersistentModelIndex, Qt
from PySide6.QtGui import QColor, QFontDatabase
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.operations import consolidation
from core.operations.changes import Domain
from core.operations.consolidation import (
    REVIEWED_KINDS,
    RUN_KINDS,
    EventView,
    RunView,
    StageView,
    run_kind,
    run_status,
    stage_name,
    stage_status,
)
from desktop.context import AppContext
from desktop.dialogs.changes_view import ChangesView
from desktop.dialogs.disclosure import Disclosure
from desktop.icons import icon
from desktop.inspector.base import InspectorPage
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.notice import WARNING
from desktop.inspector.table import Column, FilterProxy, RowModel, make_table_view
from desktop.words import EVENT_STATE_WORDS, count

T = TypeVar("T")
FAILED = "failed"
FLAGGED_STAGES = frozenset({FAILED, "skipped"})
"""A step that failed, or was skipped by the person's choice (a dream without its backup)."""

RUNS_SHOWN = 500
EVENTS_SHOWN = 1000
CONTENT_CHARS = 120
ERROR_COLUMN, ERROR_WIDTH = 5, 320
"""The last error gets room to be read at a glance (all of it is below the table)."""


@dataclass(frozen=True)
class Snapshot:
    events: list[EventView]
    waiting: int
    runs: list[RunView]


def counts_text(counts: dict[str, Any]) -> str:
    """``events 3 · memories 2``: a run's or stage's counts on one line."""
    return " · ".join(f"{key.replace('_', ' ')} {value}" for key, value in counts.items())


def duration_text(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"


def _one_line(text: str | None) -> str:
    flat = " ".join((text or "").split())
    return flat if len(flat) <= CONTENT_CHARS else flat[:CONTENT_CHARS - 1] + "…"


EVENT_COLUMNS: tuple[Column[EventView], ...] = (
    Column("#", lambda e: str(e.id), lambda e: e.id),
    Column("State", lambda e: EVENT_STATE_WORDS.get(e.state.value, e.state.value)),
    Column("What", lambda e: e.kind_words),
    Column("Created", lambda e: local_time(e.created_at), lambda e: time_key(e.created_at)),
    Column("Attempts", lambda e: str(e.attempts), lambda e: e.attempts),
    Column("Last error", lambda e: _one_line(e.last_error)),
    Column("Said", lambda e: _one_line(e.said)),
)
TRIGGERS = {"manual": "by you", "scheduled": "on schedule", "schedule": "on schedule",
            "dream": "during a dream"}


def trigger_text(trigger: str) -> str:
    return TRIGGERS.get(trigger, trigger)


def reviewed(run: RunView) -> bool:
    """Runs with a changelog of their own: a dream's reflection is listed with its dream."""
    return run.kind in REVIEWED_KINDS and run.trigger != "dream"


def changes_text(run: RunView) -> str:
    if not reviewed(run):
        return ""
    return count(run.change_count, "change") if run.change_count else "none"


RUN_COLUMNS: tuple[Column[RunView], ...] = (
    Column("#", lambda r: str(r.id), lambda r: r.id),
    Column("What", lambda r: run_kind(r.kind)),
    Column("Started", lambda r: trigger_text(r.trigger)),
    Column("How it went", lambda r: run_status(r.status)),
    Column("When", lambda r: local_time(r.started_at), lambda r: time_key(r.started_at)),
    Column("Took", lambda r: duration_text(r.seconds), lambda r: r.seconds or 0.0),
    Column("Changes", changes_text, lambda r: r.change_count),
)
STAGE_COLUMNS: tuple[Column[StageView], ...] = (
    Column("Step", lambda s: stage_name(s.name)),
    Column("How it went", lambda s: stage_status(s.status)),
    Column("Took", lambda s: duration_text(s.seconds), lambda s: s.seconds or 0.0),
    Column("Counts", lambda s: counts_text(s.counts)),
    Column("Error", lambda s: s.error or ""),
)


class FlaggedRowModel(RowModel[T]):
    """Rows whose record is ``flagged`` (a failed event, run or stage, a skipped stage) are
    drawn in the warning colour, so a failure stands out in a long history."""

    def __init__(self, columns: Sequence[Column[T]], identity: Callable[[T], Hashable],
                 flagged: Callable[[T], bool], parent: Any = None) -> None:
        super().__init__(columns, identity, parent)
        self._flagged = flagged

    def data(self, index: QModelIndex | QPersistentModelIndex,
             role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.ForegroundRole and index.isValid():
            return QColor(WARNING) if self._flagged(self.record(index.row())) else None
        return super().data(index, role)


def _table(model: RowModel[Any], *, sortable: bool) -> tuple[QTableView, FilterProxy]:
    proxy = FilterProxy(model, model)
    view = make_table_view(proxy, proxy.columnCount() - 1, fit_to_contents=False)
    view.setSortingEnabled(sortable)
    return view, proxy


def _fit(view: QTableView, columns: Sequence[int]) -> None:
    for column in columns:
        view.resizeColumnToContents(column)


QUEUE_TAB = "Waiting to learn"
"""The tab of the event queue (what chats noted and background learning has not yet
taken in), named by what it means to the user."""


class ActivityPage(InspectorPage):
    key = "activity"
    title = "Activity"
    about = "What Hearth did in the background: nightly tidy-ups, reflections, queued notes."
    icon_name = "activity"
    domains = frozenset({Domain.RUNS})
    """The event queue and the runs: what learning noted, and every run's record, whoever
    wrote them (this window, the schedule, a dream's child process, another device)."""

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.events = FlaggedRowModel(EVENT_COLUMNS, lambda e: e.id, lambda e: e.failed, self)
        self.runs = FlaggedRowModel(RUN_COLUMNS, lambda r: r.id,
                                    lambda r: r.status == FAILED, self)
        self.stages = FlaggedRowModel(STAGE_COLUMNS, lambda s: s.name,
                                      lambda s: s.status in FLAGGED_STAGES, self)
        self.events_view, self.events_proxy = _table(self.events, sortable=True)
        self.runs_view, self.runs_proxy = _table(self.runs, sortable=True)
        self.stages_view, _ = _table(self.stages, sortable=False)
        self.events_view.sortByColumn(0, Qt.SortOrder.AscendingOrder)
        self.runs_view.sortByColumn(0, Qt.SortOrder.DescendingOrder)

        self.queue_summary = QLabel()
        self.retry_button = QPushButton(icon("refresh"), "&Retry")
        self.retry_button.setToolTip("Try this failed one again the next time Hearth "
                                     "learns in the background (after fixing what made it "
                                     "fail)")
        self.retry_button.setEnabled(False)
        self.retry_all_button = QPushButton(icon("refresh"), "Retry a&ll")
        self.retry_all_button.setToolTip("Try every failed one again the next time "
                                         "Hearth learns in the background")
        self.retry_all_button.setEnabled(False)
        self.event_text = QPlainTextEdit(readOnly=True)
        self.event_text.setPlaceholderText("Select one to read it and its last error.")
        self.kind = QComboBox()
        self.kind.addItem("All kinds", None)
        for kind in RUN_KINDS:
            self.kind.addItem(run_kind(kind), kind)
        self.kind.setToolTip("Show runs of one kind")
        self.run_summary = QLabel()
        self.run_summary.setWordWrap(True)
        self.run_summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.changes = ChangesView(ctx)
        self.changes.hide()
        self.stage_details = Disclosure(self.stages_view)
        self.stage_details.toggle.setToolTip("Each step of the run, with its counts, timings "
                                             "and errors")
        self.failure_text = QPlainTextEdit(readOnly=True)
        self.failure_text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.failure_details = Disclosure(self.failure_text, "Error details…")
        self.failure_details.toggle.setToolTip("Where each failed step stopped (its "
                                               "traceback), to copy into a bug report")
        self.failure_details.hide()
        self._changes_of: int | None = None

        self.tabs = QTabWidget()
        self.tabs.addTab(self._queue_tab(), QUEUE_TAB)
        self.tabs.addTab(self._runs_tab(), "Runs")
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.tabs, 1)

        self.retry_button.clicked.connect(lambda _checked=False: self.retry_selected())
        self.retry_all_button.clicked.connect(lambda _checked=False: self.retry_all())
        self.kind.currentIndexChanged.connect(lambda _index: self.reload())
        self.events_view.selectionModel().currentRowChanged.connect(self._event_selected)
        self.runs_view.selectionModel().currentRowChanged.connect(self._run_selected)
        ctx.hub.run_finished.connect(lambda _kind, _report: self._run_finished())

    # --- layout --------------------------------------------------------------------------------

    def _queue_tab(self) -> QWidget:
        top = QHBoxLayout()
        top.addWidget(self.queue_summary, 1)
        top.addWidget(self.retry_button)
        top.addWidget(self.retry_all_button)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.events_view)
        split.addWidget(self.event_text)
        split.setStretchFactor(0, 3)
        split.setStretchFactor(1, 1)
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        return tab

    def _runs_tab(self) -> QWidget:
        top = QHBoxLayout()
        top.addWidget(QLabel("Show"))
        top.addWidget(self.kind)
        top.addStretch(1)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.run_summary)
        lower_layout.addWidget(self.changes, 2)
        lower_layout.addWidget(self.stage_details, 1)
        lower_layout.addWidget(self.failure_details)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.runs_view)
        split.addWidget(lower)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)  # room for what a run changed
        split.setSizes([200, 300])  # the table would otherwise take it all at first
        tab = QWidget()
        layout = QVBoxLayout(tab)
        layout.addLayout(top)
        layout.addWidget(split, 1)
        return tab

    # --- loading -------------------------------------------------------------------------------

    def loader(self) -> Callable[[], Snapshot]:
        kind = self.kind.currentData()
        hearth = self.ctx.hearth

        def load() -> Snapshot:
            queued = consolidation.queue(hearth, EVENTS_SHOWN)
            return Snapshot(events=list(queued.events), waiting=queued.waiting,
                            runs=consolidation.runs(hearth, kind, RUNS_SHOWN))

        return load

    def show_loaded(self, result: Snapshot) -> None:
        kept_event, kept_run = self.selected_event(), self.selected_run()
        self.events.set_rows(result.events)
        self.runs.set_rows(result.runs)
        failed = sum(event.failed for event in result.events)
        self.retry_all_button.setEnabled(failed > 0)
        shown = "" if result.waiting <= len(result.events) else \
            f" (the oldest {len(result.events)} shown)"
        self.queue_summary.setText(
            f"{count(result.waiting, 'thing')} waiting to be learned "
            f"from, {failed} failed{shown}." if result.waiting else
            "Nothing is waiting: everything noted in your chats has been learned from.")
        self.tabs.setTabText(0, f"{QUEUE_TAB} ({result.waiting})")
        _fit(self.events_view, range(5))
        self.events_view.setColumnWidth(ERROR_COLUMN, ERROR_WIDTH)
        _fit(self.runs_view, range(6))
        if kept_event is None or not self.select_event(kept_event.id):
            self._event_selected()  # nothing selected: clear the text below
        runs_to_try = ([kept_run.id] if kept_run else []) + [run.id for run in result.runs[:1]]
        if not any(self.select_run(run_id) for run_id in runs_to_try):
            self._run_selected()  # the kept run, else the newest; else clear the stages

    @staticmethod
    def _reselect(view: QTableView, proxy: FilterProxy, model: RowModel[Any],
                  identity: int) -> bool:
        row = model.row_of(identity)
        if row is None:
            return False
        index = proxy.mapFromSource(model.index(row, 0))
        view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
            | QItemSelectionModel.SelectionFlag.Rows)
        view.scrollTo(index)
        return True

    # --- selection -----------------------------------------------------------------------------

    def selected_event(self) -> EventView | None:
        index = self.events_view.selectionModel().currentIndex()
        return self.events.record(self.events_proxy.mapToSource(index).row()) \
            if index.isValid() else None

    def selected_run(self) -> RunView | None:
        index = self.runs_view.selectionModel().currentIndex()
        return self.runs.record(self.runs_proxy.mapToSource(index).row()) \
            if index.isValid() else None

    def select_event(self, event_id: int) -> bool:
        """Select a listed event (its text and error show below); False if not listed."""
        return self._reselect(self.events_view, self.events_proxy, self.events, event_id)

    def select_run(self, run_id: int) -> bool:
        """Select a listed run (its stages show below); False if not listed."""
        return self._reselect(self.runs_view, self.runs_proxy, self.runs, run_id)

    def _event_selected(self, *_args: object) -> None:
        event = self.selected_event()
        self.retry_button.setEnabled(event is not None and event.failed)
        if event is None:
            self.event_text.clear()
            return
        error = f"Last error (attempt {event.attempts}):\n{event.last_error}\n\n" \
            if event.last_error else ""
        self.event_text.setPlainText(f"{error}{event.kind_words.capitalize()}, "
                                     f"{local_time(event.created_at)}:\n{event.said}")

    def _run_selected(self, *_args: object) -> None:
        run = self.selected_run()
        self.stages.set_rows(run.stages if run else [])
        _fit(self.stages_view, range(4))
        self._show_failures(run)
        self._show_changes(run)
        if run is None:
            self.run_summary.setText("Select a run to see what it did.")
            return
        lines = [f"{run_kind(run.kind)} #{run.id}, started {trigger_text(run.trigger)} on "
                 f"{local_time(run.started_at)}: {run_status(run.status)}, took "
                 f"{duration_text(run.seconds)}."]
        if run.error:
            lines.append(f"What went wrong: {run.error}")
        if run.kind in REVIEWED_KINDS and not reviewed(run):
            lines.append("What it changed is listed with the dream it was part of.")
        self.run_summary.setText("\n".join(lines))

    def _show_failures(self, run: RunView | None) -> None:
        """The tracebacks of the run's failed steps, behind a closed "Error details…"
        (shown only when there is one)."""
        traces = [f"{stage_name(stage.name)}:\n{stage.traceback}"
                  for stage in (run.stages if run else []) if stage.traceback]
        if self.failure_text.toPlainText() != "\n".join(traces):  # a poll keeps the scroll
            self.failure_text.setPlainText("\n".join(traces))
        self.failure_details.setVisible(bool(traces))

    def _show_changes(self, run: RunView | None) -> None:
        """A dream's or reflection's changelog with Undo; read again only when another run
        is selected (or the list was refreshed after a run), not on every poll."""
        shown = run is not None and reviewed(run)
        self.changes.setVisible(shown)
        if run is None or not shown:
            self._changes_of = None
            return
        if self._changes_of != run.id:
            self._changes_of = run.id
            self.changes.load(run.id)

    def _run_finished(self) -> None:
        self._changes_of = None  # the selected run's changelog may be new
        self.refresh()

    # --- actions -------------------------------------------------------------------------------

    def retry_selected(self) -> None:
        event = self.selected_event()
        if event is None or not event.failed:
            return
        hearth = self.ctx.hearth
        self.change("Retrying", lambda: consolidation.retry_event(hearth, event.id),
                    lambda _e: f"{event.kind_words.capitalize()} will be tried again the next time "
                               "Hearth learns.")

    def retry_all(self) -> None:
        hearth = self.ctx.hearth
        self.change("Retrying the failed ones",
                    lambda: consolidation.retry_failed_events(hearth),
                    lambda retried: f"{count(retried, 'failed one')} will be tried "
                                    "again the next time Hearth learns.")
