"""When a scheduled prompt runs, chosen in words: "Weekdays", "Once a week on Sunday",
"Once a month on the 1st", each at a time, with the cron expression it is stored as behind
"Details" (``core.daily.timetable``).

The cron field stays the one truth the editor saves: choosing in the picker writes it, and
typing a cron under Details sets the picker when the cron is one of the common shapes, or
"Custom (see Details)" when it is not, so nothing typed there is ever rewritten."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTime
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QTimeEdit,
    QVBoxLayout,
    QWidget,
)

from core.operations.prompts import DAYS, REPEATS, Repeat, Timetable, ordinal, read_cron
from desktop.dialogs.disclosure import Disclosure

REPEAT_WORDS: dict[Repeat, str] = {
    "daily": "Every day", "weekdays": "Weekdays (Monday to Friday)", "weekends": "Weekends",
    "weekly": "Once a week on", "monthly": "Once a month on the", "hourly": "Every hour"}
CUSTOM_KEY = "custom"
CRON_HELP = ("The timetable as cron, five fields: minute hour day-of-month month "
             "day-of-week, e.g. <code>0 9 * * 1-5</code> (09:00 on weekdays). Type one here "
             "for a timetable the list above does not offer.")


class TimetablePicker(QWidget):
    """The picker and, behind Details, the cron it writes (``cron``, a ``QLineEdit`` the
    editor watches and saves)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.repeat = QComboBox()
        for key in REPEATS:
            self.repeat.addItem(REPEAT_WORDS[key], key)
        self.repeat.addItem("Custom (see Details)", CUSTOM_KEY)
        self.day = QComboBox()
        for number, name in enumerate(DAYS):
            self.day.addItem(name, number)
        self.date = QSpinBox()
        self.date.setRange(1, 31)
        self.date.setToolTip("The day of the month (a month without it is skipped)")
        self.at = QLabel("at")
        self.time = QTimeEdit()
        self.time.setDisplayFormat("HH:mm")
        self.minute = QSpinBox()
        self.minute.setRange(0, 59)
        self.minute.setPrefix("at ")
        self.minute.setSuffix(" past")
        self.cron = QLineEdit()
        self.cron.setPlaceholderText("0 9 * * 1-5")
        help_text = QLabel(CRON_HELP)
        help_text.setWordWrap(True)
        help_text.setTextFormat(Qt.TextFormat.RichText)
        help_text.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        inside = QWidget()
        inside_layout = QVBoxLayout(inside)
        inside_layout.setContentsMargins(0, 0, 0, 0)
        inside_layout.addWidget(self.cron)
        inside_layout.addWidget(help_text)
        self.details = Disclosure(inside)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        for widget in (self.repeat, self.day, self.date, self.at, self.time, self.minute):
            row.addWidget(widget)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        layout.addWidget(self.details)
        # as tall as its lines: the room left in the editor goes to the prompt's text
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Maximum)
        self._syncing = False
        for combo in (self.repeat, self.day):
            combo.currentIndexChanged.connect(self._picked)
        for spin in (self.date, self.minute):
            spin.valueChanged.connect(self._picked)
        self.time.timeChanged.connect(self._picked)
        self.cron.textChanged.connect(self._typed)
        self.set_cron("")

    def set_cron(self, cron: str) -> None:
        """Show a stored schedule (empty: a new prompt, offered as weekdays at 09:00)."""
        self.cron.setText(cron or Timetable("weekdays").cron)

    def _picked(self) -> None:
        """A choice in the picker writes the cron (Custom leaves it as typed)."""
        if self._syncing:
            return
        key = self.repeat.currentData()
        self._show_fields(key)
        if key == CUSTOM_KEY:
            self.details.set_open(True)
            return
        timetable = Timetable(key, self.time.time().hour(), self.time.time().minute(),
                              self._day(key))
        if key == "hourly":
            timetable = Timetable(key, 0, self.minute.value())
        self._syncing = True
        self.cron.setText(timetable.cron)
        self._syncing = False

    def _day(self, key: str) -> int:
        return int(self.day.currentData()) if key == "weekly" else self.date.value()

    def _typed(self, cron: str) -> None:
        """The cron changed (typed under Details, or set): the picker follows it."""
        if self._syncing:
            return
        timetable = read_cron(cron)
        self._syncing = True
        if timetable is None:
            self.repeat.setCurrentIndex(self.repeat.findData(CUSTOM_KEY))
        else:
            self.repeat.setCurrentIndex(self.repeat.findData(timetable.repeat))
            self.time.setTime(QTime(timetable.hour, timetable.minute))
            self.minute.setValue(timetable.minute)
            if timetable.repeat == "weekly":
                self.day.setCurrentIndex(self.day.findData(timetable.day))
            elif timetable.repeat == "monthly":
                self.date.setValue(timetable.day)
        self._syncing = False
        self._show_fields(self.repeat.currentData())
        if timetable is None and cron.strip():
            self.details.set_open(True)

    def _show_fields(self, key: str) -> None:
        self.day.setVisible(key == "weekly")
        self.date.setVisible(key == "monthly")
        self.date.setSuffix(ordinal(self.date.value())[-2:])
        self.at.setVisible(key not in ("hourly", CUSTOM_KEY))
        self.time.setVisible(key not in ("hourly", CUSTOM_KEY))
        self.minute.setVisible(key == "hourly")
