"""The row of filters above the memory list: type, tier, namespace, validity, time and
import run ("what this import added": File → Import history… → Show memories sets it).

It only turns the controls into a ``core.operations.memories.MemoryFilter``; the page
decides when to load. A time range that ends before it starts is refused by the filter
itself, with a message the page shows next to the controls.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from PySide6.QtCore import QDate, Qt, Signal
from PySide6.QtWidgets import QComboBox, QDateEdit, QHBoxLayout, QLabel, QWidget

from core.operations.memories import (
    ImportRunInfo,
    MemoryFilter,
    MemoryTier,
    MemoryType,
    Validity,
)
from desktop.words import IMPORT_SOURCE_WORDS, MEMORY_TYPE_WORDS, TIER_WORDS

ALL_NAMESPACES = "All areas"
ANY_IMPORT = "Imported or not"
TIME_CHOICES: tuple[tuple[str, int | None], ...] = (
    ("Any time", None), ("Last 24 hours", 1), ("Last 7 days", 7), ("Last 30 days", 30),
    ("Last year", 365), ("Between…", -1))
"""Label and days back; ``-1`` shows the two date fields."""
BETWEEN = -1
VALIDITY_LABELS = {Validity.VALID: "Valid", Validity.INVALID: "Invalidated",
                   Validity.SUPERSEDED: "Superseded", Validity.ALL: "Any state"}


def _combo(all_label: str, values: list[str], words: dict[str, str],
           tooltip: str) -> QComboBox:
    """A filter offering every stored value by its plain name (``desktop.words``)."""
    combo = QComboBox()
    combo.addItem(all_label, None)
    for value in values:
        combo.addItem(words.get(value, value).capitalize(), value)
    combo.setToolTip(tooltip)
    return combo


def run_label(run: ImportRunInfo) -> str:
    """An import run as the filter offers it: its number and what it read."""
    return f"Import #{run.id}: {IMPORT_SOURCE_WORDS.get(run.source, run.source)}"


def run_description(run: ImportRunInfo) -> str:
    """An import run in a sentence: its number, what it read and when."""
    local = run.started_at.astimezone()
    return (f"import #{run.id} ({IMPORT_SOURCE_WORDS.get(run.source, run.source)}, "
            f"{local:%Y-%m-%d %H:%M})")


def _local_midnight(day: QDate) -> datetime:
    """The start of a calendar day in the user's time zone, as an aware datetime."""
    naive = datetime(day.year(), day.month(), day.day())
    return naive.astimezone()


class MemoryFilterBar(QWidget):
    """Type, tier, namespace, validity, time and import-run controls; ``changed`` on any
    edit. The import-run choice (``import_run``) is not in the row: the page puts it beside
    the search box, where the row's width leaves room on a 1000-pixel window."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.types = _combo("All kinds", [t.value for t in MemoryType], MEMORY_TYPE_WORDS,
                            "What kind of memory: something known, something that happened, "
                            "or how to do something")
        self.tiers = _combo("Every stage", [t.value for t in MemoryTier], TIER_WORDS,
                            "Recent (as said), summaries (made overnight), originals (kept "
                            "under a summary), always in mind (in every reply)")
        self.namespace = QComboBox()
        self.namespace.setEditable(True)
        self.namespace.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        self.namespace.setToolTip("The area a memory is filed under (its namespace): "
                                  "\"user\" also shows \"user/health\"")
        self.namespace.addItem(ALL_NAMESPACES)
        self.namespace.setMinimumContentsLength(12)
        self.validity = QComboBox()
        for validity, label in VALIDITY_LABELS.items():
            self.validity.addItem(label, validity)
        self.validity.setToolTip("Invalidated: marked wrong or obsolete. Superseded: replaced "
                                 "by a newer memory.")
        self.period = QComboBox()
        for label, days in TIME_CHOICES:
            self.period.addItem(label, days)
        today = QDate.currentDate()
        self.since = QDateEdit(today.addDays(-30))
        self.since.setCalendarPopup(True)
        self.until = QDateEdit(today)
        self.until.setCalendarPopup(True)
        self.until_label = QLabel("to")
        for widget in (self.since, self.until_label, self.until):
            widget.hide()
        self.import_run = QComboBox()
        self.import_run.addItem(ANY_IMPORT, None)
        self.import_run.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.import_run.setToolTip("Only what one import added (File → Import history… "
                                   "lists the imports)")
        self.since.setToolTip("From the start of this day")
        self.until.setToolTip("To the end of this day")

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for part in (self.types, self.tiers, self.namespace, self.validity, self.period,
                     self.since, self.until_label, self.until):
            layout.addWidget(part)
        layout.addStretch(1)

        for combo in (self.types, self.tiers, self.validity, self.import_run):
            combo.currentIndexChanged.connect(self.changed)
        self.namespace.currentTextChanged.connect(self.changed)
        self.period.currentIndexChanged.connect(self._period_changed)
        self.since.dateChanged.connect(self.changed)
        self.until.dateChanged.connect(self.changed)

    def set_namespaces(self, namespaces: Sequence[str]) -> None:
        """Offer the namespaces in use, keeping what the user typed or picked."""
        current = self.namespace.currentText()
        self.namespace.blockSignals(True)
        self.namespace.clear()
        self.namespace.addItem(ALL_NAMESPACES)
        self.namespace.addItems(list(namespaces))
        self.namespace.setCurrentText(current)
        self.namespace.blockSignals(False)

    def set_import_runs(self, runs: Sequence[ImportRunInfo]) -> None:
        """Offer the import runs whose memories are kept, keeping the one chosen (still
        offered by its number once removed, so the list it filters stays explained)."""
        chosen = self.import_run.currentData()
        self.import_run.blockSignals(True)
        self.import_run.clear()
        self.import_run.addItem(ANY_IMPORT, None)
        for run in runs:
            self.import_run.addItem(run_label(run), run.id)
            self.import_run.setItemData(self.import_run.count() - 1, run_description(run),
                                        Qt.ItemDataRole.ToolTipRole)
        self._choose_run(chosen)
        self.import_run.blockSignals(False)

    def show_import_run(self, batch: int) -> None:
        """Show everything one import run added, in any state, whatever the other controls
        said (one ``changed``)."""
        self.blockSignals(True)
        for combo in (self.types, self.tiers, self.period):
            combo.setCurrentIndex(0)
        self.namespace.setCurrentText(ALL_NAMESPACES)
        self.validity.setCurrentIndex(self.validity.findData(Validity.ALL))
        self._choose_run(batch)
        self.blockSignals(False)
        self.changed.emit()

    def _choose_run(self, batch: int | None) -> None:
        if batch is None:
            self.import_run.setCurrentIndex(0)
            return
        index = self.import_run.findData(batch)
        if index < 0:
            self.import_run.addItem(f"Import #{batch}", batch)
            index = self.import_run.count() - 1
        self.import_run.setCurrentIndex(index)

    def current(self, now: datetime | None = None) -> MemoryFilter:
        """The filter the controls describe (``InvalidInputError`` for a backwards range)."""
        def chosen(combo: QComboBox) -> frozenset[str]:
            value = combo.currentData()
            return frozenset() if value is None else frozenset({value})

        namespace = self.namespace.currentText().strip()
        since = until = None
        days = self.period.currentData()
        if days == BETWEEN:
            since = _local_midnight(self.since.date())
            until = _local_midnight(self.until.date().addDays(1))
        elif days is not None:
            since = (now or datetime.now(timezone.utc)) - timedelta(days=days)
        return MemoryFilter(memory_types=chosen(self.types), tiers=chosen(self.tiers),
                            namespace="" if namespace == ALL_NAMESPACES else namespace,
                            validity=self.validity.currentData(), since=since, until=until,
                            import_batch=self.import_run.currentData())

    def _period_changed(self) -> None:
        between = self.period.currentData() == BETWEEN
        for widget in (self.since, self.until_label, self.until):
            widget.setVisible(between)
        self.changed.emit()
