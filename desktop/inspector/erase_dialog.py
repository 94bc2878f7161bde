"""Erase everywhere: every place the words are, with the words around them, chosen place by
place before anything is rewritten.

Each place (a message, a chat's title, a memory, another fact…) is a ticked line with the
text around each match under it; unticking it leaves it as it is. Another fact's value is
listed unticked: erasing one fact never rewrites another unless the person ticks it. The
dialog says before the erase, on its button's side, that it cannot be undone; the result
dialog says it again after (``ForgetResultDialog``). What it returns is the choice, as the
tokens the erase takes (``skip``, ``include``)."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.operations.facts import CANNOT_UNDO, PlaceInPreview
from desktop.inspector.formatting import local_time
from desktop.words import count

TOKEN_ROLE = Qt.ItemDataRole.UserRole


class EraseDialog(QDialog):
    """``headline``: whose words these are; ``places``: where they are (a preview's)."""

    def __init__(self, title: str, headline: str, places: Sequence[PlaceInPreview],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self._places = tuple(places)
        self.headline = QLabel(headline)
        self.headline.setWordWrap(True)
        self.explain = QLabel(
            f"Ticked places get “[forgotten]” in place of the words. Untick what you want "
            f"to keep. {CANNOT_UNDO}" if places else
            f"The words are nowhere else: only the entry itself goes. {CANNOT_UNDO}")
        self.explain.setWordWrap(True)
        self.tree = QTreeWidget()
        self.tree.setHeaderHidden(True)
        self.tree.setColumnCount(1)
        self.tree.setWordWrap(True)
        self._items = [_place_item(place) for place in self._places]
        self.tree.addTopLevelItems(self._items)
        self.tree.expandAll()
        self.tree.setVisible(bool(places))
        self.all_button = QPushButton("Untick all")
        self.all_button.setToolTip("Keep every place (the entry itself still goes)")
        self.all_button.clicked.connect(self._tick_all)
        self.all_button.setVisible(bool(places))
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.erase_button = self.buttons.addButton("&Erase",
                                                   QDialogButtonBox.ButtonRole.DestructiveRole)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setDefault(True)
        layout = QVBoxLayout(self)
        layout.addWidget(self.headline)
        layout.addWidget(self.explain)
        layout.addWidget(self.tree, 1)
        layout.addWidget(self.all_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.buttons)
        self.erase_button.clicked.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.setMinimumWidth(480)
        if places:  # room to read the words around each value, within the screen
            fits = self.screen().availableGeometry().size()
            self.resize(min(760, fits.width() - 40), min(540, fits.height() - 60))

    def _tick_all(self) -> None:
        """Untick every place, or tick them all again (the button says which)."""
        ticking = self.all_button.text() == "Tick all"
        state = Qt.CheckState.Checked if ticking else Qt.CheckState.Unchecked
        for item in self._items:
            item.setCheckState(0, state)
        self.all_button.setText("Untick all" if ticking else "Tick all")

    def tick(self, token: str, ticked: bool) -> None:
        """Tick or untick the place ``token`` (as a person's click does)."""
        for item in self._items:
            if item.data(0, TOKEN_ROLE) == token:
                item.setCheckState(0, Qt.CheckState.Checked if ticked
                                   else Qt.CheckState.Unchecked)

    def choice(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """``(skip, include)``: the ticked-by-default places unticked, and the others ticked."""
        skip, include = [], []
        for item, place in zip(self._items, self._places, strict=True):
            ticked = item.checkState(0) == Qt.CheckState.Checked
            if place.ticked and not ticked:
                skip.append(place.token)
            elif ticked and not place.ticked:
                include.append(place.token)
        return tuple(skip), tuple(include)



def _place_item(place: PlaceInPreview) -> QTreeWidgetItem:
    when = f" · {local_time(place.when)}" if place.when else ""
    other = "" if place.ticked else " (another fact: kept unless you tick it)"
    item = QTreeWidgetItem([f"{place.where}{when}{other}"])
    item.setData(0, TOKEN_ROLE, place.token)
    item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
    item.setCheckState(0, Qt.CheckState.Checked if place.ticked else Qt.CheckState.Unchecked)
    for excerpt in place.excerpts:
        line = QTreeWidgetItem([str(excerpt)])  # the words to replace between « »
        line.setFlags(Qt.ItemFlag.ItemIsEnabled)
        line.setToolTip(0, f"“{excerpt.match}” is what would be replaced")
        item.addChild(line)
    return item


def places_headline(whose: str, places: Sequence[PlaceInPreview], itself: str) -> str:
    """“The value of “priya” is in 3 places besides the fact itself.”"""
    if not places:
        return f"{whose} nowhere but in {itself}."
    return f"{whose} in {count(len(places), 'place')} besides {itself}."
