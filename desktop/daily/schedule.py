"""Schedule: the scheduled prompts (a question the assistant answers on a timetable in a
time zone) with an editor to add, change, pause and delete them, and the two task alerts
(due today, overdue), each on or off with its quiet time.

A timetable is chosen in words ("Weekdays at 09:00", ``desktop.daily.timetable_picker``) and
stored as the 5-field cron ``hearth prompts`` takes, which is behind Details. The same
operations as ``hearth prompts`` and ``hearth alerts`` (``core.operations.prompts``), so the
window and the terminal check a schedule by the same rule: a cron expression core cannot
read is refused with its sentence under the editor, and what was typed stays."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any
from zoneinfo import available_timezones

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QCompleter,
    QGridLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.operations import prompts
from core.operations.changes import Domain
from core.operations.done import Done
from core.operations.prompts import AlertItem, PromptItem, describe
from desktop.context import AppContext
from desktop.daily.editor import RecordEditor
from desktop.daily.list_page import ListEditorPage
from desktop.daily.timetable_picker import TimetablePicker
from desktop.inspector.formatting import local_time, time_key
from desktop.inspector.table import Column

ALERT_LABELS = {"task_due_today": "Tell me about a task due &today",
                "task_overdue": "Tell me about an &overdue task"}
MAX_COOLDOWN_MINUTES = 60 * 24 * 30
"""The spin box's top; core's own limit (``core.daily.alerts``) is the one that counts."""


def next_text(item: PromptItem) -> str:
    return local_time(item.next_run_at) if item.enabled else "paused"


PROMPT_COLUMNS: tuple[Column[PromptItem], ...] = (
    Column("Name", lambda item: item.name),
    Column("When", lambda item: describe(item.cron)),  # the cron is behind Details
    Column("Next run", next_text, lambda item: time_key(item.next_run_at)),
    Column("Last run", lambda item: local_time(item.last_run_at),
           lambda item: -time_key(item.last_run_at)),
)


@lru_cache(maxsize=1)
def zone_names() -> tuple[str, ...]:
    return tuple(sorted(available_timezones()))


def quiet_words(minutes: int) -> str:
    """``1440`` → "1 day", ``90`` → "1 h 30 min": a cooldown as a person reads it."""
    days, rest = divmod(minutes, 60 * 24)
    hours, mins = divmod(rest, 60)
    parts = [f"{days} day{'s' if days != 1 else ''}" if days else "",
             f"{hours} h" if hours else "", f"{mins} min" if mins else ""]
    return " ".join(part for part in parts if part) or "0 min"


class PromptEditor(RecordEditor):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = QLineEdit()
        self.name.setPlaceholderText("Morning plan")
        self.prompt = QPlainTextEdit()
        self.prompt.setPlaceholderText("What the assistant is asked, e.g. “What is on my "
                                       "plate today?”")
        self.timetable = TimetablePicker()
        self.zone = QLineEdit()
        self.zone.setPlaceholderText("Your time zone")
        completer = QCompleter(list(zone_names()), self.zone)
        completer.setCaseSensitivity(Qt.CaseSensitivity.CaseInsensitive)
        completer.setFilterMode(Qt.MatchFlag.MatchContains)
        self.zone.setCompleter(completer)
        self.enabled = QCheckBox("&Enabled: runs on its schedule")
        self.enabled.setChecked(True)
        self.form.addRow("&Name:", self.name)
        self.form.addRow("&Prompt:", self.prompt)
        self.form.addRow("&When:", self.timetable)
        self.form.addRow("&Zone:", self.zone)
        self.form.addRow("", self.enabled)
        self.watch(self.name, self.prompt, self.timetable.cron, self.zone)
        self.enabled.toggled.connect(self._edited)

    def fill(self, record: PromptItem | None) -> None:
        self.name.setText("" if record is None else record.name)
        self.prompt.setPlainText("" if record is None else record.prompt)
        self.timetable.set_cron("" if record is None else record.cron)
        self.zone.setText("" if record is None else record.zone)
        self.enabled.setChecked(True if record is None else record.enabled)
        if record is None:
            self.heading.setText("<b>New scheduled prompt</b>: the assistant answers it "
                                 "in its own chat, “Scheduled: name”, and notifies you.")
        elif record.enabled:
            self.heading.setText(f"<b>{record.name}</b> · next run "
                                 f"{local_time(record.next_run_at)}, last "
                                 f"{local_time(record.last_run_at)}.")
        else:
            self.heading.setText(f"<b>{record.name}</b> · paused, last run "
                                 f"{local_time(record.last_run_at)}.")


class AlertRow:
    """One alert rule: a check box (on/off) and its quiet time, each applied when changed."""

    def __init__(self, kind: str, grid: QGridLayout, row: int,
                 apply: Callable[[str, bool | None, int | None], None]) -> None:
        self.kind = kind
        self.item: AlertItem | None = None
        self.enabled = QCheckBox(ALERT_LABELS.get(kind, kind))
        self.cooldown = QSpinBox()
        self.cooldown.setRange(1, MAX_COOLDOWN_MINUTES)
        self.cooldown.setSuffix(" min")
        self.cooldown.setAccelerated(True)
        self.cooldown.setToolTip("After telling you about a task, stay quiet about it this "
                                 "long")
        self.words = QLabel()
        self.last = QLabel()
        quiet = QLabel("quiet for")
        quiet.setBuddy(self.cooldown)
        for column, widget in enumerate((self.enabled, quiet, self.cooldown, self.words,
                                         self.last)):
            grid.addWidget(widget, row, column)
        self.enabled.toggled.connect(lambda on: apply(kind, on, None))
        self.cooldown.editingFinished.connect(self._cooldown_done)
        self.cooldown.valueChanged.connect(lambda value: self.words.setText(
            f"({quiet_words(value)})"))
        self._apply = apply

    def show(self, item: AlertItem) -> None:
        self.item = item
        for widget in (self.enabled, self.cooldown):
            widget.blockSignals(True)
        self.enabled.setChecked(item.enabled)
        self.cooldown.setValue(item.cooldown_minutes)
        for widget in (self.enabled, self.cooldown):
            widget.blockSignals(False)
        self.words.setText(f"({quiet_words(item.cooldown_minutes)})")
        self.last.setText("never fired" if item.last_fired_at is None
                          else f"last fired {local_time(item.last_fired_at)}")

    def _cooldown_done(self) -> None:
        if self.item is not None and self.cooldown.value() != self.item.cooldown_minutes:
            self._apply(self.kind, None, self.cooldown.value())


class SchedulePage(ListEditorPage):
    key = "schedule"
    title = "Schedule"
    icon_name = "schedule"
    about = ("Scheduled prompts the assistant answers on a timetable, and the task alerts "
             "(due today, overdue) with their quiet times.")
    search_hint = "Filter prompts"
    search_in_core = False
    stretch_column = 0
    noun = "scheduled prompt"
    empty_text = ("No scheduled prompts yet. Write one on the right (a name, what to ask and "
                  "when) and press Save (Ctrl+S).")
    domains = frozenset({Domain.SCHEDULE})

    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(ctx, parent)
        self.add_button("&New prompt", "add", self.start_new, needs_selection=False,
                        tooltip="Schedule a new prompt (Ctrl+N)")
        box = QGroupBox("Task alerts")
        grid = QGridLayout(box)
        grid.setColumnStretch(4, 1)
        self.alert_rows = {kind: AlertRow(kind, grid, row, self.set_alert)
                           for row, kind in enumerate(ALERT_LABELS)}
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.addWidget(box)

    def make_editor(self) -> RecordEditor:
        return PromptEditor()

    def columns(self) -> Sequence[Column[PromptItem]]:
        return PROMPT_COLUMNS

    def load_records(self, query: str, choice: str | None) -> Sequence[PromptItem]:
        return prompts.list_prompts(self.ctx.hearth)

    def loader(self) -> Callable[[], Any]:
        """The prompts and the alert rules, read in one job."""
        hearth = self.ctx.hearth
        return lambda: (prompts.list_prompts(hearth), prompts.list_alerts(hearth))

    def show_loaded(self, result: Any) -> None:
        found, alerts = result
        for item in alerts:
            if item.kind in self.alert_rows:
                self.alert_rows[item.kind].show(item)
        super().show_loaded(found)

    def save_job(self, record: PromptItem | None) -> Callable[[], Done[PromptItem]]:
        assert isinstance(self.editor, PromptEditor)
        hearth, editor = self.ctx.hearth, self.editor
        name, prompt = editor.name.text(), editor.prompt.toPlainText()
        cron, zone = editor.timetable.cron.text(), editor.zone.text().strip() or None
        enabled = editor.enabled.isChecked()
        if record is None:
            return lambda: prompts.add(hearth, name, prompt, cron, zone=zone, enabled=enabled)
        prompt_id = record.id
        return lambda: prompts.edit(hearth, prompt_id, name=name, prompt=prompt, cron=cron,
                                    zone=zone, enabled=enabled)

    def delete_job(self, record: PromptItem) -> Callable[[], Done[PromptItem]]:
        hearth, prompt_id = self.ctx.hearth, record.id
        return lambda: prompts.delete(hearth, prompt_id)

    def describe(self, record: PromptItem) -> str:
        return f"the scheduled prompt “{record.name}”"

    def set_alert(self, kind: str, enabled: bool | None, cooldown: int | None) -> None:
        hearth = self.ctx.hearth

        def said(item: AlertItem) -> str:
            state = "on" if item.enabled else "off"
            return (f"Alert “{ALERT_LABELS[kind].replace('&', '')}” is {state}, quiet for "
                    f"{quiet_words(item.cooldown_minutes)}.")

        self.change("Changing a task alert", lambda: prompts.set_alert(
            hearth, kind, enabled=enabled, cooldown_minutes=cooldown), said)

