"""The settings' "Privacy" tab: whether Hearth learns at all (the same setting as Memory →
Pause learning and the tray's), and words and topics Hearth never stores, one per line.

Matching is on whole words and phrases regardless of case (``core.learning.exclusions``),
so a line must contain at least one letter or digit to ever match; such a line is refused
with a message rather than stored as a rule that silently does nothing. Blank lines and
repeats (ignoring case) are dropped. New exclusions apply from the next message.
"""

from __future__ import annotations

import re

from PySide6.QtWidgets import QCheckBox, QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from core.config import Settings
from desktop.context import AppContext
from desktop.dialogs.owned_tasks import OwnedTasks
from desktop.dialogs.settings_form import Changes, Problems, SettingsSection, muted_label

_WORD = re.compile(r"[^\W_]")


def parse_exclusions(text: str) -> tuple[list[str], list[str]]:
    """The terms in ``text`` (one per line, trimmed, first spelling of each kept) and the
    lines that can never match anything."""
    terms: list[str] = []
    seen: set[str] = set()
    unusable: list[str] = []
    for line in text.splitlines():
        term = " ".join(line.split())
        if not term:
            continue
        if not _WORD.search(term):
            unusable.append(term)
        elif term.casefold() not in seen:
            seen.add(term.casefold())
            terms.append(term)
    return terms, unusable


class PrivacySection(SettingsSection):
    title = "Privacy"

    def __init__(self, ctx: AppContext, tasks: OwnedTasks, parent: QWidget | None = None,
                 ) -> None:
        super().__init__(ctx, tasks, parent)
        self.learn = QCheckBox("Learn from my chats")
        intro = QLabel("<b>Never store</b>")
        self.exclusions = QPlainTextEdit()
        self.exclusions.setPlaceholderText("One word or topic per line, for example:\n"
                                           "salary\nmental health\nmy ex")
        self.exclusions.setTabChangesFocus(True)
        intro.setBuddy(self.exclusions)
        column = QVBoxLayout(self)
        column.addWidget(self.learn)
        column.addWidget(muted_label(
            "When this is off, Hearth still answers with what it already knows, but "
            "remembers nothing new: no fact, memory or summary is made from what you say. "
            "The same switch is Pause learning in the Memory menu and the tray."))
        column.addSpacing(8)
        column.addWidget(intro)
        column.addWidget(muted_label(
            "Whatever mentions one of these, as a whole word or phrase in any letter case, "
            "is answered but never remembered: no fact, memory, note or summary is made of "
            "it. Everything else Hearth learns stays in its data folder on this computer."))
        column.addWidget(self.exclusions, 1)
        column.addWidget(self.error_label("exclusions"))

    def load(self, settings: Settings) -> None:
        self.learn.setChecked(not settings.learning_paused)
        self.exclusions.setPlainText("\n".join(settings.exclusions))

    def collect(self) -> tuple[Changes, Problems]:
        terms, unusable = parse_exclusions(self.exclusions.toPlainText())
        problems: Problems = {}
        if unusable:
            quoted = ", ".join(f"“{line}”" for line in unusable)
            one = len(unusable) == 1
            problems["exclusions"] = (f"{quoted} {'has' if one else 'have'} no letters or "
                                      f"digits, so {'it' if one else 'they'} could never match "
                                      "a message. Use words.")
        return {"exclusions": terms, "learning_paused": not self.learn.isChecked()}, problems
