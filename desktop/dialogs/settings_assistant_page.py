"""The settings' "Assistant" tab: the user's own instructions for how Hearth answers (a
persona: tone, length, a role) and how freely it words its replies (temperature).

Both apply from the next reply on, with Ollama and with the built-in model alike: the
conversation reads them from the settings at every turn (``core.conversation``)."""

from __future__ import annotations

from PySide6.QtWidgets import QDoubleSpinBox, QFormLayout, QPlainTextEdit, QWidget

from core.config import PERSONA_CHARS, Settings
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_form import Changes, Problems, SettingsSection

MODEL_DEFAULT = "The model's default"
"""What the temperature box shows at its lowest step, which stands for "not set"."""
UNSET = -0.1
MAX_TEMPERATURE = 2.0


class AssistantSection(SettingsSection):
    title = "Assistant"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        form = QFormLayout(self)
        self.persona = QPlainTextEdit()
        self.persona.setTabChangesFocus(True)
        self.persona.setPlaceholderText("For example: Answer briefly, in plain words. "
                                        "Call me Sam.")
        self.add_row(form, "&How to answer:", self.persona, field="persona",
                     help_text="Your own instructions, given to the assistant before every "
                               "reply: tone, length, a role it should take.")
        self.temperature = QDoubleSpinBox()
        self.temperature.setRange(UNSET, MAX_TEMPERATURE)
        self.temperature.setSingleStep(0.1)
        self.temperature.setDecimals(1)
        self.temperature.setSpecialValueText(MODEL_DEFAULT)
        self.add_row(form, "&Creativity (temperature):", self.temperature,
                     field="temperature",
                     help_text="Lower gives steadier, more predictable answers; higher gives "
                               "more varied wording. 0.7 suits most chats.")

    def load(self, settings: Settings) -> None:
        self.persona.setPlainText(settings.persona)
        self.temperature.setValue(UNSET if settings.temperature is None
                                  else settings.temperature)

    def collect(self) -> tuple[Changes, Problems]:
        persona = self.persona.toPlainText().strip()
        problems: Problems = {}
        if len(persona) > PERSONA_CHARS:
            problems["persona"] = (f"Keep it under {PERSONA_CHARS:,} characters (it has "
                                   f"{len(persona):,}): it is sent with every message.")
        value = round(self.temperature.value(), 1)
        return {"persona": persona, "temperature": None if value <= UNSET else value}, problems
