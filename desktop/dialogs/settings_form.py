"""What every tab of the settings dialog shares: rows with a help line and an error line,
spin-box limits taken from the settings model itself, and pydantic's complaints turned into
sentences that sit next to the field they are about.

A tab (``SettingsSection``) reads the current settings into its widgets (``load``) and, when
the user saves, hands back the values it holds plus any problem it found itself
(``collect``). The dialog saves nothing unless every tab is clean, so one bad field never
half-applies the others.
"""

from __future__ import annotations

from typing import Any, ClassVar, SupportsInt, cast

from annotated_types import Ge, Gt, Le, Lt
from pydantic_core import ValidationError  # pydantic's own class, imported where it lives:
# ``from pydantic import`` resolves lazily and breaks under PySide6's import hook
from PySide6.QtCore import QLocale, Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from core.config import Settings
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks

ERROR_COLOUR = "#e5484d"
"""A red that reads on light and dark backgrounds (a semantic accent, not a theme colour)."""
OK_COLOUR = "#30a46c"

Changes = dict[str, Any]
Problems = dict[str, str]


def data_size(count: int) -> str:
    """``2.0 GB``: in the user's locale, in the SI units Ollama uses."""
    return QLocale().formattedDataSize(count, 1, QLocale.DataSizeFormat.DataSizeSIFormat)


def muted_label(text: str = "") -> QLabel:
    """A wrapped secondary line in the palette's placeholder colour (help under a field)."""
    label = QLabel(text)
    label.setWordWrap(True)
    label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
    return label


def status_label() -> QLabel:
    """A wrapped line whose colour is set per message with ``show_status``."""
    label = QLabel()
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.hide()
    return label


def show_status(label: QLabel, text: str, *, ok: bool | None = None) -> None:
    """Show ``text``: red for a problem (``ok=False``), green for a good result
    (``ok=True``), the palette's text colour otherwise; an empty text hides the line."""
    colour = None if ok is None else OK_COLOUR if ok else ERROR_COLOUR
    label.setStyleSheet(f"color: {colour};" if colour else "")
    label.setText(text)
    label.setVisible(bool(text))


def beside(widget: QWidget, button: QPushButton) -> QWidget:
    """``widget`` stretched with ``button`` at its right (a path and its Choose…)."""
    row_widget = QWidget()
    row = QHBoxLayout(row_widget)
    row.setContentsMargins(0, 0, 0, 0)
    row.addWidget(widget, 1)
    row.addWidget(button)
    return row_widget


def spin_box(field: str, *, suffix: str = "", step: int = 1, maximum: int = 1_000_000,
             ) -> QSpinBox:
    """A spin box limited to what ``Settings.<field>`` accepts (its ``ge``/``le``), so the
    keyboard cannot produce a value the model would refuse; ``maximum`` caps open ranges."""
    low, high = 0, maximum
    for rule in Settings.model_fields[field].metadata:
        if isinstance(rule, Ge):
            low = int(cast(SupportsInt, rule.ge))
        elif isinstance(rule, Gt):
            low = int(cast(SupportsInt, rule.gt)) + 1
        elif isinstance(rule, Le):
            high = min(high, int(cast(SupportsInt, rule.le)))
        elif isinstance(rule, Lt):
            high = min(high, int(cast(SupportsInt, rule.lt)) - 1)
    box = QSpinBox()
    box.setRange(low, high)
    box.setSingleStep(step)
    box.setGroupSeparatorShown(True)
    if suffix:
        box.setSuffix(f" {suffix}")
    return box


def field_messages(exc: ValidationError) -> Problems:
    """The first problem per settings field, as a sentence (never pydantic's raw text)."""
    problems: Problems = {}
    for error in exc.errors():
        field = str(error["loc"][0]) if error["loc"] else ""
        problems.setdefault(field, _sentence(error))
    return problems


def _sentence(error: Any) -> str:
    limits = error.get("ctx") or {}
    kind = error["type"]
    if kind == "greater_than_equal":
        return f"Use a value of at least {limits['ge']}."
    if kind == "greater_than":
        return f"Use a value above {limits['gt']}."
    if kind == "less_than_equal":
        return f"Use a value of at most {limits['le']}."
    if kind == "less_than":
        return f"Use a value below {limits['lt']}."
    if kind == "string_pattern_mismatch":
        return "This value is not in the expected format."
    if kind == "literal_error":
        return f"Choose one of {limits.get('expected', 'the listed values')}."
    message = str(error["msg"]).rstrip(".")
    return f"{message[:1].upper()}{message[1:]}."


class SettingsSection(QWidget):
    """One tab: a form of fields, each with an error line that ``show_errors`` fills."""

    title: ClassVar[str]

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.tasks = tasks
        self._errors: dict[str, QLabel] = {}

    # --- subclasses implement ----------------------------------------------------------------

    def load(self, settings: Settings) -> None:
        """Put ``settings`` into the widgets."""
        raise NotImplementedError

    def collect(self) -> tuple[Changes, Problems]:
        """The settings values the widgets hold, and the problems found in them (by field)."""
        raise NotImplementedError

    def commit(self) -> None:
        """After the settings were saved: store what lives outside ``settings.json``."""

    # --- rows and errors ---------------------------------------------------------------------

    def add_row(self, form: QFormLayout, label: str, widget: QWidget, *, field: str,
                help_text: str = "") -> None:
        """``label: widget`` with the help line and the field's (hidden) error line below."""
        block = QWidget()
        column = QVBoxLayout(block)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(2)
        column.addWidget(widget)
        if help_text:
            column.addWidget(muted_label(help_text))
        column.addWidget(self.error_label(field))
        form.addRow(label, block)

    def error_label(self, field: str) -> QLabel:
        """The error line of ``field`` (made on first use), for layouts ``add_row`` does not
        fit."""
        if field not in self._errors:
            label = status_label()
            label.setObjectName(f"error-{field}")
            self._errors[field] = label
        return self._errors[field]

    @property
    def fields(self) -> frozenset[str]:
        return frozenset(self._errors)

    def show_errors(self, problems: Problems) -> None:
        """Show these problems and clear every other error line of the tab."""
        for field in self._errors:
            self.set_error(field, problems.get(field, ""))

    def set_error(self, field: str, message: str) -> None:
        """Show (or, with "", clear) the error line of one field."""
        show_status(self._errors[field], message, ok=False)

    def error_text(self, field: str) -> str:
        """What the error line of ``field`` says now ("" when it is hidden)."""
        label = self._errors[field]
        return "" if label.isHidden() else label.text()
