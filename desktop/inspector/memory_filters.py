"""The row of filters above the memory list: type, tier, namespace, validity and time.

It only turns the controls into a ``core.operations.memories.MemoryFilter``; the page
decides when to load. A time range that ends before it starts is refused by the filter
itself, with a message the page shows next to the controls.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta, timezone

from PySide6.QtCore import QDate, Signal
from PySide6.QtWidgets import QComboBox, QDateEdit, QHBoxLayout, QLabel, QWidget

from core.operations.memories import MemoryFilter, MemoryTier, MemoryType, Validity
from desktop.words import MEMORY_TYPE_WORDS, TIER_WORDS

ALL_NAMESPACES = "All areas"
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


def _local_midnight(day: QDate) -> datetime:
    """The start of a calendar day in the user's time zone, as an aware datetime."""
    naive = datetime(day.year(), day.month(), day.day())
    return naive.astimezone()


class MemoryFilterBar(QWidget):
    """Type, tier, namespace, validity and time controls; ``changed`` on any edit."""

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
        self.since.setToolTip("From the start of this day")
        self.until.setToolTip("To the end of this day")

        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        for part in (self.types, self.tiers, self.namespace, self.validity, self.period,
                     self.since, self.until_label, self.until):
            layout.addWidget(part)
        layout.addStretch(1)

        for combo in (self.types, self.tiers, self.validity):
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
                            validity=self.validity.currentData(), since=since, until=until)

    def _period_changed(self) -> None:
        between = self.period.currentData() == BETWEEN
        for widget in (self.since, self.until_label, self.until):
            widget.setVisible(between)
        self.changed.emit()
