"""``core.transfer.note_words``: an imported Markdown note read as words."""

from __future__ import annotations

import pytest

from core.transfer.note_words import note_words


@pytest.mark.parametrize(("markdown", "words"), [
    ("# Trip to Porto\n\n- **Book** the [[train]]\n- ask [Ines](mailto:ines@example.org)",
     "Trip to Porto\n\n• Book the train\n• ask Ines"),
    ("## Reading\n> *Piranesi* by __Susanna Clarke__", "Reading\nPiranesi by Susanna Clarke"),
    ("- [x] call the plumber\n- [ ] fix the `boiler`", "• call the plumber\n• fix the boiler"),
    ("See [[Projects/Shed|the shed]] and ![plan](shed.png)", "See the shed and plan"),
    ("snake_case_words and 2 * 3 * 4 stay", "snake_case_words and 2 * 3 * 4 stay"),
    ("Line one\n\n---\n\n~~old~~ new", "Line one\n\nold new"),
])
def test_markdown_marks_are_taken_out(markdown: str, words: str) -> None:
    assert note_words(markdown) == words
