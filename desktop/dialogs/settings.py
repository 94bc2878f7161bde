"""File → Settings… (Ctrl+,): every setting a user may change, in tabs, saved together.

Saving is all or nothing: each tab checks its own fields, then ``AppContext.save_settings``
validates the whole model (pydantic) and writes the changed fields into ``settings.json``
atomically (only what the user set is ever stored there). Any problem is shown as a
sentence under its field, the tab with the first problem comes to the front, and nothing is
stored. What can apply at once does (the assistant is rebuilt for another model, the
schedule for another dream time); what cannot says so where it is chosen (the
data folder and the search model, from the next start).
"""

from __future__ import annotations

from pydantic_core import ValidationError  # see settings_form: not via the pydantic package
from PySide6.QtCore import QSize
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.errors import HearthError
from core.operations import settings as stored_settings
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_assistant_page import AssistantSection
from desktop.dialogs.settings_data_page import DataSection
from desktop.dialogs.settings_embedding_page import EmbeddingSection
from desktop.dialogs.settings_form import (
    Changes,
    Problems,
    SettingsSection,
    field_messages,
    show_status,
    status_label,
)
from desktop.dialogs.settings_general_page import GeneralSection
from desktop.dialogs.settings_model_page import ModelSection
from desktop.dialogs.settings_privacy_page import PrivacySection
from desktop.scrolling import ShrinkingScrollArea

DEFAULT_SIZE = QSize(700, 700)
SECTIONS: tuple[type[SettingsSection], ...] = (
    ModelSection, AssistantSection, GeneralSection, PrivacySection, EmbeddingSection,
    DataSection)


class SettingsDialog(QDialog):
    def __init__(self, ctx: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.ctx = ctx
        self.setWindowTitle("Settings")
        self.resize(DEFAULT_SIZE)
        self.tasks = OwnedTasks(ctx.workers, self)
        self.tabs = QTabWidget()
        self.tabs.setUsesScrollButtons(False)  # every tab's name shows, however narrow
        self.sections: dict[str, SettingsSection] = {}
        for cls in SECTIONS:
            section = cls(ctx, self.tasks)
            self.sections[section.title] = section
            # a small screen scrolls a tab down rather than squeezing it or cutting it off
            self.tabs.addTab(ShrinkingScrollArea(section), section.title)
        self.outcome = status_label()
        self.outcome.setObjectName("settings-outcome")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok
                                   | QDialogButtonBox.StandardButton.Cancel
                                   | QDialogButtonBox.StandardButton.Apply)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Apply).clicked.connect(self.apply)
        layout = QVBoxLayout(self)
        layout.addWidget(self.tabs, 1)
        layout.addWidget(self.outcome)
        layout.addWidget(buttons)
        current = stored_settings.read(ctx.hearth)  # a copy: a form never edits the live one
        for section in self.sections.values():
            section.load(current)

    def section(self, title: str) -> SettingsSection:
        return self.sections[title]

    def current_section(self) -> SettingsSection:
        return list(self.sections.values())[self.tabs.currentIndex()]

    def apply(self) -> bool:
        """Check every tab and save what changed; True when saved (or nothing changed)."""
        changes: Changes = {}
        problems: Problems = {}
        for section in self.sections.values():
            values, found = section.collect()
            changes.update(values)
            problems.update(found)
        settings = self.ctx.settings
        changed = {name: value for name, value in changes.items()
                   if getattr(settings, name) != value}
        kept_in = None
        if not problems and changed:
            try:
                kept_in = self.ctx.save_settings(**changed).password_kept_in
            except ValidationError as exc:
                problems = field_messages(exc)
            except OSError as exc:
                problems = {"": f"Hearth could not write {self.ctx.hearth.paths.settings_file} "
                                f"({exc.strerror or exc}). Nothing was changed."}
            except HearthError as exc:  # settings.json was broken by hand meanwhile
                problems = {"": f"{exc} Nothing was changed."}
        self._show(problems)
        if problems:
            return False
        for section in self.sections.values():
            section.commit()
        note = f" The database password is kept in {kept_in}." if kept_in else ""
        show_status(self.outcome, f"Saved.{note}" if changed else "", ok=True)
        return True

    def _show(self, problems: Problems) -> None:
        """Each problem under its field; the first tab with one comes to the front; a
        problem that belongs to no field is shown above the buttons."""
        placed: set[str] = set()
        first: SettingsSection | None = None
        for section in self.sections.values():
            mine = {field: text for field, text in problems.items() if field in section.fields}
            section.show_errors(mine)
            placed |= mine.keys()
            if mine and first is None:
                first = section
        if first is not None:
            self.tabs.setCurrentIndex(list(self.sections.values()).index(first))
        unplaced = [f"{field}: {text}" if field else text
                    for field, text in problems.items() if field not in placed]
        show_status(self.outcome, " ".join(unplaced), ok=False)

    def accept(self) -> None:
        if self.apply():
            super().accept()

    def done(self, result: int) -> None:
        super().done(result)
        self.tasks.release_when_idle(self)
