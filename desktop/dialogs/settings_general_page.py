"""The settings' "General" tab: when the nightly dream cycle runs, whether and when the
daily briefing comes, when a conversation counts as finished, how much of the chat and of
memory goes into each prompt, and whether closing the window keeps Hearth running in the
tray.

All of these apply at once: the schedule is rebuilt for a new dream or briefing time, and the
conversation reads the budgets and the quiet time at each turn.
"""

from __future__ import annotations

from PySide6.QtCore import QTime
from PySide6.QtWidgets import (
    QCheckBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QSpinBox,
    QTimeEdit,
    QWidget,
)

from core.config import Settings
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_form import Changes, Problems, SettingsSection, spin_box

TIME_FORMAT = "HH:mm"
"""The format of ``Settings.dream_time`` and ``daily_briefing_time``, in Qt's notation."""
MINUTES_PER_DAY = 24 * 60


WORDS_PER_TOKEN = 0.75
"""About three words for every four tokens, in English prose."""
TOKENS_TIP = ("Details: the number counts tokens, the pieces of words a language model reads "
              "(about four for every three English words).")


def in_words(box: QSpinBox) -> QWidget:
    """A budget in tokens with what it means beside it: "about 1,500 words"."""
    words = QLabel()

    def say(value: int) -> None:
        words.setText(f"about {round(value * WORDS_PER_TOKEN, -1):,.0f} words")

    box.valueChanged.connect(say)
    box.setToolTip(TOKENS_TIP)
    say(box.value())
    row = QWidget()
    layout = QHBoxLayout(row)
    layout.setContentsMargins(0, 0, 0, 0)
    layout.addWidget(box)
    layout.addWidget(words)
    layout.addStretch(1)
    return row


class GeneralSection(SettingsSection):
    title = "General"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        form = QFormLayout(self)
        self.dream_time = QTimeEdit()
        self.dream_time.setDisplayFormat(TIME_FORMAT)
        self.add_row(form, "&Dream cycle at:", self.dream_time, field="dream_time",
                     help_text="Each night at this time Hearth tidies up what it learned: "
                               "merges duplicates, links related memories, lets stale ones "
                               "fade. It runs while Hearth runs (the tray keeps it running).")
        self.briefing = QCheckBox("Each day, a &briefing of tasks, reminders and follow-ups")
        self.add_row(form, "Daily briefing:", self.briefing, field="daily_briefing",
                     help_text="One notification and one message in the \"Daily briefing\" "
                               "chat with the day's tasks, reminders and follow-ups.")
        self.briefing_time = QTimeEdit()
        self.briefing_time.setDisplayFormat(TIME_FORMAT)
        self.add_row(form, "&Briefing at:", self.briefing_time, field="daily_briefing_time",
                     help_text="When the daily briefing comes (a morning slept through "
                               "brings it once when the computer wakes).")
        self.briefing.toggled.connect(self.briefing_time.setEnabled)
        self.quiet = spin_box("session_quiet_minutes", suffix="minutes",
                              maximum=MINUTES_PER_DAY)
        self.add_row(form, "Conversation &ends after:", self.quiet,
                     field="session_quiet_minutes",
                     help_text="A chat that has been quiet this long is finished: Hearth then "
                               "reflects on it and the next message starts a new session.")
        self.history = spin_box("history_token_budget", step=500)
        self.add_row(form, "Chat &history per prompt:", in_words(self.history),
                     field="history_token_budget",
                     help_text="How much of the current conversation is sent with each "
                               "message. More remembers the thread better but answers slower.")
        self.context = spin_box("context_token_budget", step=100)
        self.add_row(form, "&Memories per prompt:", in_words(self.context),
                     field="context_token_budget",
                     help_text="Room for the facts, memories and notes recalled for each "
                               "message.")
        self.tray = QCheckBox("&Keep running in the tray when the window is closed")
        self.add_row(form, "Closing:", self.tray, field="keep_running_in_tray",
                     help_text="Otherwise closing the window quits Hearth, and the dream "
                               "cycle waits until it is started again.")

    def load(self, settings: Settings) -> None:
        self.dream_time.setTime(QTime.fromString(settings.dream_time, TIME_FORMAT))
        self.briefing.setChecked(settings.daily_briefing)
        self.briefing_time.setTime(QTime.fromString(settings.daily_briefing_time, TIME_FORMAT))
        self.briefing_time.setEnabled(settings.daily_briefing)
        self.quiet.setValue(settings.session_quiet_minutes)
        self.history.setValue(settings.history_token_budget)
        self.context.setValue(settings.context_token_budget)
        self.tray.setChecked(settings.keep_running_in_tray)

    def collect(self) -> tuple[Changes, Problems]:
        return {"dream_time": self.dream_time.time().toString(TIME_FORMAT),
                "daily_briefing": self.briefing.isChecked(),
                "daily_briefing_time": self.briefing_time.time().toString(TIME_FORMAT),
                "session_quiet_minutes": self.quiet.value(),
                "history_token_budget": self.history.value(),
                "context_token_budget": self.context.value(),
                "keep_running_in_tray": self.tray.isChecked()}, {}
