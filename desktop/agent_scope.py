"""How far an agent's reading goes, chosen with check boxes: "Only let it search" and "Keep
private:" with a box per topic (a fact category), with the sentence of what the grant then
covers (``core.agents.coverage``) kept up to date as the boxes change.

Used by a new agent's request for access (``desktop.agent_requests``) and by the Agents
view for the selected agent; both apply it with ``core.operations.agents.grant``, and the
tools enforce it."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from core.operations.agents import covers
from core.operations.facts import CATEGORIES

TOPIC_LABELS = {"location": "places", "personal": "personal life", "preference": "preferences",
                "work": "work", "health": "health", "general": "other"}
"""A category's box, as the topic it is about."""


class ScopeChooser(QWidget):
    """The two choices and, when ``access`` is set, the sentence they make.
    ``changed`` when the user ticks or unticks a box."""

    changed = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.only_search = QCheckBox("Only let it search your memories (no list of your "
                                     "facts, no About you)")
        self.private = {category: QCheckBox(TOPIC_LABELS.get(category, category))
                        for category in CATEGORIES}
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(QLabel("Keep private from it:"))
        for box in self.private.values():
            row.addWidget(box)
        row.addStretch(1)
        self.sentence = QLabel()
        self.sentence.setWordWrap(True)
        self.sentence.setTextFormat(Qt.TextFormat.PlainText)
        self.sentence.setVisible(False)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(2)
        layout.addWidget(self.sentence)
        layout.addWidget(self.only_search)
        layout.addLayout(row)
        self._access: str | None = None
        self._trusted = False
        for box in (self.only_search, *self.private.values()):
            box.toggled.connect(self._toggled)

    @property
    def scope(self) -> str:
        return "search" if self.only_search.isChecked() else "all"

    @property
    def hidden(self) -> list[str]:
        return [category for category, box in self.private.items() if box.isChecked()]

    def show_grant(self, access: str | None, scope: str = "all", hidden: Sequence[str] = (),
                   trusted: bool = False) -> None:
        """Show a grant as stored (no ``changed``); ``access`` None hides the sentence."""
        self._access, self._trusted = access, trusted
        for box in (self.only_search, *self.private.values()):
            box.blockSignals(True)
        self.only_search.setChecked(scope == "search")
        for category, box in self.private.items():
            box.setChecked(category in hidden)
        for box in (self.only_search, *self.private.values()):
            box.blockSignals(False)
        self._say()

    def _toggled(self) -> None:
        self._say()
        self.changed.emit()

    def _say(self) -> None:
        self.sentence.setVisible(self._access is not None)
        if self._access is not None:
            self.sentence.setText(covers(self._access, self.scope, self.hidden, self._trusted))
