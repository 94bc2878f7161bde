"""What changed between two versions of a text, as a person reads it: paragraph by
paragraph, with the words that were added or removed inside a changed paragraph.

A unified diff (``@@ -3,2 +3,2 @@``, lines led by ``+`` and ``-``) is how programmers read a
change; the profile is prose, so its Changes tab shows this instead. Pure Python (difflib),
no Qt: the comparison runs on a worker and the view only renders the result.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Literal

from desktop.words import count, listing

Change = Literal["same", "added", "removed", "changed"]
MIN_LIKENESS = 0.4
"""Two paragraphs that share less than this (difflib's ratio over their words) are shown as
one removed and one added, not as a word-by-word mix nobody could read."""
_TOKENS = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True)
class Piece:
    """A run of a paragraph's text and whether it is kept, added or removed."""

    text: str
    change: Literal["same", "added", "removed"]


@dataclass(frozen=True)
class Paragraph:
    """One paragraph (a line of the text) of the comparison."""

    change: Change
    pieces: tuple[Piece, ...]

    @property
    def text(self) -> str:
        return "".join(piece.text for piece in self.pieces)


def compare(old: str, new: str) -> list[Paragraph]:
    """Every non-blank paragraph of ``new``, in order, with those of ``old`` it dropped put
    where they were; a paragraph edited in place is ``changed`` and carries word pieces."""
    before = [line for line in old.splitlines() if line.strip()]
    after = [line for line in new.splitlines() if line.strip()]
    result: list[Paragraph] = []
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            result.extend(_whole("same", line) for line in after[j1:j2])
        elif op == "delete":
            result.extend(_whole("removed", line) for line in before[i1:i2])
        elif op == "insert":
            result.extend(_whole("added", line) for line in after[j1:j2])
        else:
            result.extend(_replaced(before[i1:i2], after[j1:j2]))
    return result


def summary(paragraphs: list[Paragraph]) -> str:
    """"2 paragraphs changed and 1 paragraph added" (empty when nothing changed)."""
    tally = {change: sum(1 for p in paragraphs if p.change == change)
             for change in ("changed", "added", "removed")}
    parts = [f"{count(number, 'paragraph')} {change}" for change, number in tally.items()
             if number]
    return listing(parts)


def _whole(change: Literal["same", "added", "removed"], line: str) -> Paragraph:
    return Paragraph(change, (Piece(line, change),))


def _replaced(before: list[str], after: list[str]) -> list[Paragraph]:
    """Lines replaced by other lines: each pair in order is one edited paragraph when the
    two are alike enough; the rest are removed or added."""
    result: list[Paragraph] = []
    for index in range(max(len(before), len(after))):
        old = before[index] if index < len(before) else None
        new = after[index] if index < len(after) else None
        if old is not None and new is not None:
            result.extend(_edited(old, new))
        elif old is not None:
            result.append(_whole("removed", old))
        elif new is not None:
            result.append(_whole("added", new))
    return result


def _edited(old: str, new: str) -> list[Paragraph]:
    """One paragraph edited in place: its kept words, and each edited stretch as the words
    removed then the words added ("~~product designer in Lisbon~~ design lead who moved to
    Porto"), not interleaved word by word."""
    old_words, new_words = _TOKENS.findall(old), _TOKENS.findall(new)
    matcher = difflib.SequenceMatcher(None, old_words, new_words, autojunk=False)
    if matcher.ratio() < MIN_LIKENESS:
        return [_whole("removed", old), _whole("added", new)]
    runs = [(op == "equal", "".join(old_words[i1:i2]), "".join(new_words[j1:j2]))
            for op, i1, i2, j1, j2 in matcher.get_opcodes()]
    pieces: list[Piece] = []
    removed, added = "", ""
    for index, (kept, before, after) in enumerate(runs):
        between_edits = (kept and not before.strip() and 0 < index < len(runs) - 1
                         and removed + added != "")
        if not kept or between_edits:  # a space between two edits joins them
            removed, added = removed + before, added + after
            continue
        pieces.extend(_edit_pieces(removed, added))
        removed, added = "", ""
        pieces.append(Piece(after, "same"))
    pieces.extend(_edit_pieces(removed, added))
    return [Paragraph("changed", tuple(pieces))]


def _edit_pieces(removed: str, added: str) -> list[Piece]:
    """An edited stretch: what went, a space, what came (either may be empty); the spaces
    around the stretch stay plain text, so "a b c" to "a c" still reads "a ~~b~~ c"."""
    text = added if added.strip() else removed
    if not text.strip():
        return [Piece(text, "same")] if text else []
    lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    pieces = [Piece(lead, "same")] if lead else []
    if removed.strip():
        pieces.append(Piece(removed.strip(), "removed"))
    if removed.strip() and added.strip():
        pieces.append(Piece(" ", "same"))
    if added.strip():
        pieces.append(Piece(added.strip(), "added"))
    if trail:
        pieces.append(Piece(trail, "same"))
    return pieces
